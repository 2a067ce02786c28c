import { randomBytes } from 'node:crypto'
import { Queue, QueueEvents } from 'bullmq'
import { eq } from 'drizzle-orm'
import { Redis } from 'ioredis'
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sessions } from '#server/db/schema/index'
import { CLEANUP_JOB, CLEANUP_SCHEDULER_ID, MAINTENANCE_QUEUE } from '#server/jobs/maintenance'
import { startWorker, type RunningWorker } from '../../worker/worker'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { insertUser } from '../helpers/factories'
import { spawnEntry } from '../helpers/process'
import { createTestRedis, type TestRedis } from '../helpers/redis'

describe('worker', () => {
  let database: TestDatabase
  let redis: TestRedis
  let connection: Redis
  let running: RunningWorker
  const prefix = `mc-test-bull-${randomBytes(4).toString('hex')}`

  beforeAll(async () => {
    database = await createTestDatabase('postgres')
    redis = await createTestRedis()
    connection = new Redis(redis.url, { maxRetriesPerRequest: null })
    running = await startWorker({ db: database.db, connection, log: pino({ level: 'silent' }), prefix })
  })

  afterAll(async () => {
    await running?.close()
    const queue = new Queue(MAINTENANCE_QUEUE, { connection, prefix })
    await queue.obliterate({ force: true })
    await queue.close()
    await connection?.quit()
    await redis?.destroy()
    await database?.destroy()
  })

  it('registers the daily cleanup as a job scheduler', async () => {
    const queue = new Queue(MAINTENANCE_QUEUE, { connection, prefix })
    const scheduler = await queue.getJobScheduler(CLEANUP_SCHEDULER_ID)
    await queue.close()
    expect(scheduler?.pattern).toBe('17 3 * * *')
  })

  it('processes a cleanup job against the database', async () => {
    const user = await insertUser(database.db)
    await database.db.insert(sessions).values({
      id: `expired-${user.id}`,
      userId: user.id,
      secretHash: new Uint8Array(32),
      expiresAt: new Date(Date.now() - 1000),
    })
    const queue = new Queue(MAINTENANCE_QUEUE, { connection, prefix })
    const events = new QueueEvents(MAINTENANCE_QUEUE, { connection: connection.duplicate(), prefix })
    await events.waitUntilReady()
    const job = await queue.add(CLEANUP_JOB, {})
    const result = (await job.waitUntilFinished(events, 15_000)) as { sessions: number }
    await events.close()
    await queue.close()
    expect(result.sessions).toBeGreaterThanOrEqual(1)
    expect(await database.db.select().from(sessions).where(eq(sessions.userId, user.id))).toEqual([])
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
