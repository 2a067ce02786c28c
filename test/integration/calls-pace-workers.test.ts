/**
 * The pace of new phone calls across two BullMQ workers sharing one Redis (docs/decisions/069): the
 * calls due at one instant are taken by whichever worker, and still go out one a second, fleet-wide.
 * The app's clock runs 100 times faster than the wall's here, so a second of pace is 10 ms of test.
 */
import { randomBytes } from 'node:crypto'
import { Queue } from 'bullmq'
import { asc, eq, inArray } from 'drizzle-orm'
import { Redis } from 'ioredis'
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createServices } from '#server/container'
import { coachingCalls, profiles, type User } from '#server/db/schema'
import { createBullmqEnqueuer, startBullmqWorkers, type RunningWorkers } from '#server/jobs/bullmq'
import { placeCallJob } from '#server/jobs/calls'
import type { Clock } from '#server/lib/clock'
import { activateTestingPlan } from '#server/services/billing'
import { CALLS_JOBS, placeCallJobId } from '#server/services/calls'
import { FakeVapi } from '../fakes/vapi'
import { testConfig } from '../helpers/app'
import { CALLS_WEBHOOK_SECRET } from '../helpers/calls-harness'
import { freePort } from '../helpers/process'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { insertUser } from '../helpers/factories'
import { createTestRedis, type TestRedis } from '../helpers/redis'
import { createWebhookCredential } from '../helpers/vapi-credential'

const log = pino({ level: 'silent' })
const T0 = new Date('2026-06-15T14:00:00Z').getTime()
const SPEED = 100

describe('the pace across two BullMQ workers', () => {
  let database: TestDatabase
  let redis: TestRedis
  let fake: FakeVapi
  const connections: Redis[] = []
  const workers: RunningWorkers[] = []
  const prefix = `mc-test-bull-${randomBytes(4).toString('hex')}`
  const startedAt = performance.now()
  const clock: Clock = { now: () => new Date(T0 + (performance.now() - startedAt) * SPEED) }

  beforeAll(async () => {
    database = await createTestDatabase('postgres')
    redis = await createTestRedis()
    fake = await FakeVapi.start({ clock })
    await createWebhookCredential(fake, CALLS_WEBHOOK_SECRET)
    const config = testConfig({
      APP_URL: `http://127.0.0.1:${await freePort()}`,
      VAPI_API_KEY: fake.apiKey,
      VAPI_API_URL: fake.url,
      VAPI_ASSISTANT_ID: 'asst-coach',
      VAPI_PHONE_NUMBER_ID: 'pn-coach',
      VAPI_WEBHOOK_SECRET: CALLS_WEBHOOK_SECRET,
      VAPI_MAX_CONCURRENT_CALLS: '50',
    })
    for (let i = 0; i < 2; i++) {
      const connection = new Redis(redis.url, { maxRetriesPerRequest: null })
      connections.push(connection)
      const services = createServices(config, { db: database.db, redis: connection, redisPrefix: redis.prefix, clock, log })
      workers.push(await startBullmqWorkers({ jobs: [placeCallJob], services, connection, prefix, log }))
    }
  })

  afterAll(async () => {
    for (const worker of workers) await worker.close()
    const queue = connections[0] ? new Queue('calls', { connection: connections[0], prefix }) : undefined
    await queue?.obliterate({ force: true })
    await queue?.close()
    for (const connection of connections) await connection.quit()
    await fake?.close()
    await redis?.destroy()
    await database?.destroy()
  })

  it('places six calls due at the same instant one a second, whichever worker runs them', async () => {
    const people: User[] = []
    for (let i = 0; i < 6; i++) {
      const user = await insertUser(database.db, { phoneNumber: `20250${String(70000 + i)}` })
      await database.db.update(profiles).set({ onboardingCompleted: true, dailyCallTime: '10:00', timezone: 'America/New_York' }).where(eq(profiles.id, user.id))
      await activateTestingPlan(database.db, user.id, 'basic', clock.now())
      people.push(user)
    }
    const enqueuer = createBullmqEnqueuer({ jobs: [placeCallJob], connection: connections[0]!, prefix })
    const dueAt = clock.now()
    for (const user of people) {
      const call = { userId: user.id, slot: 'daily' as const, localDate: '2026-06-15', attempt: 0 }
      await enqueuer.enqueue(CALLS_JOBS.place.name, { ...call, dueAt: dueAt.toISOString() }, { jobId: placeCallJobId(call) })
    }
    await enqueuer.close()

    const rows = () =>
      database.db
        .select()
        .from(coachingCalls)
        .where(inArray(coachingCalls.userId, people.map((user) => user.id)))
        .orderBy(asc(coachingCalls.dialledAt))
    await vi.waitFor(async () => expect((await rows()).filter((row) => row.vapiCallId !== null)).toHaveLength(6), { timeout: 20_000, interval: 50 })
    const dialled = (await rows()).map((row) => row.dialledAt!.getTime())
    // One a second on the app's clock: never two within a second, however the workers shared them.
    for (let i = 1; i < dialled.length; i++) expect(dialled[i]! - dialled[i - 1]!).toBeGreaterThanOrEqual(1000)
    expect(fake.calls.list()).toHaveLength(6)
    expect(new Set(fake.calls.list().map((call) => call.customer?.number)).size).toBe(6)
  })
})
