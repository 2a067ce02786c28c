import { randomBytes } from 'node:crypto'
import { Queue } from 'bullmq'
import { Redis } from 'ioredis'
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createServices } from '#server/container'
import type { RunningWorkers } from '#server/jobs/bullmq'
import { JOBS } from '#server/jobs/index'
import { systemClock } from '#server/lib/clock'
import { startWorker } from '../../worker/worker'
import { testConfig } from '../helpers/app'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { createTestRedis, type TestRedis } from '../helpers/redis'

const log = pino({ level: 'silent' })

describe('a worker whose Redis restarted without its data', () => {
  let database: TestDatabase
  let redis: TestRedis
  let connection: Redis
  let running: RunningWorkers
  const prefix = `mc-test-bull-${randomBytes(4).toString('hex')}`

  beforeAll(async () => {
    database = await createTestDatabase('postgres')
    redis = await createTestRedis()
    connection = new Redis(redis.url, { maxRetriesPerRequest: null })
    const services = createServices(testConfig(), { db: database.db, redis: connection, clock: systemClock, log })
    running = await startWorker({ services, connection, log, prefix })
  })

  afterAll(async () => {
    await running?.close()
    for (const name of new Set(JOBS.map((job) => job.queue))) {
      const queue = new Queue(name, { connection, prefix })
      await queue.obliterate({ force: true })
      await queue.close()
    }
    await connection?.quit()
    await redis?.destroy()
    await database?.destroy()
  })

  it('registers the job schedulers again when it reconnects, so the calls-tick and the sweep keep running', async () => {
    const calls = new Queue('calls', { connection, prefix })
    try {
      const keys = async () => (await calls.getJobSchedulers()).map((scheduler) => scheduler.key).sort()
      expect(await keys()).toEqual(['calls-sweep', 'calls-tick'])
      // BullMQ reads the tick's six-field pattern as the in-process runner does: half a minute off the minute.
      expect(((await calls.getJobScheduler('calls-tick'))?.next ?? 0) % 60_000).toBe(30_000)

      // What a restart without persistence leaves: no schedulers (the other keys go too, but only
      // the schedulers have nothing else to bring them back), then a dropped connection.
      for (const key of await keys()) await calls.removeJobScheduler(key)
      expect(await keys()).toEqual([])
      const reconnected = new Promise<void>((resolve) => connection.once('ready', () => resolve()))
      connection.disconnect(true)
      await reconnected

      await vi.waitFor(async () => expect(await keys()).toEqual(['calls-sweep', 'calls-tick']), { timeout: 10_000, interval: 50 })
    } finally {
      await calls.close()
    }
  })
})
