import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { ErrorBodySchema } from '#common/errors'
import { ProgressQuerySchema, ProgressResponseSchema } from '#common/progress'

/**
 * The progress page's series (Premium and Elite's detailed analytics). Signed-in, paid users
 * (401, then 403 PAYMENT_REQUIRED); a Basic member gets 403 PLAN_UPGRADE_REQUIRED. Every read is
 * filtered by the session user.
 */
const progressRoutes: FastifyPluginAsyncZod = async (app) => {
  const { progress } = app.services

  app.get(
    '/api/progress',
    {
      schema: {
        operationId: 'getProgress',
        tags: ['reports'],
        summary:
          "The signed-in user's progress over their last weeks (`weeks`, default 12, at most 52; the weekly report's weeks, the last one running now): calls completed and missed, average mood and commitments kept and missed per week, and how many completed calls discussed each life area. Premium and Elite only: 403 PLAN_UPGRADE_REQUIRED on Basic",
        querystring: ProgressQuerySchema,
        response: { 200: ProgressResponseSchema, 400: ErrorBodySchema, 401: ErrorBodySchema, 403: ErrorBodySchema, 429: ErrorBodySchema },
      },
      config: { auth: 'paid', cache: 'no-store' },
    },
    async (request) => progress.series(request.user.id, request.access, request.query.weeks),
  )
}

export default progressRoutes
