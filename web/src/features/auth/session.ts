/**
 * The client's view of the session (spec 1 §4 "Auth state"): GET /api/me through TanStack Query.
 * `undefined` while unknown, `null` when signed out, the user when signed in.
 *
 * This module is free of zod and of the fetch client so that route files (which end up in the
 * entry chunk) can start the request from their loaders; the fetchers load on first use.
 */
import { queryOptions, type QueryClient } from '@tanstack/react-query'
import type { SessionUser } from '#common/auth'

export type { SessionUser }

export const authKeys = {
  all: ['auth'] as const,
  me: ['auth', 'me'] as const,
}

/** The API calls of this feature (validated with the shared zod schemas), loaded on demand. */
export const loadAuthRequests = () => import('./requests')
/** The forms' validation (the shared zod schemas), loaded on demand. */
export const loadAuthValidation = () => import('./validation')

/** GET /api/me: the signed-in user, or `null` for a 401 (signed out is a state, not an error). */
export function meQueryOptions() {
  return queryOptions({
    queryKey: authKeys.me,
    queryFn: async ({ signal }): Promise<SessionUser | null> => {
      const { fetchMe } = await loadAuthRequests()
      return fetchMe(signal)
    },
  })
}

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
