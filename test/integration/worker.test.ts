import { randomBytes } from 'node:crypto'
import { Queue, QueueEvents } from 'bullmq'
import { eq } from 'drizzle-orm'
import { Redis } from 'ioredis'
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createServices } from '#server/container'
import { sessions } from '#server/db/schema'
import { createBullmqEnqueuer, startBullmqWorkers, type RunningWorkers } from '#server/jobs/bullmq'
import { defineJob } from '#server/jobs/define'
import { JOBS } from '#server/jobs/index'
import { systemClock } from '#server/lib/clock'
import { startWorker } from '../../worker/worker'
import { testConfig } from '../helpers/app'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { insertUser } from '../helpers/factories'
import { spawnEntry } from '../helpers/process'
import { createTestRedis, type TestRedis } from '../helpers/redis'

const log = pino({ level: 'silent' })

describe('the BullMQ worker (REDIS_URL)', () => {
  let database: TestDatabase
  let redis: TestRedis
  let connection: Redis
  let running: RunningWorkers
  const prefix = `mc-test-bull-${randomBytes(4).toString('hex')}`
  const queues = () => [...new Set(JOBS.map((job) => job.queue)), 'test'].map((name) => new Queue(name, { connection, prefix }))

  beforeAll(async () => {
    database = await createTestDatabase('postgres')
    redis = await createTestRedis()
    connection = new Redis(redis.url, { maxRetriesPerRequest: null })
    // A scheduler an earlier version registered, which the registry no longer has.
    const maintenance = new Queue('maintenance', { connection, prefix })
    await maintenance.upsertJobScheduler('cleanup-expired-daily', { pattern: '17 3 * * *', tz: 'UTC' }, { name: 'cleanup-expired' })
    await maintenance.close()
    const services = createServices(testConfig(), { db: database.db, redis: connection, clock: systemClock, log })
    running = await startWorker({ services, connection, log, prefix })
  })

  afterAll(async () => {
    await running?.close()
    for (const queue of connection ? queues() : []) {
      await queue.obliterate({ force: true })
      await queue.close()
    }
    await connection?.quit()
    await redis?.destroy()
    await database?.destroy()
  })

  it("makes each queue's job schedulers the registry's scheduled jobs", async () => {
    const queue = new Queue('maintenance', { connection, prefix })
    const schedulers = await queue.getJobSchedulers()
    await queue.close()
    expect(schedulers.map((scheduler) => ({ key: scheduler.key, pattern: scheduler.pattern, tz: scheduler.tz }))).toEqual([
      { key: 'cleanup-expired', pattern: '17 3 * * *', tz: 'UTC' },
    ])
  })

  it('runs the maintenance job of the registry against the database', async () => {
    const user = await insertUser(database.db)
    await database.db.insert(sessions).values({
      id: `expired-${user.id}`,
      userId: user.id,
      secretHash: new Uint8Array(32),
      expiresAt: new Date(Date.now() - 1000),
    })
    const enqueuer = createBullmqEnqueuer({ jobs: JOBS, connection, prefix })
    const events = new QueueEvents('maintenance', { connection: connection.duplicate(), prefix })
    await events.waitUntilReady()
    const queue = new Queue('maintenance', { connection, prefix })
    const id = await enqueuer.enqueue('cleanup-expired', {})
    const result = (await (await queue.getJob(id))!.waitUntilFinished(events, 15_000)) as { sessions: number }
    await Promise.all([events.close(), queue.close(), enqueuer.close()])
    expect(result.sessions).toBeGreaterThanOrEqual(1)
    expect(await database.db.select().from(sessions).where(eq(sessions.userId, user.id))).toEqual([])
  })

  it('retries a failing job and never runs one whose payload does not match its schema', async () => {
    const tries: number[] = []
    const flaky = defineJob({
      name: 'flaky',
      queue: 'test',
      trigger: 'enqueue',
      payload: z.object({ n: z.number() }),
      attempts: 2,
      backoffMs: 1,
      async handler(_services, payload, context) {
        tries.push(context.attempt)
        if (context.attempt < 2) throw new Error('not yet')
        return payload.n * 2
      },
    })
    const services = createServices(testConfig(), { db: database.db, redis: connection, clock: systemClock, log })
    const workers = await startBullmqWorkers({ jobs: [flaky], services, connection, prefix, log })
    const events = new QueueEvents('test', { connection: connection.duplicate(), prefix })
    await events.waitUntilReady()
    const queue = new Queue('test', { connection, prefix })
    try {
      const enqueuer = createBullmqEnqueuer({ jobs: [flaky], connection, prefix })
      // @ts-expect-error a payload that does not fit the schema (refused at run time too, for an untyped caller)
      await expect(enqueuer.enqueue('flaky', { n: 'x' })).rejects.toThrow()
      const ok = await queue.getJob(await enqueuer.enqueue('flaky', { n: 21 }))
      expect(await ok!.waitUntilFinished(events, 15_000)).toBe(42)
      expect(tries).toEqual([1, 2])
      await enqueuer.close()

      // Something else put a bad payload on the queue: it fails at once, without a retry.
      const bad = await queue.add('flaky', { n: 'x' }, { attempts: 3 })
      await expect(bad.waitUntilFinished(events, 15_000)).rejects.toThrow(/invalid payload/)
      expect((await queue.getJob(bad.id!))!.attemptsMade).toBe(1)
      expect(tries).toEqual([1, 2])
    } finally {
      await Promise.all([events.close(), queue.close()])
      await workers.close()
    }
  })

  it('tries a run that failed after retryWith again with only what was left (BullMQ keeps it with the job)', async () => {
    const seen: string[][] = []
    const batch = defineJob({
      name: 'batch',
      queue: 'test',
      trigger: 'enqueue',
      payload: z.object({ ids: z.array(z.string()) }).strict(),
      attempts: 3,
      backoffMs: 1,
      async handler(_services, payload, context) {
        seen.push(payload.ids)
        const left = context.attempt === 1 ? payload.ids.filter((id) => id === 'b') : []
        if (left.length === 0) return payload.ids.length
        await context.retryWith({ ids: left })
        throw new Error(`${left.length} left`)
      },
    })
    const services = createServices(testConfig(), { db: database.db, redis: connection, clock: systemClock, log })
    const workers = await startBullmqWorkers({ jobs: [batch], services, connection, prefix, log })
    const events = new QueueEvents('test', { connection: connection.duplicate(), prefix })
    await events.waitUntilReady()
    const queue = new Queue('test', { connection, prefix })
    const enqueuer = createBullmqEnqueuer({ jobs: [batch], connection, prefix })
    try {
      const run = await queue.getJob(await enqueuer.enqueue('batch', { ids: ['a', 'b', 'c'] }))
      expect(await run!.waitUntilFinished(events, 15_000)).toBe(1)
      expect(seen).toEqual([['a', 'b', 'c'], ['b']])
    } finally {
      await Promise.all([events.close(), queue.close(), enqueuer.close()])
      await workers.close()
    }
  })

  it('runs as `npm run worker`: logs ready, and exits 0 on SIGTERM', async () => {
    const worker = spawnEntry('worker/index.ts', { DATABASE_URL: database.url, REDIS_URL: redis.url })
    await worker.waitFor(/worker ready/)
    worker.child.kill('SIGTERM')
    const { code } = await worker.exited
    expect(code).toBe(0)
  })

  it('refuses to start without REDIS_URL, naming it', async () => {
    const worker = spawnEntry('worker/index.ts', { DATABASE_URL: database.url })
    const { code } = await worker.exited
    expect(code).toBe(1)
    expect(worker.output().trim()).toMatch(/^Invalid configuration: REDIS_URL/)
  })
})
