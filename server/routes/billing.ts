import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import {
  CheckoutSessionParamsSchema,
  CheckoutStatusResponseSchema,
  CheckSubscriptionResponseSchema,
  checkoutPlanOf,
  CreateCheckoutBodySchema,
  CreateCheckoutResponseSchema,
  CustomerPortalResponseSchema,
  PublishableKeyResponseSchema,
  TestingActivationBodySchema,
  TestingActivationResponseSchema,
} from '#common/billing'
import { ErrorBodySchema } from '#common/errors'
import { checkoutUser } from '#server/services/billing'

const errors = {
  400: ErrorBodySchema,
  401: ErrorBodySchema,
  403: ErrorBodySchema,
  404: ErrorBodySchema,
  409: ErrorBodySchema,
  429: ErrorBodySchema,
  502: ErrorBodySchema,
  503: ErrorBodySchema,
}

/** What a signed-in user may ask of Stripe per minute (each makes objects at Stripe). */
const STRIPE_WRITE_LIMIT = { max: 10, timeWindow: '1 minute' }

/**
 * Billing: check-subscription, the payment key, embedded checkout, the checkout return, the
 * customer portal and testing mode. Stripe-only operations answer 409 PAYMENTS_NOT_CONFIGURED in
 * testing mode.
 */
const billingRoutes: FastifyPluginAsyncZod = async (app) => {
  const { billing } = app.services

  app.get(
    '/api/billing/check-subscription',
    {
      schema: {
        operationId: 'checkSubscription',
        tags: ['billing'],
        summary: 'check-subscription (spec 1 §7): subscribed, tier and period end, from the same rule as the guards',
        response: { 200: CheckSubscriptionResponseSchema, 401: ErrorBodySchema, 429: ErrorBodySchema },
      },
      config: { auth: 'session', cache: 'no-store' },
    },
    async (request) => billing.checkSubscription(request.user.id),
  )

  app.get(
    '/api/billing/publishable-key',
    {
      schema: {
        operationId: 'getStripePublishableKey',
        tags: ['billing'],
        summary: 'The Stripe publishable key for Stripe.js (409 PAYMENTS_NOT_CONFIGURED in testing mode)',
        response: { 200: PublishableKeyResponseSchema, 401: ErrorBodySchema, 409: ErrorBodySchema, 429: ErrorBodySchema },
      },
      config: { auth: 'session' },
    },
    async () => ({ publishable_key: billing.publishableKey() }),
  )

  app.post(
    '/api/billing/embedded-checkout',
    {
      schema: {
        operationId: 'createEmbeddedCheckout',
        tags: ['billing'],
        summary: "create-embedded-checkout: an embedded Stripe Checkout Session (subscription mode) for the plan's monthly price (403 EMAIL_NOT_CONFIRMED until the email is confirmed)",
        body: CreateCheckoutBodySchema,
        response: { 200: CreateCheckoutResponseSchema, ...errors },
      },
      config: { auth: 'session', cache: 'no-store', rateLimit: STRIPE_WRITE_LIMIT },
    },
    async (request) => billing.createEmbeddedCheckout(checkoutUser(request.user), checkoutPlanOf(request.body), request.body.attempt),
  )

  app.get(
    '/api/billing/checkout-session/:sessionId',
    {
      schema: {
        operationId: 'getCheckoutSession',
        tags: ['billing'],
        summary: "A checkout session's state after the form completes or Stripe redirects back; syncs the subscription",
        params: CheckoutSessionParamsSchema,
        response: { 200: CheckoutStatusResponseSchema, ...errors },
      },
      config: { auth: 'session', cache: 'no-store', rateLimit: { max: 30, timeWindow: '1 minute' } },
    },
    async (request) => billing.checkoutStatus(request.user.id, request.params.sessionId),
  )

  app.post(
    '/api/billing/customer-portal',
    {
      schema: {
        operationId: 'createCustomerPortalSession',
        tags: ['billing'],
        summary: "customer-portal (spec 2 §7): a Stripe billing portal session for the user's customer",
        response: { 200: CustomerPortalResponseSchema, ...errors },
      },
      config: { auth: 'session', cache: 'no-store', rateLimit: STRIPE_WRITE_LIMIT },
    },
    async (request) => billing.createPortalSession(request.user.id),
  )

  app.post(
    '/api/billing/testing-activation',
    {
      schema: {
        operationId: 'activatePlanInTestingMode',
        tags: ['billing'],
        summary: 'Testing mode: activate a plan without payment, starting the free trial once (refused when Stripe is configured; 403 EMAIL_NOT_CONFIRMED until the email is confirmed)',
        body: TestingActivationBodySchema,
        response: { 200: TestingActivationResponseSchema, 401: ErrorBodySchema, 403: ErrorBodySchema, 409: ErrorBodySchema, 429: ErrorBodySchema },
      },
      config: { auth: 'session' },
    },
    async (request) => {
      const { status, trialEnd } = await billing.activateTestingPlan(checkoutUser(request.user), request.body.plan)
      return {
        subscribed: true as const,
        subscription_tier: request.body.plan,
        subscription_end: null,
        source: 'testing' as const,
        status,
        trial_end: trialEnd ? trialEnd.toISOString() : null,
      }
    },
  )
}

export default billingRoutes
