/**
 * The client's session state around the session query (api.ts): starting the check early, a new
 * session replacing the cache, and the moment a logout is leaving the page. Free of zod and of the
 * fetch client, like api.ts, as route options use it.
 */
import type { QueryClient } from '@tanstack/react-query'
import { authKeys, meQueryOptions, type SessionUser } from './api'

/** Route loader: starts the session check in parallel with the route's code. Never throws. */
export function prefetchSession({ context }: { context: { queryClient: QueryClient } }): void {
  void context.queryClient.prefetchQuery(meQueryOptions())
}

/**
 * A new session began (login, sign-up, password reset): whatever was cached belonged to the
 * previous session (or to nobody), so it goes, and the session user is known at once.
 */
export function startSession(queryClient: QueryClient, user: SessionUser): void {
  queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== authKeys.all[0] })
  queryClient.setQueryData(authKeys.me, user)
}

// While a logout is under way the session is already null locally but the page has not left yet;
// the guards must not send the user to /auth?returnTo=... in that moment.
let signingOut = false
export const isSigningOut = () => signingOut
export function setSigningOut(value: boolean): void {
  signingOut = value
}
