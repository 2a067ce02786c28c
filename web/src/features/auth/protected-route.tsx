import { useQuery } from '@tanstack/react-query'
import { useLocation, useNavigate } from '@tanstack/react-router'
import { LoaderCircleIcon } from 'lucide-react'
import { useEffect, useRef, useState, type ReactNode } from 'react'
import { Button } from '../../components/ui/button'
import { isSigningOut, meQueryOptions, type SessionUser } from './session'

/** Who may open a screen (spec 1 §2 and §6): any signed-in user, or signed in with payment completed. */
export type Access = 'signed-in' | 'paid'

/** Spec 1 §9: the protected-route spinner appears after 500 ms. */
export const SPINNER_DELAY_MS = 500

export type ProtectedRouteProps = {
  access: Access
  /**
   * What a signed-out visitor gets: 'redirect' (default) to /auth?returnTo=…, or 'screen' for a
   * screen that has its own signed-out view in the spec (spec 2 §2: the diagnostics page's
   * 'Authentication Required', the course catalogue's 'Course Platform … Go to Login').
   */
  signedOut?: 'redirect' | 'screen'
  children: ReactNode
}

/**
 * The protected-route wrapper (spec 1 §2). It asks the server (the /api/me query) every time it
 * has no fresh answer, never a client-only flag:
 * - while verifying: 'Verifying access...' (and 'Checking subscription...' on paid screens);
 * - signed out: replaced by /auth?returnTo={this path and query} (or the screen's own view);
 * - signed in without completed payment on a paid screen: replaced by /payment.
 */
export function ProtectedRoute({ access, signedOut = 'redirect', children }: ProtectedRouteProps) {
  const me = useQuery(meQueryOptions())
  const href = useLocation({ select: (location) => location.href })

  if (me.data === undefined) {
    if (me.isError) return <AccessCheckFailed onRetry={() => void me.refetch()} retrying={me.isFetching} />
    return <VerifyingAccess access={access} />
  }
  if (me.data === null) {
    // A logout is leaving this page for /auth by itself; don't add a returnTo to it.
    if (isSigningOut()) return <VerifyingAccess access={access} />
    if (signedOut === 'screen') return children
    return <RedirectOnce to="/auth" returnTo={href} access={access} />
  }
  if (access === 'paid' && !isPaid(me.data)) return <RedirectOnce to="/payment" access={access} />
  return children
}

/**
 * Replaces the location once. (A <Navigate> would navigate again on every render, and while the
 * redirect is pending the location, and so the returnTo, already changes.)
 */
function RedirectOnce({ to, returnTo, access }: { to: '/auth' | '/payment'; returnTo?: string; access: Access }) {
  const navigate = useNavigate()
  const done = useRef(false)
  useEffect(() => {
    if (done.current) return
    done.current = true
    if (to === '/auth') void navigate({ to, search: returnTo === undefined ? {} : { returnTo }, replace: true })
    else void navigate({ to, replace: true })
  }, [navigate, to, returnTo])
  return <VerifyingAccess access={access} />
}

/** "Paid" for the guarded screens: the server's hasCompletedPayment (subscription or payment_status paid). */
export function isPaid(user: SessionUser): boolean {
  return user.hasCompletedPayment
}

/** The signed-in user, for screens inside a <ProtectedRoute> that redirects signed-out visitors. */
export function useSessionUser(): SessionUser {
  const { data } = useQuery(meQueryOptions())
  if (!data) throw new Error('useSessionUser() is for screens inside <ProtectedRoute>')
  return data
}

function useDelayed(ms: number): boolean {
  const [elapsed, setElapsed] = useState(false)
  useEffect(() => {
    const timer = window.setTimeout(() => setElapsed(true), ms)
    return () => window.clearTimeout(timer)
  }, [ms])
  return elapsed
}

export function VerifyingAccess({ access }: { access: Access }) {
  const showSpinner = useDelayed(SPINNER_DELAY_MS)
  return (
    <main id="main-content" aria-busy="true" className="flex min-h-dvh items-center justify-center px-4">
      <div role="status" className="flex flex-col items-center gap-3 text-center">
        <span className="flex size-10 items-center justify-center" aria-hidden="true">
          {showSpinner ? <LoaderCircleIcon data-slot="spinner" className="size-10 animate-spin text-primary" /> : null}
        </span>
        <p className="text-lg font-medium">Verifying access...</p>
        {access === 'paid' ? <p className="text-muted-foreground">Checking subscription...</p> : null}
      </div>
    </main>
  )
}

function AccessCheckFailed({ onRetry, retrying }: { onRetry: () => void; retrying: boolean }) {
  return (
    <main id="main-content" className="flex min-h-dvh items-center justify-center px-4">
      <div role="alert" className="flex max-w-md flex-col items-center gap-4 text-center">
        <h1 className="text-2xl font-bold tracking-tight">We couldn't check your account</h1>
        <p className="text-muted-foreground">
          Unable to connect to our servers. Please check your internet connection and try again.
        </p>
        <Button onClick={onRetry} disabled={retrying}>
          {retrying ? 'Trying again…' : 'Try again'}
        </Button>
      </div>
    </main>
  )
}
