/**
 * The signed-in navigation (docs/decisions/048): the links of nav-items.ts, the person's name and
 * Log Out. From 768 px (the md breakpoint, where the chat's history also becomes a column) it is
 * part of the header bar; narrower, on phones and small tablets, a Menu button opens it as a drawer
 * (a Radix dialog). The links are router links (real hrefs: a new tab works), the current
 * page's link carries aria-current="page" and a section's (a course, a call) aria-current="true".
 * Rendered by page-shell.tsx for a signed-in person.
 */
import { Link, useLocation } from '@tanstack/react-router'
import { MenuIcon, XIcon } from 'lucide-react'
import { Dialog as DialogPrimitive } from 'radix-ui'
import { useRef, useState } from 'react'
import { buttonVariants } from '#web/components/ui/button'
import { Dialog, DialogClose, DialogOverlay, DialogPortal, DialogTitle, DialogTrigger } from '#web/components/ui/dialog'
import { cn } from '#web/lib/utils'
import type { SessionUser } from '#web/features/auth/api'
import { LogoutButton } from '#web/features/auth/components/logout-button'
import { currentState, navItemsFor, normalizePath, type NavItem } from './nav-items'

type AppNavProps = {
  user: SessionUser
  /** The Log Out button's text on this page (the dashboard's spec says 'Logout'). */
  logoutLabel?: string
}

const LINK_STATES = cn(
  'aria-[current=page]:bg-secondary aria-[current=page]:text-secondary-foreground',
  'aria-[current=true]:bg-secondary aria-[current=true]:text-secondary-foreground',
)

function NavLink({ item, pathname, className, onClick }: { item: NavItem; pathname: string; className?: string; onClick?: () => void }) {
  const Icon = item.icon
  return (
    <Link
      to={item.to}
      // The router marks only an exact match (aria-current="page"); aria-current below adds the
      // paths showing the same page and the pages inside the section.
      activeOptions={{ exact: true, includeSearch: false }}
      aria-current={currentState(item, pathname)}
      className={className}
      onClick={onClick}
    >
      <Icon aria-hidden="true" />
      {item.label}
    </Link>
  )
}

export function AppNav({ user, logoutLabel = 'Log Out' }: AppNavProps) {
  const pathname = useLocation({ select: (location) => location.pathname })
  const items = navItemsFor(user)
  const name = user.fullName.trim() || user.email

  return (
    <div className="flex min-w-0 flex-1 items-center gap-3">
      {/* From 768 px: the links in the bar, then the person and Log Out. */}
      <nav aria-label="Main" className="hidden shrink-0 lg:block">
        <ul className="flex items-center gap-1">
          {items.map((item) => (
            <li key={item.to}>
              <NavLink
                item={item}
                pathname={pathname}
                className={cn(
                  buttonVariants({ variant: 'ghost', size: 'sm' }),
                  // Between 1024 and 1280 px the six links fit only as words: their icons show from 1280 px.
                  'max-xl:[&_svg]:hidden',
                  LINK_STATES,
                  // The current page is also underlined: not by colour alone.
                  'aria-[current=page]:shadow-[inset_0_-2px_0_var(--color-primary)]',
                )}
              />
            </li>
          ))}
        </ul>
      </nav>
      <div className="ml-auto hidden min-w-0 items-center gap-3 lg:flex">
        <p className="min-w-0 truncate text-sm font-medium lg:max-w-56" title={name}>
          <span className="sr-only">Signed in as </span>
          <span>{name}</span>
        </p>
        <LogoutButton label={logoutLabel} size="sm" />
      </div>
      <NavDrawer items={items} pathname={pathname} name={name} logoutLabel={logoutLabel} />
    </div>
  )
}

/** Narrower than 768 px (phones, small tablets): a Menu button opening the same navigation as a drawer from the right. */
function NavDrawer({ items, pathname, name, logoutLabel }: { items: NavItem[]; pathname: string; name: string; logoutLabel: string }) {
  const [open, setOpen] = useState(false)
  // Following a link to another page: focus goes to that page's heading (use-route-focus.ts), not back to the Menu button.
  const leaving = useRef(false)

  return (
    <Dialog
      open={open}
      onOpenChange={(next) => {
        if (next) leaving.current = false
        setOpen(next)
      }}
    >
      <DialogTrigger asChild>
        <button type="button" aria-label="Menu" className={cn(buttonVariants({ variant: 'ghost', size: 'icon' }), 'ml-auto lg:hidden')}>
          <MenuIcon className="size-5" aria-hidden="true" />
        </button>
      </DialogTrigger>
      <DialogPortal>
        <DialogOverlay />
        <DialogPrimitive.Content
          aria-describedby={undefined}
          onCloseAutoFocus={(event) => {
            if (leaving.current) event.preventDefault()
          }}
          className={cn(
            'fixed inset-y-0 right-0 z-50 flex w-72 max-w-[85vw] flex-col border-l bg-card text-card-foreground shadow-xl',
            'data-[state=open]:animate-slide-in-right data-[state=closed]:animate-slide-out-right focus-visible:outline-none',
          )}
        >
          <div className="flex h-16 shrink-0 items-center justify-between gap-2 border-b px-4">
            <DialogTitle className="text-base">Menu</DialogTitle>
            <DialogClose aria-label="Close menu" className={buttonVariants({ variant: 'ghost', size: 'icon' })}>
              <XIcon className="size-5" aria-hidden="true" />
            </DialogClose>
          </div>
          <p className="px-4 pt-4 text-sm text-muted-foreground">
            Signed in as
            <span className="block truncate text-base font-semibold text-foreground">{name}</span>
          </p>
          <nav aria-label="Main" className="min-h-0 flex-1 overflow-y-auto p-2">
            <ul className="flex flex-col gap-1">
              {items.map((item) => (
                <li key={item.to}>
                  <NavLink
                    item={item}
                    pathname={pathname}
                    onClick={() => {
                      leaving.current = normalizePath(pathname) !== item.to
                      setOpen(false)
                    }}
                    className={cn(buttonVariants({ variant: 'ghost' }), 'h-11 w-full justify-start text-base [&_svg]:size-5', LINK_STATES)}
                  />
                </li>
              ))}
            </ul>
          </nav>
          <div className="border-t p-4">
            <LogoutButton label={logoutLabel} className="w-full" />
          </div>
        </DialogPrimitive.Content>
      </DialogPortal>
    </Dialog>
  )
}
