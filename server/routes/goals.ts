import type { FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { ErrorBodySchema } from '#common/errors'
import { GoalsResponseSchema, SaveGoalsBodySchema, SaveGoalsResponseSchema } from '#common/goals'
import { assertPaidSession } from '../services/access'
import { loadGoals, saveGoals } from '../services/goals'

/** Saving the wizard: 30 a minute per client address is far above any person's pace. */
const SAVE_LIMIT = { max: 30, timeWindow: '1 minute' }

const errors = { 400: ErrorBodySchema, 401: ErrorBodySchema, 403: ErrorBodySchema, 429: ErrorBodySchema }

/** GET and PUT /api/goals: the goal intake's load and its one-transaction save (spec 2 §4, §5, §7). */
const goalsRoutes: FastifyPluginAsyncZod = async (app) => {
  const requirePaid = async (request: FastifyRequest) => {
    assertPaidSession(request.session!, app.clock.now())
  }

  app.get(
    '/api/goals',
    {
      schema: {
        tags: ['goals'],
        summary: "The signed-in user's goal records (the eight life areas, company_industry and specific_goals)",
        response: { 200: GoalsResponseSchema, ...errors },
      },
      config: { auth: 'session' },
      preHandler: requirePaid,
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store')
      return { goals: await loadGoals(app.db, request.session!.user.id) }
    },
  )

  app.put(
    '/api/goals',
    {
      schema: {
        tags: ['goals'],
        summary:
          'Save the whole goal intake in one transaction: every life area, work & career, specific goals, the call time and timezone on the profile, onboarding completed',
        body: SaveGoalsBodySchema,
        response: { 200: SaveGoalsResponseSchema, ...errors },
      },
      config: { auth: 'session', rateLimit: SAVE_LIMIT },
      preHandler: requirePaid,
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store')
      return saveGoals(app.db, request.session!.user.id, request.body, app.clock.now())
    },
  )
}

export default goalsRoutes
