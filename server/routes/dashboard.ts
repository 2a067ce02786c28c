import type { FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { ErrorBodySchema } from '#common/errors'
import { DashboardStatsResponseSchema, RecentCallsResponseSchema } from '#common/goals'
import { dashboardStats, recentCalls } from '../services/calls'
import { assertPaidSession } from '../services/access'

const errors = { 401: ErrorBodySchema, 403: ErrorBodySchema, 429: ErrorBodySchema }

/** The dashboard's calls panel and its figures other than goals (spec 2 §2, §7). */
const dashboardRoutes: FastifyPluginAsyncZod = async (app) => {
  const requirePaid = async (request: FastifyRequest) => {
    assertPaidSession(request.session!, app.clock.now())
  }

  app.get(
    '/api/calls/recent',
    {
      schema: {
        tags: ['dashboard'],
        summary: "The signed-in user's last 5 coaching calls, newest first",
        response: { 200: RecentCallsResponseSchema, ...errors },
      },
      config: { auth: 'session' },
      preHandler: requirePaid,
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store')
      return { calls: await recentCalls(app.db, request.session!.user.id) }
    },
  )

  app.get(
    '/api/dashboard/stats',
    {
      schema: {
        tags: ['dashboard'],
        summary: 'Days Active (distinct days in the user\'s time zone with a sign-in, goals save or completed call since sign-up) and the partner program',
        response: { 200: DashboardStatsResponseSchema, ...errors },
      },
      config: { auth: 'session' },
      preHandler: requirePaid,
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store')
      return dashboardStats(app.db, request.session!.user)
    },
  )
}

export default dashboardRoutes
