/**
 * The plans feature's API: GET /api/plans, the plans as the server defines them and whether
 * choosing one goes to Stripe or testing mode. One query, read by the landing page (its loader
 * starts it, its plans section shows it) and by /payment.
 *
 * The landing route's loader imports this module, so it is part of the entry chunk and stays free
 * of zod and of the fetch client: the request, validated with the shared zod schema, is its other
 * half (api.requests.ts), loaded on first use (zod is not needed for the landing page's first
 * paint, only for the plans section further down).
 */
import { queryOptions } from '@tanstack/react-query'

export const plansKeys = {
  all: ['plans'] as const,
}

export function plansQueryOptions() {
  return queryOptions({
    queryKey: plansKeys.all,
    queryFn: async ({ signal }) => (await import('./api.requests')).fetchPlans(signal),
    // Plans change with a deploy, not while someone reads the page.
    staleTime: 5 * 60_000,
  })
}
