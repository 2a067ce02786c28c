import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { CallNowResponseSchema } from '#common/calls'
import { ErrorBodySchema } from '#common/errors'

/** Test calls a person may ask for in an hour (each one rings their phone and costs a call). */
const CALL_NOW_PER_HOUR = 3

/**
 * POST /api/calls/test: "Call me now", a test call placed at once to check the setup. It counts
 * against nothing (not the day's calls, no retries); rate-limited per person.
 */
const callNowRoutes: FastifyPluginAsyncZod = async (app) => {
  const { calls } = app.services

  app.post(
    '/api/calls/test',
    {
      schema: {
        operationId: 'callMeNow',
        tags: ['calls'],
        summary: '"Call me now": places a test call to the signed-in person at once (3 an hour)',
        response: { 202: CallNowResponseSchema, 401: ErrorBodySchema, 403: ErrorBodySchema, 409: ErrorBodySchema, 429: ErrorBodySchema },
      },
      config: {
        auth: 'paid',
        // Counted per person, after the session guard (preValidation) has loaded the session.
        rateLimit: { max: CALL_NOW_PER_HOUR, timeWindow: '1 hour', hook: 'preHandler', keyGenerator: (request) => `call-now:${request.session?.user.id ?? request.ip}` },
      },
    },
    async (request, reply) => {
      const result = await calls.callNow(request.user.id)
      return reply.code(202).send(result)
    },
  )
}

export default callNowRoutes
