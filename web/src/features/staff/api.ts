/**
 * The staff feature's API (docs/decisions/072): GET /api/staff/me through the query cache. Route
 * options (the staff guards) import this module, so it stays free of zod and of the fetch client;
 * the call itself, validated with the shared schema, is loaded on first use (api.requests.ts).
 */
import { queryOptions } from '@tanstack/react-query'
import type { StaffMe } from '#common/staff'

export type { StaffMe }

export const staffKeys = {
  all: ['staff'] as const,
  me: ['staff', 'me'] as const,
}

const loadStaffRequests = () => import('./api.requests')

/** The signed-in staff member; the request fails (ApiError) with the guard's answer: 404, TWO_FACTOR_REQUIRED, FORBIDDEN. */
export function staffMeQueryOptions() {
  return queryOptions({
    queryKey: staffKeys.me,
    queryFn: async ({ signal }): Promise<StaffMe> => (await loadStaffRequests()).fetchStaffMe(signal),
    // A refusal is an answer, not a hiccup: asked again only on the next navigation.
    retry: false,
    staleTime: 30_000,
  })
}
