import { queryOptions } from '@tanstack/react-query'

export const plansKeys = {
  all: ['plans'] as const,
}

/**
 * The subscription plans, as the server defines them (GET /api/plans). Used by the landing
 * page's loader (ensureQueryData) and its component (useQuery), and later by /payment.
 *
 * The fetcher is imported on first use: it validates the response with the shared zod schema,
 * and zod (~24 KB gzipped) is not needed for the landing page's first paint, only for the
 * plans section further down. On screens that already load the API client it resolves at once.
 */
export function plansQueryOptions() {
  return queryOptions({
    queryKey: plansKeys.all,
    queryFn: async ({ signal }) => {
      const { fetchPlans } = await import('./fetch-plans')
      return fetchPlans(signal)
    },
    // Plans change with a deploy, not while someone reads the page.
    staleTime: 5 * 60_000,
  })
}

const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', maximumFractionDigits: 0 })

/** Whole dollars as the spec writes them: 50 → "$50". */
export function formatPrice(dollars: number): string {
  return usd.format(dollars)
}
