import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { HealthResponseSchema } from '#common/health'

const VERSION = process.env.npm_package_version ?? '0.1.0'

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms)
    promise.then(
      (value) => {
        clearTimeout(timer)
        resolve(value)
      },
      (error: unknown) => {
        clearTimeout(timer)
        reject(error instanceof Error ? error : new Error(String(error)))
      },
    )
  })
}

/** GET /api/health: 200 with the state of the database and Redis; 503 when the database is unreachable. */
const healthRoutes: FastifyPluginAsyncZod = async (app) => {
  const startedAt = app.services.clock.now().getTime()
  app.get(
    '/api/health',
    {
      schema: {
        operationId: 'getHealth',
        tags: ['operations'],
        summary: 'Liveness and the state of the database and Redis',
        response: { 200: HealthResponseSchema, 503: HealthResponseSchema.extend({ status: z.literal('degraded') }) },
      },
      config: { auth: 'none', rateLimit: false },
    },
    async (request, reply) => {
      const [database, redis] = await Promise.all([
        withTimeout(app.database.ping(), 2000).then(
          () => 'up' as const,
          (error: unknown) => {
            request.log.warn({ err: error }, 'database health check failed')
            return 'down' as const
          },
        ),
        app.redis
          ? withTimeout(app.redis.ping(), 1000).then(
              () => 'up' as const,
              () => 'down' as const,
            )
          : Promise.resolve('not_configured' as const),
      ])
      reply.header('cache-control', 'no-store')
      const body = {
        database: { state: database, driver: app.database.driver },
        redis: { state: redis },
        uptimeSeconds: Math.max(0, Math.round((app.services.clock.now().getTime() - startedAt) / 1000)),
        version: VERSION,
      }
      if (database === 'down') return reply.code(503).send({ status: 'degraded' as const, ...body })
      return { status: redis === 'down' ? ('degraded' as const) : ('ok' as const), ...body }
    },
  )
}

export default healthRoutes
