import { useQuery } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { useSyncExternalStore, type ReactNode } from 'react'
import { meQueryOptions } from '#web/features/auth/api'
import { cn } from '#web/lib/utils'
import { BrandName, LogoMark } from './brand'
import { Button } from './ui/button'

/**
 * The person the app already knows is signed in (a screen or its guard loaded the session), else
 * undefined. Never asks the server: the public pages' first load makes no session request.
 */
export function useKnownUser() {
  return useQuery({ ...meQueryOptions(), enabled: false }).data ?? undefined
}

/**
 * Links shown in the header to visitors; the signed-in screens show the app's navigation instead
 * (features/navigation). On a public page (the landing page, the not-found page) someone the app
 * knows is signed in gets the way back to their dashboard instead of Log In / Get Started.
 */
export function PublicNav() {
  const user = useKnownUser()
  if (user) {
    return (
      <nav aria-label="Account" className="flex items-center gap-1 sm:gap-2">
        <Button asChild size="sm">
          <Link to="/dashboard">Go to Dashboard</Link>
        </Button>
      </nav>
    )
  }
  return (
    <nav aria-label="Account" className="flex items-center gap-1 sm:gap-2">
      <Button asChild variant="ghost" size="sm" className="max-[399px]:hidden">
        <Link to="/auth">Log In</Link>
      </Button>
      <Button asChild size="sm">
        <Link to="/auth">Get Started</Link>
      </Button>
    </nav>
  )
}

export function SiteHeader({ nav }: { nav?: ReactNode }) {
  return (
    <header className="sticky top-0 z-40 shrink-0 border-b bg-card/95 backdrop-blur supports-[backdrop-filter]:bg-card/85">
      <div className="mx-auto flex h-16 max-w-6xl items-center justify-between gap-3 px-4 sm:px-6">
        <Link
          to="/"
          className="flex shrink-0 items-center gap-2 rounded-md text-base whitespace-nowrap min-[400px]:text-lg sm:text-xl focus-visible:outline-2 focus-visible:outline-offset-4 focus-visible:outline-ring"
        >
          <LogoMark className="size-7 sm:size-8" />
          <BrandName />
        </Link>
        {nav ?? <PublicNav />}
      </div>
    </header>
  )
}

const unchanging = () => () => {}
const thisYear = () => new Date().getFullYear()
const buildYear = () => import.meta.env.BUILD_YEAR

/**
 * The current year. A prerendered page (docs/decisions/052) says the year it was built in, so
 * hydration starts from that and moves to this year only if they differ (a build from December).
 */
function useCurrentYear(): number {
  return useSyncExternalStore(unchanging, thisYear, buildYear)
}

function SiteFooter() {
  const year = useCurrentYear()
  return (
    <footer className="border-t bg-card">
      <div className="mx-auto flex max-w-6xl flex-col items-center justify-between gap-2 px-4 py-6 text-sm text-muted-foreground sm:flex-row sm:px-6">
        <p>
          © {year} <BrandName className="font-semibold" />
        </p>
        <p>Daily AI coaching that keeps your goals moving.</p>
      </div>
    </footer>
  )
}

export type AppShellProps = {
  children: ReactNode
  /** Replaces the header's right-hand navigation (the signed-in screens: features/navigation/page-shell). */
  nav?: ReactNode
  /** Classes for <main>, e.g. to centre a small page. */
  mainClassName?: string
}

/** Jumps past the header to the page's <main id="main-content">; the first thing a keyboard reaches. */
export function SkipLink() {
  return (
    <a
      href="#main-content"
      className="sr-only z-50 rounded-md bg-primary px-4 py-2 font-semibold text-primary-foreground focus:not-sr-only focus:fixed focus:top-3 focus:left-3"
    >
      Skip to main content
    </a>
  )
}

/** The page frame every screen shares: skip link, header with the brand, <main>, footer. */
export function AppShell({ children, nav, mainClassName }: AppShellProps) {
  return (
    <div className="flex min-h-dvh flex-col">
      <SkipLink />
      <SiteHeader nav={nav} />
      <main id="main-content" tabIndex={-1} className={cn('flex-1 outline-none', mainClassName)}>
        {children}
      </main>
      <SiteFooter />
    </div>
  )
}
