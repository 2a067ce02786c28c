/**
 * The route guards (the protected-route wrapper), as the `beforeLoad` of the pathless
 * layouts `_authenticated` (signed in) and `_authenticated/_paid` (signed in, payment completed).
 * They ask the server (GET /api/me through the query cache), never a client-only flag. Route
 * options load with the entry chunk, so this module stays free of zod and of the fetch client.
 */
import type { QueryClient } from '@tanstack/react-query'
import { redirect } from '@tanstack/react-router'
import { meQueryOptions, type SessionUser } from './api'
import { isSigningOut } from './session'

/** Who may open a screen: any signed-in user, or signed in with payment completed. */
export type Access = 'signed-in' | 'paid'

/** The route ids of the guard layouts (paid screens also say 'Checking subscription...'). */
export const AUTHENTICATED_LAYOUT_ID = '/_authenticated'
export const PAID_LAYOUT_ID = '/_authenticated/_paid'

/** "Paid" for the guarded screens: the server's hasCompletedPayment (subscription or payment_status paid). */
export function isPaid(user: SessionUser): boolean {
  return user.hasCompletedPayment
}

/**
 * Where a signed-out visitor of `href` goes: /auth?returnTo={href}, coming back after login.
 * While a logout is leaving the page for /auth by itself, without the returnTo.
 */
export function signInRedirect(href: string) {
  return { to: '/auth', search: isSigningOut() ? {} : { returnTo: href } } as const
}

export const PAYMENT_REDIRECT = { to: '/payment' } as const

/** `_authenticated`'s beforeLoad: the session user, or a redirect to sign in. */
export async function requireSession({ context, location }: { context: { queryClient: QueryClient }; location: { href: string } }) {
  // Cached answers are used at once (and refreshed in the background when stale); otherwise this waits for the server.
  const user = await context.queryClient.ensureQueryData({ ...meQueryOptions(), revalidateIfStale: true })
  if (!user) throw redirect(signInRedirect(location.href))
  return { user }
}

/** `_paid`'s beforeLoad: signed in without completed payment goes to /payment. */
export function requirePayment({ context }: { context: { user: SessionUser } }): void {
  if (!isPaid(context.user)) throw redirect(PAYMENT_REDIRECT)
}
