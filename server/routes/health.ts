import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { HealthResponseSchema } from '#common/health'
import { text } from '#common/text'

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

/**
 * GET /livez: the process answers (nothing else is asked: a restart would not fix a database that
 * is down). GET /readyz: it can serve — PostgreSQL answers with every committed migration applied,
 * and Redis answers when it is configured; 503 naming what is not ready otherwise. Load balancers
 * and docker compose's health checks use them.
 */
const probeRoutes: FastifyPluginAsyncZod = async (app) => {
  const Check = z.object({ ok: z.boolean(), detail: text().optional() })
  const Readiness = z.object({ status: z.enum(['ready', 'not_ready']), checks: z.object({ database: Check, migrations: Check, redis: Check }) })
  app.get(
    '/livez',
    {
      schema: {
        operationId: 'getLiveness',
        tags: ['operations'],
        summary: 'The process answers (for restarts by an orchestrator)',
        response: { 200: z.object({ status: z.literal('alive') }) },
      },
      config: { auth: 'none', rateLimit: false },
    },
    async (_request, reply) => {
      reply.header('cache-control', 'no-store')
      return { status: 'alive' as const }
    },
  )
  app.get(
    '/readyz',
    {
      schema: {
        operationId: 'getReadiness',
        tags: ['operations'],
        summary: 'Ready to serve: PostgreSQL answers with every migration applied, and Redis answers when configured',
        response: { 200: Readiness, 503: Readiness },
      },
      config: { auth: 'none', rateLimit: false },
    },
    async (request, reply) => {
      // What failed is named; why stays in the log (this answer is public).
      const failed = (error: unknown) => {
        request.log.warn({ err: error }, 'readiness check failed')
        return { ok: false, detail: 'not answering' }
      }
      const [database, migrations, redis] = await Promise.all([
        withTimeout(app.database.ping(), 2000).then(() => ({ ok: true }), failed),
        withTimeout(app.database.pendingMigrations(), 2000).then(
          (pending) => (pending === 0 ? { ok: true } : { ok: false, detail: `${pending} migration(s) not applied` }),
          failed,
        ),
        app.redis
          ? withTimeout(app.redis.ping(), 1000).then(() => ({ ok: true }), failed)
          : Promise.resolve({ ok: true, detail: 'not configured' }),
      ])
      const ready = database.ok && migrations.ok && redis.ok
      if (!ready) request.log.warn({ database, migrations, redis }, 'not ready')
      reply.header('cache-control', 'no-store')
      return reply.code(ready ? 200 : 503).send({ status: ready ? ('ready' as const) : ('not_ready' as const), checks: { database, migrations, redis } })
    },
  )
}

export { probeRoutes }
export default healthRoutes
