/**
 * The billing API calls (validated with the shared zod schemas). Screens of this feature load it
 * with their own chunk; nothing on the first paint of `/` or `/auth` imports it.
 */
import { queryOptions } from '@tanstack/react-query'
import {
  CheckoutStatusResponseSchema,
  CheckSubscriptionResponseSchema,
  CreateCheckoutResponseSchema,
  CustomerPortalResponseSchema,
  PublishableKeyResponseSchema,
  TestingActivationResponseSchema,
  type CheckoutStatusResponse,
} from '#common/billing'
import { PlansResponseSchema, type PlanId } from '#common/plans'
import { api } from '../../lib/api-client'
import { billingKeys } from './keys'

/** The plans and whether choosing one goes to Stripe or testing mode (GET /api/plans). */
export function billingPlansQueryOptions() {
  return queryOptions({
    queryKey: billingKeys.plans,
    queryFn: ({ signal }) => api.get('/api/plans', PlansResponseSchema, { signal }),
    staleTime: 5 * 60_000,
  })
}

export function checkSubscription(signal?: AbortSignal) {
  return api.get('/api/billing/check-subscription', CheckSubscriptionResponseSchema, { signal })
}

/**
 * check-subscription as a query (the same key the background check fills), for screens that show
 * the subscription's state, e.g. the past-due grace period on the dashboard.
 */
export function subscriptionQueryOptions() {
  return queryOptions({
    queryKey: billingKeys.subscription,
    queryFn: ({ signal }) => checkSubscription(signal),
    staleTime: 30_000,
  })
}

export async function fetchPublishableKey(): Promise<string> {
  const { publishable_key } = await api.get('/api/billing/publishable-key', PublishableKeyResponseSchema)
  return publishable_key
}

/** create-embedded-checkout: `selectedPlan` is the spec's constant `monthly`; `plan` names the plan. */
export function createEmbeddedCheckout(plan: PlanId, attempt: string) {
  return api.post('/api/billing/embedded-checkout', { plan, selectedPlan: 'monthly', attempt }, CreateCheckoutResponseSchema)
}

export function fetchCheckoutStatus(sessionId: string): Promise<CheckoutStatusResponse> {
  return api.get(`/api/billing/checkout-session/${encodeURIComponent(sessionId)}`, CheckoutStatusResponseSchema)
}

export async function openCustomerPortal(): Promise<string> {
  const { url } = await api.post('/api/billing/customer-portal', undefined, CustomerPortalResponseSchema)
  return url
}

export function activateTestingPlan(plan: PlanId) {
  return api.post('/api/billing/testing-activation', { plan }, TestingActivationResponseSchema)
}
