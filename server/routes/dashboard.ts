import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { ErrorBodySchema } from '#common/errors'
import { RecentCallsResponseSchema } from '#common/calls'
import { DashboardStatsResponseSchema } from '#common/dashboard'

const errors = { 401: ErrorBodySchema, 403: ErrorBodySchema, 429: ErrorBodySchema }

/** The dashboard's calls panel and its figures other than goals. */
const dashboardRoutes: FastifyPluginAsyncZod = async (app) => {
  const { calls } = app.services

  app.get(
    '/api/calls/recent',
    {
      schema: {
        operationId: 'listRecentCalls',
        tags: ['dashboard'],
        summary: "The signed-in user's last 5 coaching calls, newest first",
        response: { 200: RecentCallsResponseSchema, ...errors },
      },
      config: { auth: 'paid', cache: 'no-store' },
    },
    async (request) => ({ calls: await calls.recent(request.user.id) }),
  )

  app.get(
    '/api/dashboard/stats',
    {
      schema: {
        operationId: 'getDashboardStats',
        tags: ['dashboard'],
        summary: 'Days Active (distinct days in the user\'s time zone with a sign-in, goals save or completed call since sign-up) and the partner program',
        response: { 200: DashboardStatsResponseSchema, ...errors },
      },
      config: { auth: 'paid', cache: 'no-store' },
    },
    async (request) => calls.dashboardStats(request.user),
  )
}

export default dashboardRoutes
