/** The billing calls, each response validated with the shared schema: the zod half of api.ts, loaded through `loadBillingRequests()`. */
import {
  CheckoutStatusResponseSchema,
  CheckSubscriptionResponseSchema,
  CreateCheckoutResponseSchema,
  CustomerPortalResponseSchema,
  PublishableKeyResponseSchema,
  TestingActivationResponseSchema,
  type CheckoutStatusResponse,
  type CheckSubscriptionResponse,
} from '#common/billing'
import type { PlanId } from '#common/plans'
import { api } from '#web/lib/api-client'

export function checkSubscription(signal?: AbortSignal): Promise<CheckSubscriptionResponse> {
  return api.get('/api/billing/check-subscription', CheckSubscriptionResponseSchema, { signal })
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
