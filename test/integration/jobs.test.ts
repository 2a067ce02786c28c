import { randomBytes } from 'node:crypto'
import { inArray } from 'drizzle-orm'
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createServices, type Services } from '#server/container'
import { sessions } from '#server/db/schema'
import { defineJob, JobStopping } from '#server/jobs/define'
import { JOBS } from '#server/jobs/index'
import { startInProcessRunner } from '#server/jobs/in-process'
import { buildTestApp, testConfig } from '../helpers/app'
import { fakeClock } from '../helpers/clock'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { insertUser } from '../helpers/factories'
import { manualTimers } from '../helpers/timers'

const log = pino({ level: 'silent' })
const at = (iso: string) => new Date(iso)

let database: TestDatabase

beforeAll(async () => {
  database = await createTestDatabase()
})

afterAll(async () => {
  await database?.destroy()
})

/** A user with one session past its end and one alive at `now`; returns both ids. */
async function sessionsAround(now: Date) {
  const user = await insertUser(database.db)
  const expired = `expired${randomBytes(6).toString('hex')}`
  const alive = `alive${randomBytes(6).toString('hex')}`
  await database.db.insert(sessions).values([
    { id: expired, userId: user.id, secretHash: new Uint8Array(32), lastVerifiedAt: now, expiresAt: new Date(now.getTime() - 60_000) },
    { id: alive, userId: user.id, secretHash: new Uint8Array(32), lastVerifiedAt: now, expiresAt: new Date(now.getTime() + 86_400_000) },
  ])
  return { expired, alive }
}

async function remaining(ids: string[]): Promise<string[]> {
  const rows = await database.db.select({ id: sessions.id }).from(sessions).where(inArray(sessions.id, ids))
  return rows.map((row) => row.id).sort()
}

function servicesOn(clock: ReturnType<typeof fakeClock>): Services {
  return createServices(testConfig(), { db: database.db, redis: undefined, clock, log })
}

/** A job that notes each run's word and when it ran. */
const wordJob = <N extends string>(name: N, clock: ReturnType<typeof fakeClock>, seen: string[]) =>
  defineJob({
    name,
    queue: 'test',
    trigger: 'enqueue',
    payload: z.object({ word: z.string() }),
    attempts: 1,
    backoffMs: 0,
    async handler(_services, payload) {
      seen.push(`${payload.word}@${clock.now().toISOString()}`)
    },
  })

describe('the in-process job runner (no REDIS_URL)', () => {
  it('runs the maintenance job from the registry at 03:17 UTC on the test clock, once, then arms the next day', async () => {
    const clock = fakeClock(at('2026-11-21T03:00:00Z'))
    const { timers, armed, advanceTo } = manualTimers(clock)
    const runner = startInProcessRunner({ jobs: JOBS, services: servicesOn(clock), log, timers })
    // (The registry's other schedules, e.g. the hourly trial reminders, are armed too.)
    expect(armed()).toContainEqual(at('2026-11-21T03:17:00Z'))
    const { expired, alive } = await sessionsAround(at('2026-11-21T03:10:00Z'))

    advanceTo(at('2026-11-21T03:16:59Z'))
    await runner.drain()
    expect(await remaining([expired, alive])).toEqual([alive, expired].sort())

    advanceTo(at('2026-11-21T03:17:00Z'))
    await runner.drain()
    expect(await remaining([expired, alive])).toEqual([alive])
    expect(armed()).toContainEqual(at('2026-11-22T03:17:00Z'))
    expect(armed()).not.toContainEqual(at('2026-11-21T03:17:00Z'))

    await runner.stop()
    expect(armed()).toEqual([])
  })

  it('is what the embedded server runs: buildApp without Redis schedules the registry', async () => {
    const clock = fakeClock(at('2026-11-21T02:00:00Z'))
    const { timers, armed, advanceTo } = manualTimers(clock)
    const app = await buildTestApp({ database, clock, timers })
    expect(armed()).toContainEqual(at('2026-11-21T03:17:00Z'))
    const { expired, alive } = await sessionsAround(at('2026-11-21T03:00:00Z'))
    advanceTo(at('2026-11-21T03:17:00Z'))
    await app.close() // stops the runner once its run in progress has finished
    expect(await remaining([expired, alive])).toEqual([alive])
  })

  it('retries a failing run with a doubling wait, on the test clock', async () => {
    const clock = fakeClock(at('2026-11-21T12:00:00Z'))
    const { timers, armed, advanceTo } = manualTimers(clock)
    const tries: Array<{ attempt: number; at: string; n: number }> = []
    const flaky = defineJob({
      name: 'flaky',
      queue: 'test',
      trigger: 'enqueue',
      payload: z.object({ n: z.number().int() }),
      attempts: 3,
      backoffMs: 1000,
      async handler(_services, payload, context) {
        tries.push({ attempt: context.attempt, at: clock.now().toISOString(), n: payload.n })
        if (context.attempt < 3) throw new Error('not yet')
      },
    })
    const runner = startInProcessRunner({ jobs: [flaky], services: servicesOn(clock), log, timers })
    await runner.enqueue('flaky', { n: 7 })
    advanceTo(clock.now())
    await runner.drain()
    expect(armed()).toEqual([at('2026-11-21T12:00:01Z')])
    advanceTo(at('2026-11-21T12:00:01Z'))
    await runner.drain()
    expect(armed()).toEqual([at('2026-11-21T12:00:03Z')])
    advanceTo(at('2026-11-21T12:00:10Z'))
    await runner.drain()
    expect(tries).toEqual([
      { attempt: 1, at: '2026-11-21T12:00:00.000Z', n: 7 },
      { attempt: 2, at: '2026-11-21T12:00:01.000Z', n: 7 },
      { attempt: 3, at: '2026-11-21T12:00:03.000Z', n: 7 },
    ])
    expect(armed()).toEqual([])
    await runner.stop()
  })

  it('a run that fails after retryWith is tried again with only what was left, not what it did', async () => {
    const clock = fakeClock(at('2026-11-21T12:00:00Z'))
    const { timers, advanceTo } = manualTimers(clock)
    const done: string[] = []
    const seen: string[][] = []
    const batch = defineJob({
      name: 'batch',
      queue: 'test',
      trigger: 'enqueue',
      payload: z.object({ ids: z.array(z.string()) }).strict(),
      attempts: 3,
      backoffMs: 1000,
      async handler(_services, payload, context) {
        seen.push(payload.ids)
        // 'b' fails on the first try; the others are done once.
        const left = payload.ids.filter((id) => {
          if (id === 'b' && context.attempt === 1) return true
          done.push(id)
          return false
        })
        if (left.length === 0) return
        await context.retryWith({ ids: left })
        throw new Error(`${left.length} left`)
      },
    })
    const runner = startInProcessRunner({ jobs: [batch], services: servicesOn(clock), log, timers })
    await runner.enqueue('batch', { ids: ['a', 'b', 'c'] })
    advanceTo(clock.now())
    await runner.drain()
    advanceTo(at('2026-11-21T12:00:01Z'))
    await runner.drain()
    expect(seen).toEqual([['a', 'b', 'c'], ['b']])
    expect(done).toEqual(['a', 'c', 'b'])
    await runner.stop()
  })

  it('refuses a retryWith payload its job does not accept', async () => {
    const clock = fakeClock(at('2026-11-21T12:00:00Z'))
    const { timers, advanceTo } = manualTimers(clock)
    const errors: string[] = []
    const strict = defineJob({
      name: 'strict',
      queue: 'test',
      trigger: 'enqueue',
      payload: z.object({ ids: z.array(z.string()) }).strict(),
      attempts: 1,
      backoffMs: 0,
      async handler(_services, _payload, context) {
        // Not what the schema accepts (as a handler's bug would pass it).
        await context.retryWith({ ids: [1] } as unknown as { ids: string[] }).catch((error: Error) => errors.push(error.message))
      },
    })
    const runner = startInProcessRunner({ jobs: [strict], services: servicesOn(clock), log, timers })
    await runner.enqueue('strict', { ids: [] })
    advanceTo(clock.now())
    await runner.drain()
    expect(errors).toEqual([expect.stringMatching(/invalid payload/)])
    await runner.stop()
  })

  it("runs at most the queue's concurrency at once, as a BullMQ worker does", async () => {
    const clock = fakeClock(at('2026-11-21T12:00:00Z'))
    const { timers, advanceTo } = manualTimers(clock)
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    const started: number[] = []
    const held = defineJob({
      name: 'held',
      queue: 'test',
      trigger: 'enqueue',
      concurrency: 2,
      payload: z.object({ n: z.number().int() }),
      attempts: 1,
      backoffMs: 1000,
      async handler(_services, payload) {
        started.push(payload.n)
        await gate
      },
    })
    const runner = startInProcessRunner({ jobs: [held], services: servicesOn(clock), log, timers })
    for (const n of [1, 2, 3]) await runner.enqueue('held', { n })
    advanceTo(clock.now())
    await new Promise((resolve) => setImmediate(resolve))
    expect(started).toEqual([1, 2])
    release()
    await runner.drain()
    expect(started).toEqual([1, 2, 3])
    await runner.stop()
  })

  it('parks a run until an instant on the test clock: drain does not wait for it, and stop wakes it with JobStopping', async () => {
    const clock = fakeClock(at('2026-11-21T12:00:00Z'))
    const { timers, advanceTo } = manualTimers(clock)
    const seen: string[] = []
    const parking = defineJob({
      name: 'parking',
      queue: 'test',
      trigger: 'enqueue',
      // A parked run keeps its place in the queue's concurrency, as on a BullMQ worker.
      concurrency: 2,
      payload: z.object({ until: z.iso.datetime() }),
      attempts: 1,
      backoffMs: 1000,
      async handler(_services, payload, { waitUntil }) {
        seen.push(`parked ${clock.now().toISOString()}`)
        try {
          await waitUntil(new Date(payload.until))
          seen.push(`woke ${clock.now().toISOString()}`)
        } catch (error) {
          seen.push(error instanceof JobStopping ? 'stopped' : 'failed')
          throw error
        }
      },
    })
    const runner = startInProcessRunner({ jobs: [parking], services: servicesOn(clock), log, timers })
    await runner.enqueue('parking', { until: '2026-11-21T12:00:45.000Z' })
    await runner.enqueue('parking', { until: '2026-11-21T12:05:00.000Z' })
    advanceTo(clock.now())
    await runner.drain() // returns while both are parked
    expect(seen).toEqual(['parked 2026-11-21T12:00:00.000Z', 'parked 2026-11-21T12:00:00.000Z'])

    advanceTo(at('2026-11-21T12:00:44.999Z'))
    await runner.drain()
    expect(seen).toHaveLength(2)
    advanceTo(at('2026-11-21T12:00:45Z'))
    await runner.drain()
    expect(seen).toEqual(['parked 2026-11-21T12:00:00.000Z', 'parked 2026-11-21T12:00:00.000Z', 'woke 2026-11-21T12:00:45.000Z'])

    await runner.stop()
    expect(seen.at(-1)).toBe('stopped')
  })

  it('checks the payload before queueing, delays a run, and adds nothing for a job id already waiting', async () => {
    const clock = fakeClock(at('2026-11-21T12:00:00Z'))
    const { timers, advanceTo } = manualTimers(clock)
    const seen: string[] = []
    const runner = startInProcessRunner({ jobs: [wordJob('echo', clock, seen)], services: servicesOn(clock), log, timers })
    // The types refuse both (see test/types/jobs.ts); the runner refuses them too, for an untyped caller.
    // @ts-expect-error a payload that does not fit the job's schema
    await expect(runner.enqueue('echo', { word: 3 })).rejects.toThrow(/job echo: invalid payload/)
    // @ts-expect-error a job the runner does not run
    await expect(runner.enqueue('nope', {})).rejects.toThrow(/no job named "nope"/)
    const first = await runner.enqueue('echo', { word: 'hello' }, { delayMs: 5_000, jobId: 'greeting' })
    const again = await runner.enqueue('echo', { word: 'hello' }, { delayMs: 5_000, jobId: 'greeting' })
    expect(again).toBe(first)
    advanceTo(at('2026-11-21T12:00:04Z'))
    await runner.drain()
    expect(seen).toEqual([])
    advanceTo(at('2026-11-21T12:00:05Z'))
    await runner.drain()
    expect(seen).toEqual(['hello@2026-11-21T12:00:05.000Z'])
    await runner.stop()
  })

  it('removes a waiting run by job and id (another job\'s id is left); the same id queued again runs', async () => {
    const clock = fakeClock(at('2026-11-21T12:00:00Z'))
    const { timers, advanceTo } = manualTimers(clock)
    const seen: string[] = []
    const runner = startInProcessRunner({ jobs: [wordJob('echo', clock, seen), wordJob('other', clock, seen)], services: servicesOn(clock), log, timers })
    await runner.enqueue('echo', { word: 'gone' }, { delayMs: 5_000, jobId: 'a' })
    await runner.enqueue('other', { word: 'kept' }, { delayMs: 5_000, jobId: 'b' })
    expect(await runner.remove('echo', ['a', 'b', 'unknown'])).toBe(1)
    await runner.enqueue('echo', { word: 'again' }, { delayMs: 10_000, jobId: 'a' })
    advanceTo(at('2026-11-21T12:00:10Z'))
    await runner.drain()
    expect(seen).toEqual(['kept@2026-11-21T12:00:05.000Z', 'again@2026-11-21T12:00:10.000Z'])
    await runner.stop()
  })

  it('a timer that fires before its instant waits again instead of running early', async () => {
    const clock = fakeClock(at('2026-11-21T03:00:00Z'))
    const early: Array<() => void> = []
    const runs: string[] = []
    const job = defineJob({
      name: 'tick',
      queue: 'test',
      schedule: { cron: '30 3 * * *', tz: 'UTC' },
      payload: z.object({}),
      attempts: 1,
      backoffMs: 0,
      async handler() {
        runs.push(clock.now().toISOString())
      },
    })
    const runner = startInProcessRunner({
      jobs: [job],
      services: servicesOn(clock),
      log,
      timers: { setTimeout: (callback) => early.push(callback), clearTimeout: () => {} },
    })
    early.shift()!() // fired at 03:00, half an hour early
    await runner.drain()
    expect(runs).toEqual([])
    expect(early).toHaveLength(1)
    clock.set(at('2026-11-21T03:30:00Z'))
    early.shift()!()
    await runner.drain()
    expect(runs).toEqual(['2026-11-21T03:30:00.000Z'])
    await runner.stop()
  })

})

describe('the registry', () => {
  it('names each job once, and every scheduled job accepts the empty payload its schedule sends', () => {
    const names = JOBS.map((job) => job.name)
    expect(new Set(names).size).toBe(names.length)
    for (const job of JOBS.filter((candidate) => candidate.schedule)) expect(job.payload.safeParse({}).success).toBe(true)
    expect(JOBS.find((job) => job.name === 'cleanup-expired')?.schedule).toEqual({ cron: '17 3 * * *', tz: 'UTC' })
  })

  it('refuses a badly named job or one without a try', () => {
    const base = { queue: 'test', trigger: 'enqueue' as const, payload: z.object({}), backoffMs: 0, handler: async () => {} }
    expect(() => defineJob({ ...base, name: 'Bad Name', attempts: 1 })).toThrow(/lower-case/)
    expect(() => defineJob({ ...base, name: 'ok', attempts: 0 })).toThrow(/attempts/)
  })
})
