import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { TestingActivationBodySchema, TestingActivationResponseSchema } from '../../common/billing'
import { ErrorBodySchema } from '../../common/errors'
import { AppError } from '../lib/app-error'
import { activateTestingPlan } from '../services/subscriptions'

/** POST /api/billing/testing-activation: spec 1 §4's testing mode, only when Stripe is not configured. */
const billingTestingRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/api/billing/testing-activation',
    {
      schema: {
        tags: ['billing'],
        summary: 'Testing mode: activate a plan without payment (refused when Stripe is configured)',
        body: TestingActivationBodySchema,
        response: { 200: TestingActivationResponseSchema, 401: ErrorBodySchema, 403: ErrorBodySchema, 409: ErrorBodySchema },
      },
      config: { auth: 'session' },
    },
    async (request) => {
      if (app.config.stripe) {
        throw new AppError('TESTING_MODE_DISABLED', 'Payments are live: choose a plan to check out.', { status: 409 })
      }
      await activateTestingPlan(app.db, request.session!.user.id, request.body.plan, app.clock.now())
      return { subscribed: true as const, subscription_tier: request.body.plan, subscription_end: null, source: 'testing' as const }
    },
  )
}

export default billingTestingRoutes
