/**
 * The billing feature's API: query keys, the check-subscription query and, through
 * `loadBillingRequests()`, the calls.
 *
 * The background subscription check (subscription-check.ts, started on every page after the
 * first paint) imports this module, so it stays free of zod and of the fetch client: the calls,
 * validated with the shared zod schemas, are its other half (api.requests.ts), loaded on first
 * use (the check makes its first call only for a signed-in user).
 */
import { queryOptions } from '@tanstack/react-query'

export const billingKeys = {
  subscription: ['billing', 'subscription'] as const,
  /** Stripe.js loaded for the server's publishable key (the course checkout's). */
  stripe: ['billing', 'stripe-js'] as const,
}

/** The calls of this feature (subscription, checkout, portal, testing activation), loaded on first use. */
export const loadBillingRequests = () => import('./api.requests')

/**
 * check-subscription as a query (the same key the background check fills), for screens that show
 * the subscription's state, e.g. the past-due grace period on the dashboard.
 */
export function subscriptionQueryOptions() {
  return queryOptions({
    queryKey: billingKeys.subscription,
    queryFn: async ({ signal }) => (await loadBillingRequests()).checkSubscription(signal),
    staleTime: 30_000,
  })
}
