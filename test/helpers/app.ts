import type { FastifyInstance } from 'fastify'
import type { Redis } from 'ioredis'
import { buildApp } from '#server/app'
import { loadConfig, type Config } from '#server/config'
import type { Database } from '#server/db/client'
import type { Timers } from '#server/jobs/in-process'
import type { Clock } from '#server/lib/clock'

export type TestAppOptions = {
  database: Database
  redis?: Redis
  redisPrefix?: string
  /** BullMQ's key prefix for the jobs the app enqueues (with Redis; a test's worker uses the same). */
  bullmqPrefix?: string
  env?: Record<string, string>
  webRoot?: string
  clock?: Clock
  /** The embedded job runner's timers (fired by the test). */
  timers?: Timers
  /** The pino options (e.g. a stream the test reads); silent by default. */
  logger?: Record<string, unknown>
  /** Registers extra routes before the app is ready (e.g. a route that throws). */
  extend?: (app: FastifyInstance) => void | Promise<void>
}

export function testConfig(env: Record<string, string> = {}): Config {
  return loadConfig({ APP_URL: 'http://localhost:3000', LOG_LEVEL: 'silent', ...env })
}

/** The real app on a test's own database (and Redis prefix), driven with `inject`. */
export async function buildTestApp(options: TestAppOptions): Promise<FastifyInstance> {
  const app = await buildApp(testConfig(options.env), {
    database: options.database,
    redis: options.redis,
    redisPrefix: options.redisPrefix,
    bullmqPrefix: options.bullmqPrefix,
    webRoot: options.webRoot,
    clock: options.clock,
    timers: options.timers,
    logger: options.logger ?? false,
  })
  if (options.extend) await options.extend(app)
  await app.ready()
  return app
}

export const APP_ORIGIN = 'http://localhost:3000'

/** The session cookie a response set, as a Cookie header value. */
export function sessionCookieFrom(response: { cookies: Array<{ name: string; value: string }> }): string {
  const cookie = response.cookies.find((c) => c.name === 'session' || c.name === '__Host-session')
  if (!cookie || !cookie.value) throw new Error('no session cookie was set')
  return `${cookie.name}=${cookie.value}`
}
