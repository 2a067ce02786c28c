import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { ErrorBodySchema } from '#common/errors'
import { GoalsResponseSchema, SaveGoalsBodySchema, SaveGoalsResponseSchema } from '#common/goals'

/** Saving the wizard: 30 a minute per client address is far above any person's pace. */
const SAVE_LIMIT = { max: 30, timeWindow: '1 minute' }

const errors = { 400: ErrorBodySchema, 401: ErrorBodySchema, 403: ErrorBodySchema, 429: ErrorBodySchema }

/** GET and PUT /api/goals: the goal intake's load and its one-transaction save. */
const goalsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { goals } = app.services

  app.get(
    '/api/goals',
    {
      schema: {
        operationId: 'getGoals',
        tags: ['goals'],
        summary: "The signed-in user's goal records (the eight life areas, company_industry and specific_goals)",
        response: { 200: GoalsResponseSchema, ...errors },
      },
      config: { auth: 'paid', cache: 'no-store' },
    },
    async (request) => ({ goals: await goals.load(request.user.id) }),
  )

  app.put(
    '/api/goals',
    {
      schema: {
        operationId: 'saveGoalIntake',
        tags: ['goals'],
        summary:
          'Save the whole goal intake in one transaction: every life area, work & career, specific goals, the call time and timezone on the profile, onboarding completed',
        body: SaveGoalsBodySchema,
        response: { 200: SaveGoalsResponseSchema, ...errors },
      },
      config: { auth: 'paid', cache: 'no-store', rateLimit: SAVE_LIMIT },
    },
    async (request) => goals.save(request.user.id, request.body),
  )
}

export default goalsRoutes
