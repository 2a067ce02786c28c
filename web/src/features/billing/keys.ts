/** Query keys of the billing feature (zod-free, so the subscription check can share them). */
export const billingKeys = {
  all: ['billing'] as const,
  plans: ['billing', 'plans'] as const,
  subscription: ['billing', 'subscription'] as const,
}
