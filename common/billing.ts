import { z } from 'zod'
import { text } from './text'
import { SUBSCRIPTION_STATUSES } from './domain'
import { PaymentModeSchema, PlanIdSchema } from './plans'

export { PAYMENT_MODES, PaymentModeSchema, type PaymentMode } from './plans'

/** Days a past-due Stripe subscription keeps access while Stripe retries the payment. */
export const PAST_DUE_GRACE_DAYS = 7

/** A reminder email goes out this many days before a free trial ends. */
export const TRIAL_REMINDER_DAYS = 2

/**
 * Testing mode (no Stripe keys): choosing a plan activates it without payment, starting the free
 * trial (`trialing` until `trial_end`) unless the member has had one, then `active`.
 */
export const TestingActivationBodySchema = z.object({ plan: PlanIdSchema })
export const TestingActivationResponseSchema = z.object({
  subscribed: z.literal(true),
  subscription_tier: PlanIdSchema,
  subscription_end: text().nullable(),
  source: z.literal('testing'),
  status: z.enum(['trialing', 'active']),
  /** ISO time the free trial ends (null when no trial runs). */
  trial_end: text().nullable(),
})

/**
 * check-subscription: subscribed, tier and period end, plus what the dashboard needs to
 * explain the state (the Stripe status and the end of a past-due grace period).
 */
export const CheckSubscriptionResponseSchema = z.object({
  subscribed: z.boolean(),
  subscription_tier: PlanIdSchema.nullable(),
  /** ISO time the current period ends (null for testing activations). */
  subscription_end: text().nullable(),
  /** Whether the paid screens are open (a subscription, or `payment_status = paid`). */
  paid: z.boolean(),
  status: z.enum(SUBSCRIPTION_STATUSES).nullable(),
  source: z.enum(['stripe', 'testing']).nullable(),
  /** True while a past-due subscription is inside its grace period. */
  in_grace_period: z.boolean(),
  /** When the grace period ends (set while past due, inside or beyond the grace). */
  grace_period_end: text().nullable(),
  /** While the status is `trialing`: when the free trial ends (else null). */
  trial_end: text().nullable(),
  /** A Stripe subscription cancelled but still standing: when it ends, with no further payment (else null). */
  cancel_at: text().nullable(),
  /** Whether a plan chosen now starts with the free trial: not for a member, or an email address, that had one. */
  trial_available: z.boolean(),
  payment_mode: PaymentModeSchema,
})
export type CheckSubscriptionResponse = z.infer<typeof CheckSubscriptionResponseSchema>

/** The Stripe publishable key, for Stripe.js. */
export const PublishableKeyResponseSchema = z.object({ publishable_key: text() })

/**
 * create-embedded-checkout. The original sent `selectedPlan` (the constant
 * `monthly`) from /payment and `plan` from diagnostics; either may name the plan. `attempt` is a
 * client-made id per dialog opening, so a retried request replays instead of making a second session.
 */
export const CreateCheckoutBodySchema = z
  .object({
    plan: PlanIdSchema.optional(),
    selectedPlan: z.union([z.literal('monthly'), PlanIdSchema]).optional(),
    attempt: text()
      .regex(/^[A-Za-z0-9_-]{8,64}$/, 'attempt must be 8 to 64 letters, digits, _ or -')
      .optional(),
  })
  .refine((body) => body.plan !== undefined || (body.selectedPlan !== undefined && body.selectedPlan !== 'monthly'), {
    message: 'Choose a plan: basic, premium or elite',
    path: ['plan'],
  })
export type CreateCheckoutBody = z.input<typeof CreateCheckoutBodySchema>

/** The plan a checkout body names (`plan` wins over `selectedPlan`). */
export function checkoutPlanOf(body: z.output<typeof CreateCheckoutBodySchema>): z.infer<typeof PlanIdSchema> {
  if (body.plan) return body.plan
  if (body.selectedPlan && body.selectedPlan !== 'monthly') return body.selectedPlan
  throw new Error('no plan in the checkout body')
}

export const CreateCheckoutResponseSchema = z.object({
  client_secret: text(),
  session_id: text(),
})

export const CheckoutSessionParamsSchema = z.object({
  sessionId: text().regex(/^cs_[A-Za-z0-9_]{1,200}$/, 'Not a checkout session id'),
})

/** The state of a checkout session after the embedded form completes or Stripe redirects back. */
export const CheckoutStatusResponseSchema = z.object({
  status: z.enum(['open', 'complete', 'expired']),
  payment_status: z.enum(['paid', 'unpaid', 'no_payment_required']),
  subscribed: z.boolean(),
  subscription_tier: PlanIdSchema.nullable(),
  subscription_end: text().nullable(),
})
export type CheckoutStatusResponse = z.infer<typeof CheckoutStatusResponseSchema>

/** customer-portal: the Stripe billing portal address for the user's customer. */
export const CustomerPortalResponseSchema = z.object({ url: text() })
