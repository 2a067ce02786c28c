/**
 * The auth feature's API: query keys, the session query (the auth state: GET /api/me
 * through TanStack Query; `undefined` while unknown, `null` when signed out, the user when signed
 * in) and, through `loadAuthRequests()`, the calls.
 *
 * Route options (the guards, the loaders) import this module, so it is part of the entry chunk
 * and stays free of zod and of the fetch client: the calls, validated with the shared zod
 * schemas, are its other half (api.requests.ts), loaded on first use, as no screen needs zod for
 * its first paint.
 */
import { queryOptions } from '@tanstack/react-query'
import type { SessionUser } from './api.types'

export type { ForgotPasswordInput, LoginInput, ResetPasswordInput, SessionUser, SignupInput } from './api.types'

export const authKeys = {
  all: ['auth'] as const,
  me: ['auth', 'me'] as const,
}

/** The calls of this feature (login, sign-up, logout, the emailed links...), loaded on first use. */
export const loadAuthRequests = () => import('./api.requests')
/** The forms' validation (the request bodies' shared schemas, as the server applies them; zod) and failure messages. */
export const loadAuthValidation = () => import('./validation')

/** GET /api/me: the signed-in user, or `null` for a 401 (signed out is a state, not an error). */
export function meQueryOptions() {
  return queryOptions({
    queryKey: authKeys.me,
    queryFn: async ({ signal }): Promise<SessionUser | null> => (await loadAuthRequests()).fetchMe(signal),
  })
}
