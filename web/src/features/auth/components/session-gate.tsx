import { useQuery } from '@tanstack/react-query'
import type { ReactNode } from 'react'
import { meQueryOptions, type SessionUser } from '#web/features/auth/api'
import { isSigningOut } from '#web/features/auth/session'
import { AccessCheckFailed } from './access-check-failed'
import { VerifyingAccess } from './access-views'

type SessionGateProps = {
  /** The screen's own view for a signed-out visitor. */
  signedOut: ReactNode
  children: (user: SessionUser) => ReactNode
}

/**
 * For the signed-in screens that show a signed-out visitor their own view instead of sending them
 * to sign in (the course catalogue, the diagnostics page). They stay outside the
 * `_authenticated` layout and ask the server (GET /api/me) here, with the guard's pending and
 * failure views.
 */
export function SessionGate({ signedOut, children }: SessionGateProps) {
  const me = useQuery(meQueryOptions())
  if (me.data === undefined) return me.isError ? <AccessCheckFailed /> : <VerifyingAccess access="signed-in" />
  // A logout is leaving this page for /auth by itself.
  if (me.data === null) return isSigningOut() ? <VerifyingAccess access="signed-in" /> : signedOut
  return children(me.data)
}
