/**
 * Traces with REDIS_URL (docs/decisions/073): the server enqueues a 'Call me now' on BullMQ with the
 * enqueue span's trace context, and a BullMQ worker runs the place-call job as a trace of its own,
 * linked to that span, holding Vapi's POST /call; never inside the context the worker was started
 * in (BullMQ's timers carry it: taskforcesh/bullmq#4731). The SDK exports to memory; real
 * PostgreSQL and Redis, the Vapi fake through the official SDK.
 */
import { randomBytes } from 'node:crypto'
import { SpanKind, trace } from '@opentelemetry/api'
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base'
import { Queue } from 'bullmq'
import { eq } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { Redis } from 'ioredis'
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createServices } from '#server/container'
import { profiles } from '#server/db/schema'
import { createBullmqEnqueuer, startBullmqWorkers, type RunningWorkers } from '#server/jobs/bullmq'
import { placeCallJob } from '#server/jobs/calls'
import { JOBS } from '#server/jobs/index'
import { systemClock } from '#server/lib/clock'
import { startTracing, stopTracing } from '#server/observability/tracing'
import { FakeVapi } from '../fakes/vapi'
import { buildTestApp, testConfig } from '../helpers/app'
import { CALLS_WEBHOOK_SECRET } from '../helpers/calls-harness'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { freePort } from '../helpers/process'
import { createTestRedis, type TestRedis } from '../helpers/redis'
import { signedInUser } from '../helpers/users'
import { createWebhookCredential } from '../helpers/vapi-credential'

const exporter = new InMemorySpanExporter()
const log = pino({ level: 'silent' })
const id = (span: ReadableSpan) => span.spanContext().spanId
const traceOf = (span: ReadableSpan) => span.spanContext().traceId

describe('a job run by a BullMQ worker', () => {
  let database: TestDatabase
  let redis: TestRedis
  let fake: FakeVapi
  let app: FastifyInstance
  let connection: Redis
  let running: RunningWorkers
  let workerStart: ReadableSpan
  const enqueuers: Array<{ close(): Promise<void> }> = []
  const prefix = `mc-test-bull-${randomBytes(4).toString('hex')}`

  beforeAll(async () => {
    const port = await freePort()
    const env = {
      APP_URL: `http://127.0.0.1:${port}`,
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
      VAPI_ASSISTANT_ID: 'asst-coach',
      VAPI_PHONE_NUMBER_ID: 'pn-coach',
      VAPI_WEBHOOK_SECRET: CALLS_WEBHOOK_SECRET,
    }
    await startTracing(testConfig(env).tracing, 'worker', { exporter })
    database = await createTestDatabase('postgres')
    redis = await createTestRedis()
    fake = await FakeVapi.start()
    await createWebhookCredential(fake, CALLS_WEBHOOK_SECRET)
    const vapi = { ...env, VAPI_API_KEY: fake.apiKey, VAPI_API_URL: fake.url }
    app = await buildTestApp({ database, redis: redis.redis, redisPrefix: redis.prefix, bullmqPrefix: prefix, env: vapi })
    await app.listen({ port, host: '127.0.0.1' })

    // The worker is started inside a span, as if a context had leaked into it: BullMQ's timers
    // (the stalled-jobs check, the next fetch) carry the context they were armed in.
    connection = new Redis(redis.url, { maxRetriesPerRequest: null })
    const jobs = createBullmqEnqueuer({ jobs: JOBS, connection, prefix })
    enqueuers.push(jobs)
    const services = createServices(testConfig(vapi), { db: database.db, redis: connection, redisPrefix: redis.prefix, clock: systemClock, log, jobs })
    await trace.getTracer('test').startActiveSpan('the worker starts', async (span) => {
      running = await startBullmqWorkers({ jobs: [placeCallJob], services, connection, prefix, log })
      span.end()
    })
    workerStart = exporter.getFinishedSpans().find((span) => span.name === 'the worker starts')!
  })

  afterAll(async () => {
    await running?.close()
    for (const enqueuer of enqueuers) await enqueuer.close()
    if (connection) {
      const queue = new Queue('calls', { connection, prefix })
      await queue.obliterate({ force: true })
      await queue.close()
      await connection.quit()
    }
    await app?.close()
    await fake?.close()
    await redis?.destroy()
    await database?.destroy()
    await stopTracing()
  })

  it('is a trace of its own, linked to the enqueue span of the request, holding the Vapi request', async () => {
    const signed = await signedInUser(app, { paid: 'basic' })
    await database.db.update(profiles).set({ onboardingCompleted: true }).where(eq(profiles.id, signed.user.id))
    fake.calls.setScenario(`+1${signed.user.phoneNumber}`, 'no-answer')

    const response = await app.inject({ method: 'POST', url: '/api/calls/test', headers: signed.headers })
    expect(response.statusCode).toBe(202)
    const { callId } = response.json() as { callId: string }
    const job = await vi.waitFor(
      () => {
        const found = exporter.getFinishedSpans().find((span) => span.name === 'process place-call' && String(span.attributes['messaging.message.id']).includes(callId))
        if (!found) throw new Error('the place-call job has not finished yet')
        return found
      },
      { timeout: 20_000, interval: 50 },
    )
    const spans = exporter.getFinishedSpans()

    const request = spans.find((span) => span.kind === SpanKind.SERVER && span.name === 'POST /api/calls/test')!
    const enqueue = spans.find((span) => span.kind === SpanKind.PRODUCER && span.name === 'send place-call' && traceOf(span) === traceOf(request))!
    expect(enqueue).toBeDefined()

    expect(job.kind).toBe(SpanKind.CONSUMER)
    expect(job.parentSpanContext).toBeUndefined()
    expect(traceOf(job)).not.toBe(traceOf(request))
    expect(traceOf(job)).not.toBe(traceOf(workerStart))
    expect(job.links.map((link) => link.context)).toEqual([expect.objectContaining({ traceId: traceOf(request), spanId: id(enqueue) })])
    expect(job.attributes).toMatchObject({ 'messaging.destination.name': 'calls', 'messaging.message.id': enqueue.attributes['messaging.message.id'], 'momentum.job.attempt': 1 })

    const dial = spans.find((span) => span.kind === SpanKind.CLIENT && span.attributes['url.full'] === `${fake.url}/call` && span.attributes['http.request.method'] === 'POST')!
    expect(dial).toBeDefined()
    expect(traceOf(dial)).toBe(traceOf(job))
    // Nothing else of the worker's joined the leaked context's trace.
    expect(spans.filter((span) => traceOf(span) === traceOf(workerStart)).map((span) => span.name)).toEqual(['the worker starts'])
  })
})
