/**
 * The frame of the signed-in screens (docs/decisions/048): the shared page frame with the session's
 * navigation in its header. A signed-in person gets the app's navigation (app-nav.tsx: the links,
 * their name, Log Out); a visitor who is not signed in (the course catalogue's and the diagnostics'
 * own signed-out views) gets the visitor links. The public screens (the landing page, /auth, the
 * not-found page) keep the plain AppShell, so the first load of / and /auth carries none of this.
 */
import { useQuery } from '@tanstack/react-query'
import type { ReactNode } from 'react'
import { AppShell, PublicNav, SiteHeader, SkipLink, type AppShellProps } from '#web/components/app-shell'
import { cn } from '#web/lib/utils'
import { meQueryOptions } from '#web/features/auth/api'
import { AppNav } from './app-nav'

type PageShellProps = Omit<AppShellProps, 'nav'> & {
  /** The Log Out button's text on this screen (default 'Log Out'; the dashboard's spec says 'Logout'). */
  logoutLabel?: string
  /**
   * A screen that fills the viewport exactly (the chat): no footer, and `aside` (its own sidebar)
   * sits beside <main> below the header; the screen scrolls inside its parts.
   */
  fill?: boolean
  aside?: ReactNode
}

export function PageShell({ logoutLabel, fill = false, aside, children, mainClassName }: PageShellProps) {
  // Observes the session the screen or its guard loaded; never asks the server itself.
  const user = useQuery({ ...meQueryOptions(), enabled: false }).data
  const nav = user ? <AppNav user={user} logoutLabel={logoutLabel} /> : <PublicNav />
  if (!fill) {
    return (
      <AppShell nav={nav} mainClassName={mainClassName}>
        {children}
      </AppShell>
    )
  }
  return (
    // The payment testing-mode banner, when shown, sits above (routes/__root.tsx).
    <div className="flex h-[calc(100dvh_-_var(--app-banner-height,0px))] flex-col overflow-hidden">
      <SkipLink />
      <SiteHeader nav={nav} />
      <div className="flex min-h-0 flex-1">
        {aside}
        <main id="main-content" tabIndex={-1} className={cn('min-w-0 flex-1 outline-none', mainClassName)}>
          {children}
        </main>
      </div>
    </div>
  )
}
