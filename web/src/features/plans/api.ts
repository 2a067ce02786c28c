/**
 * The plans feature's API: GET /api/plans, the plans as the server defines them and whether
 * choosing one goes to Stripe or testing mode. One query, read by /payment (the landing page embeds
 * the same catalogue, common/plan-catalogue.ts, and never asks).
 *
 * Free of zod and of the fetch client: the request, validated with the shared zod schema, is its
 * other half (api.requests.ts), loaded on first use.
 */
import { queryOptions } from '@tanstack/react-query'

const plansKeys = {
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
