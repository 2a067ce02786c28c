import { randomUUID } from 'node:crypto'
import { join } from 'node:path'
import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify'
import { validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod'
import { Redis } from 'ioredis'
import type { Logger } from 'pino'
import type { Config } from './config'
import { createServices, type Services } from './container'
import { openDatabase, type Database } from './db/client'
import { JOBS } from './jobs/index'
import { deferredQueue, type Timers } from './jobs/in-process'
import { systemClock, type Clock } from './lib/clock'
import { PROJECT_ROOT } from './lib/project-root'
import { trustProxyFunction } from './lib/ip'
import { serializerCompiler } from './lib/serializer'
import { serverLogger, type BatchedDestination } from './lib/logger'
import { createMetrics, type Metrics } from './observability/metrics'
import { traceRequests } from './observability/tracing'
import auth from './plugins/auth'
import context from './plugins/context'
import cookies from './plugins/cookies'
import csrf from './plugins/csrf'
import errors from './plugins/errors'
import openapi from './plugins/openapi'
import rateLimit from './plugins/rate-limit'
import scheduler from './plugins/scheduler'
import security from './plugins/security'
import webApp from './plugins/web-app'
import accountRoutes from './routes/account'
import authRoutes from './routes/auth'
import billingRoutes from './routes/billing'
import callsRoutes from './routes/calls'
import chatRoutes from './routes/chat'
import commitmentsRoutes from './routes/commitments'
import coursesRoutes from './routes/courses'
import dashboardRoutes from './routes/dashboard'
import goalsRoutes from './routes/goals'
import healthRoutes, { probeRoutes } from './routes/health'
import consentRoutes from './routes/consent'
import optInRoutes from './routes/opt-in'
import plansRoutes from './routes/plans'
import progressRoutes from './routes/progress'
import reportsRoutes from './routes/reports'
import voiceRoutes from './routes/voice'
import voiceConfigRoutes from './routes/voice-config'
import stripeWebhookRoutes from './routes/webhooks-stripe'
import smsWebhookRoutes from './routes/webhooks-sms'
import vapiWebhookRoutes from './routes/webhooks-vapi'
import callNowRoutes from './routes/call-now'
import opsRoutes from './routes/ops'
import accountDataRoutes from './routes/account-data'
import staffRoutes from './routes/staff'
import supportRoutes from './routes/support'
import supportInboxRoutes from './routes/support-inbox'
import coachRoutes from './routes/coach'
import coachThreadRoutes from './routes/coach-thread'
import coachSessionRoutes from './routes/coach-sessions'
import memoryRoutes from './routes/memory'
import goalTemplateRoutes from './routes/goal-templates'

const WEB_DIST = join(PROJECT_ROOT, 'web', 'dist')

type AppOverrides = {
  /** An already-open database (tests pass one per file); otherwise opened from config and closed with the app. */
  database?: Database
  /** An already-connected Redis; otherwise connected from config.redisUrl and closed with the app. */
  redis?: Redis
  /** Where the built web app is; default web/dist. */
  webRoot?: string
  /** Key prefix for everything this app keeps in Redis. */
  redisPrefix?: string
  /** BullMQ's key prefix for the jobs this app enqueues (the worker's; tests use their own). */
  bullmqPrefix?: string
  /** The time source (tests move it to expire sessions). */
  clock?: Clock
  /** The in-process job runner's timers (tests fire them by hand). */
  timers?: Timers
  /** Services already built (by default built here with createServices and closed with the app). */
  services?: Services
  /** Overrides the pino logger options (tests silence it). */
  logger?: boolean | Record<string, unknown> | ReturnType<typeof serverLogger>
}

/**
 * One compact line per request (with its reqId) instead of Fastify's two. The URL is logged
 * without its query string: the emailed links carry their tokens there (`/auth?mode=reset&token=…`).
 */
class OneLineLogController extends LogController {
  /** Each request's duration by route pattern, method and status class (when the metrics are on). */
  readonly #observe: Metrics['http'] | undefined
  constructor(observe: Metrics['http'] | undefined) {
    super()
    this.#observe = observe
  }
  override incomingRequest() {}
  override requestCompleted(error: Error | null, request: FastifyRequest, reply: FastifyReply) {
    const line = { method: request.method, url: request.url.split('?')[0], statusCode: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10 }
    if (error) reply.log.error({ ...line, err: error }, 'request errored')
    else reply.log.info(line, 'request completed')
    // The route's pattern, never the path (no ids in labels); a request no route matched is `unmatched`.
    this.#observe?.(request.routeOptions.url ?? 'unmatched', request.method, reply.statusCode, reply.elapsedTime / 1000)
  }
}

const REQUEST_ID = /^[A-Za-z0-9._-]{8,128}$/

/** Connects to Redis for rate limits and queues; the producer side fails fast when Redis is down. */
export async function connectRedis(url: string): Promise<Redis> {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 2000,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
  })
  redis.on('error', () => {}) // reported by /api/health and by the callers; avoid unhandled 'error' events
  await redis.connect()
  return redis
}

/** Builds the whole app. Tests use it with `inject`; server/index.ts adds listen and shutdown. */
export async function buildApp(config: Config, overrides: AppOverrides = {}): Promise<FastifyInstance> {
  const ownsDatabase = !overrides.database
  const database =
    overrides.database ??
    (await openDatabase(config.databaseUrl ? { databaseUrl: config.databaseUrl } : { dataDir: config.dataDir }))
  const ownsRedis = !overrides.redis && Boolean(config.redisUrl)
  let redis = overrides.redis
  try {
    if (!redis && config.redisUrl) redis = await connectRedis(config.redisUrl)
  } catch (error) {
    if (ownsDatabase) await database.close()
    throw error
  }

  const logger = overrides.logger ?? serverLogger(config.logLevel)
  // What this process measures of itself; METRICS_PORT=0 switches off the per-request histogram
  // and the process metrics (the counters cost nothing worth saving).
  const measuring = config.metrics.port !== 0
  const metrics = overrides.services?.metrics ?? createMetrics({ processMetrics: measuring })
  const app = Fastify({
    logger,
    genReqId: (request) => {
      const incoming = request.headers['x-request-id']
      return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID()
    },
    // X-Forwarded-For is believed only from the proxies TRUST_PROXY names (loopback by default).
    trustProxy: trustProxyFunction(config.trustProxy),
    logController: new OneLineLogController(measuring ? metrics.http : undefined),
    bodyLimit: 256 * 1024,
    connectionTimeout: 30_000,
    requestTimeout: 60_000,
    keepAliveTimeout: 72_000,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
  }).withTypeProvider<ZodTypeProvider>()

  // A span per API request when tracing is on (first, so that it sees every route and hook).
  await traceRequests(app)

  // onClose hooks run last-added first: added first, this one runs last, so the batched log
  // destination writes what it holds, the shutdown's own lines included.
  const stream = typeof logger === 'object' ? (logger as { stream?: Partial<BatchedDestination> }).stream : undefined
  if (typeof stream?.flushPending === 'function') {
    const flushPending = stream.flushPending
    app.addHook('onClose', async () => flushPending())
  }

  // Closing: the server stops accepting and closes its idle keep-alive connections once; a request
  // in flight then (a provider's webhook) would leave its connection open for keepAliveTimeout
  // (72 s) after its answer, past the 10 s a shutdown has. Idle connections are reaped until the
  // server has closed.
  app.addHook('preClose', (done) => {
    const reap = setInterval(() => app.server.closeIdleConnections(), 100).unref()
    app.server.once('close', () => clearInterval(reap))
    done()
  })

  app.setValidatorCompiler(validatorCompiler)
  app.setSerializerCompiler(serializerCompiler)

  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id)
    done()
  })

  // Jobs the services enqueue go to BullMQ (run by `npm run worker`) with Redis, else to the
  // in-process runner, which the scheduler plugin starts and binds to this queue.
  // (BullMQ is loaded only then: the embedded default starts without it.)
  const bullmq = redis
    ? (await import('./jobs/bullmq')).createBullmqEnqueuer({ jobs: JOBS, connection: redis, prefix: overrides.bullmqPrefix })
    : undefined
  const inProcess = bullmq ? undefined : deferredQueue()

  const services =
    overrides.services ??
    createServices(config, {
      db: database.db,
      redis,
      clock: overrides.clock ?? systemClock,
      timers: overrides.timers,
      log: app.log as Logger,
      redisPrefix: overrides.redisPrefix,
      jobs: bullmq ?? inProcess,
      metrics,
    })
  // The queues' depths, from whichever runs the jobs.
  if (bullmq) metrics.provide({ queues: () => bullmq.stats() }, app.log as Logger)
  else if (inProcess) metrics.provide({ queues: async () => inProcess.stats() }, app.log as Logger)

  app.addHook('onClose', async () => {
    if (!overrides.services) await services.close()
    await bullmq?.close()
    if (ownsRedis && redis) await redis.quit().catch(() => redis?.disconnect())
    if (ownsDatabase) await database.close()
  })

  await app.register(context, { config, database, redis, services })
  await app.register(errors)
  await app.register(security)
  await app.register(cookies)
  await app.register(csrf)
  await app.register(auth)
  await app.register(rateLimit, { nameSpace: `${overrides.redisPrefix ?? 'mc:'}rl:` })
  await app.register(openapi)
  await app.register(scheduler, { timers: overrides.timers, queue: inProcess })

  await app.register(healthRoutes)
  await app.register(probeRoutes)
  await app.register(plansRoutes)
  await app.register(authRoutes)
  await app.register(accountRoutes)
  await app.register(billingRoutes)
  await app.register(stripeWebhookRoutes)
  await app.register(vapiWebhookRoutes)
  await app.register(smsWebhookRoutes)
  await app.register(callNowRoutes)
  await app.register(accountDataRoutes)
  await app.register(optInRoutes)
  await app.register(consentRoutes)
  await app.register(voiceConfigRoutes)
  await app.register(voiceRoutes)
  await app.register(goalsRoutes)
  await app.register(dashboardRoutes)
  await app.register(callsRoutes)
  await app.register(commitmentsRoutes)
  await app.register(reportsRoutes)
  await app.register(progressRoutes)
  await app.register(coursesRoutes)
  await app.register(chatRoutes)
  await app.register(opsRoutes)
  await app.register(staffRoutes)
  await app.register(supportRoutes)
  await app.register(supportInboxRoutes)
  await app.register(coachRoutes)
  await app.register(coachThreadRoutes)
  await app.register(coachSessionRoutes)
  await app.register(memoryRoutes)
  await app.register(goalTemplateRoutes)

  await app.register(webApp, { root: overrides.webRoot ?? WEB_DIST })

  return app
}
