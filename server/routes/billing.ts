import fp from 'fastify-plugin'
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
import { AppError } from '../lib/app-error'
import { getAccess } from '../services/access'
import { createBilling, createStripeClient, subscriptionAnswer, type Billing } from '../services/billing'
import { activateTestingPlan } from '../services/subscriptions'
import stripeWebhookRoutes from './webhooks-stripe'

declare module 'fastify' {
  interface FastifyInstance {
    /** Stripe billing, when the Stripe keys are configured (undefined in testing mode). */
    billing: Billing | undefined
  }
}

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

const notConfigured = () =>
  new AppError('PAYMENTS_NOT_CONFIGURED', 'Payments are in testing mode on this server: no Stripe keys are configured.', { status: 409 })

/**
 * Billing (spec 1 §4 and §7, spec 2 §7): check-subscription, the payment key, embedded checkout,
 * the checkout return, the customer portal and testing mode; plus the Stripe webhook.
 * Registered with fastify-plugin so `app.billing` is there for other features (courses).
 */
const billingRoutes: FastifyPluginAsyncZod = async (app) => {
  const settings = app.config.stripe
  // `new Stripe('')` throws: the client exists only when the keys are configured.
  const billing = settings
    ? createBilling({ db: app.db, stripe: createStripeClient(settings), appUrl: app.config.appUrl, clock: app.clock, log: app.log as never })
    : undefined
  app.decorate('billing', billing)
  const paymentMode = settings ? ('stripe' as const) : ('testing' as const)

  const requireBilling = (): Billing => {
    if (!billing) throw notConfigured()
    return billing
  }

  app.get(
    '/api/billing/check-subscription',
    {
      schema: {
        tags: ['billing'],
        summary: 'check-subscription (spec 1 §7): subscribed, tier and period end, from the same rule as the guards',
        response: { 200: CheckSubscriptionResponseSchema, 401: ErrorBodySchema, 429: ErrorBodySchema },
      },
      config: { auth: 'session' },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store')
      const access = await getAccess(app.db, request.session!.user.id, app.clock.now())
      return subscriptionAnswer(access, paymentMode)
    },
  )

  app.get(
    '/api/billing/publishable-key',
    {
      schema: {
        tags: ['billing'],
        summary: 'The Stripe publishable key for Stripe.js (409 PAYMENTS_NOT_CONFIGURED in testing mode)',
        response: { 200: PublishableKeyResponseSchema, 401: ErrorBodySchema, 409: ErrorBodySchema, 429: ErrorBodySchema },
      },
      config: { auth: 'session' },
    },
    async () => {
      if (!settings) throw notConfigured()
      return { publishable_key: settings.publishableKey }
    },
  )

  app.post(
    '/api/billing/embedded-checkout',
    {
      schema: {
        tags: ['billing'],
        summary: "create-embedded-checkout: an embedded Stripe Checkout Session (subscription mode) for the plan's monthly price",
        body: CreateCheckoutBodySchema,
        response: { 200: CreateCheckoutResponseSchema, ...errors },
      },
      config: { auth: 'session', rateLimit: STRIPE_WRITE_LIMIT },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store')
      const user = request.session!.user
      return requireBilling().createEmbeddedCheckout(
        { id: user.id, email: user.email, fullName: user.fullName },
        checkoutPlanOf(request.body),
        request.body.attempt,
      )
    },
  )

  app.get(
    '/api/billing/checkout-session/:sessionId',
    {
      schema: {
        tags: ['billing'],
        summary: "A checkout session's state after the form completes or Stripe redirects back; syncs the subscription",
        params: CheckoutSessionParamsSchema,
        response: { 200: CheckoutStatusResponseSchema, ...errors },
      },
      config: { auth: 'session', rateLimit: { max: 30, timeWindow: '1 minute' } },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store')
      return requireBilling().checkoutStatus(request.session!.user.id, request.params.sessionId)
    },
  )

  app.post(
    '/api/billing/customer-portal',
    {
      schema: {
        tags: ['billing'],
        summary: "customer-portal (spec 2 §7): a Stripe billing portal session for the user's customer",
        response: { 200: CustomerPortalResponseSchema, ...errors },
      },
      config: { auth: 'session', rateLimit: STRIPE_WRITE_LIMIT },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store')
      return requireBilling().createPortalSession(request.session!.user.id)
    },
  )

  app.post(
    '/api/billing/testing-activation',
    {
      schema: {
        tags: ['billing'],
        summary: 'Testing mode: activate a plan without payment (refused when Stripe is configured)',
        body: TestingActivationBodySchema,
        response: { 200: TestingActivationResponseSchema, 401: ErrorBodySchema, 403: ErrorBodySchema, 409: ErrorBodySchema, 429: ErrorBodySchema },
      },
      config: { auth: 'session' },
    },
    async (request) => {
      if (settings) {
        throw new AppError('TESTING_MODE_DISABLED', 'Payments are live: choose a plan to check out.', { status: 409 })
      }
      await activateTestingPlan(app.db, request.session!.user.id, request.body.plan, app.clock.now())
      return { subscribed: true as const, subscription_tier: request.body.plan, subscription_end: null, source: 'testing' as const }
    },
  )

  await app.register(stripeWebhookRoutes, { billing, webhookSecret: settings?.webhookSecret })
}

export default fp(billingRoutes, { name: 'billing-routes', dependencies: ['auth', 'services'] })
