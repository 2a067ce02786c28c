import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { ErrorBodySchema } from '#common/errors'
import { PlansResponseSchema } from '#common/plans'
import { PLANS } from '#server/services/billing'

const plansRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/api/plans',
    {
      schema: {
        operationId: 'listPlans',
        tags: ['billing'],
        summary: 'The monthly plans (spec 1 §9), and whether choosing one goes to Stripe or testing mode',
        response: { 200: PlansResponseSchema, 429: ErrorBodySchema },
      },
      config: { auth: 'none' },
    },
    async (_request, reply) => {
      reply.header('cache-control', 'public, max-age=300')
      return { plans: [...PLANS], paymentMode: app.services.billing.mode }
    },
  )
}

export default plansRoutes
