import { useQuery } from '@tanstack/react-query'
import { Outlet, useLocation, useNavigate } from '@tanstack/react-router'
import { useEffect, useRef } from 'react'
import { isPaid, PAYMENT_REDIRECT, signInRedirect } from '#web/features/auth/guards'
import { meQueryOptions, type SessionUser } from '#web/features/auth/api'
import { isSigningOut } from '#web/features/auth/session'
import { useScreenAccess, VerifyingAccess } from './access-views'

type Leave = ReturnType<typeof signInRedirect> | typeof PAYMENT_REDIRECT

/**
 * Replaces the location once. (Navigating on every render would navigate again while the redirect
 * is pending, when the location, and so the returnTo, already changes.)
 */
function useLeave(to: Leave | null) {
  const navigate = useNavigate()
  const left = useRef(false)
  useEffect(() => {
    if (!to || left.current) return
    left.current = true
    void navigate({ ...to, replace: true })
  }, [navigate, to])
}

/**
 * `_authenticated`: its beforeLoad let the screen open; this keeps watching the session while it
 * is open, so a change in GET /api/me's answer (a logout elsewhere, a 401, a refetch) moves the
 * user as the guard would.
 */
export function AuthenticatedLayout() {
  const user = useQuery(meQueryOptions()).data
  const href = useLocation({ select: (location) => location.href })
  const access = useScreenAccess() ?? 'signed-in'
  // A logout is leaving this page for /auth by itself.
  useLeave(user === null && !isSigningOut() ? signInRedirect(href) : null)
  return user ? <Outlet /> : <VerifyingAccess access={access} />
}

/** `_paid`: while open, a session that is no longer paid goes to /payment. */
export function PaidLayout() {
  const user = useQuery(meQueryOptions()).data
  const unpaid = user ? !isPaid(user) : false
  useLeave(unpaid ? PAYMENT_REDIRECT : null)
  return user && !unpaid ? <Outlet /> : <VerifyingAccess access="paid" />
}

/** The signed-in user, for the screens inside `_authenticated` (its layout renders them only then). */
export function useSessionUser(): SessionUser {
  const { data } = useQuery(meQueryOptions())
  if (!data) throw new Error('useSessionUser() is for the screens inside the _authenticated layout')
  return data
}
