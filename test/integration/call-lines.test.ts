/**
 * Vapi's lines and the pace of new calls, as every server and worker shares them: the Redis
 * semaphore (two connections stand for two processes) and the in-memory one of the embedded mode,
 * held to the same rules on a test clock.
 */
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { callerNumberOf, LEARNED_LIMIT_TTL_MS, memoryCallLines, placeScore, redisCallLines, type CallLines, type LineSettings } from '#server/services/calls'
import { redisClusterBus } from '#server/services/cluster-bus'
import { fakeClock } from '../helpers/clock'
import { createTestRedis, type TestRedis } from '../helpers/redis'

let testRedis: TestRedis
let second: Redis
let run = 0

beforeAll(async () => {
  testRedis = await createTestRedis()
  second = new Redis(testRedis.url, { maxRetriesPerRequest: 1 })
})

afterAll(async () => {
  await second?.quit()
  await testRedis?.destroy()
})

const SETTINGS: LineSettings = { maxConcurrentCalls: 5, reservedForApp: 2, dialsPerSecond: 1000, dialsPerSecondPerNumber: 1000 }
const DUE = new Date('2026-06-15T14:00:00Z')
const place = (dueAt = DUE, retry = false, goalSession = false) => ({ retry, dueAt, goalSession })
const phone = (holder: string, dueAt = DUE, options: { retry?: boolean; goalSession?: boolean; numberId?: string } = {}) => ({
  holder,
  place: place(dueAt, options.retry ?? false, options.goalSession ?? false),
  numberId: options.numberId ?? null,
  leaseMs: 15 * 60_000,
})

/** Asks for a phone line, then lets a little time pass (the pace allows the next dial 1 ms on at 1,000 a second). */
async function ask(lines: CallLines, clock: ReturnType<typeof fakeClock>, request: ReturnType<typeof phone>) {
  const answer = await lines.takePhone(request)
  clock.advance(10)
  return answer
}

type Backend = { name: string; make(settings: LineSettings, clock: ReturnType<typeof fakeClock>): [CallLines, CallLines] }

const backends: Backend[] = [
  {
    name: 'in Redis, two processes',
    make(settings, clock) {
      const prefix = `${testRedis.prefix}lines${run++}:`
      return [redisCallLines(testRedis.redis, prefix, settings, clock), redisCallLines(second, prefix, settings, clock)]
    },
  },
  {
    name: 'in memory (embedded)',
    make(settings, clock) {
      const lines = memoryCallLines(settings, clock)
      return [lines, lines]
    },
  },
]

describe.each(backends)('call lines $name', (backend) => {
  it('gives phone calls the lines less the app’s reserve; the app takes the reserve; nothing past the limit', async () => {
    const clock = fakeClock(DUE)
    const [a, b] = backend.make(SETTINGS, clock)
    const answers = []
    for (let i = 0; i < 4; i++) answers.push(await ask(i % 2 ? b : a, clock, phone(`call-${i}`)))
    expect(answers.map((answer) => answer.granted)).toEqual([true, true, true, false])
    expect(answers[3]).toMatchObject({ granted: false, cause: 'lines_busy', position: 0 })
    // The two reserved lines are the app's, then nothing is free for anyone.
    expect(await b.takeApp('web-1', 60_000)).toBe(true)
    expect(await a.takeApp('web-2', 60_000)).toBe(true)
    expect(await a.takeApp('web-3', 60_000)).toBe(false)
    expect(await b.state()).toMatchObject({ inUse: 5, limit: 5, waiting: 1 })
    // A call that ends gives its line back: the waiting call gets it; a second ask holds it still.
    await a.release('call-0')
    expect(await ask(b, clock, phone('call-3'))).toEqual({ granted: true })
    expect(await ask(b, clock, phone('call-3'))).toEqual({ granted: true })
    expect(await a.state()).toMatchObject({ inUse: 5, waiting: 0 })
  })

  it('grants in the queue’s order, whichever process asks first: first attempts before retries, then the due minute, a goal session before a check-in', async () => {
    const clock = fakeClock(DUE)
    const [a, b] = backend.make({ ...SETTINGS, maxConcurrentCalls: 3 }, clock)
    expect(await ask(a, clock, phone('busy'))).toEqual({ granted: true })
    const minute = (m: number) => new Date(DUE.getTime() + m * 60_000)
    // Waiting, asked from both processes in a shuffled order.
    const waiters = [
      { holder: 'retry-0800', request: phone('retry-0800', minute(-120), { retry: true }) },
      { holder: 'check-in-1401', request: phone('check-in-1401', minute(1)) },
      { holder: 'goal-1401', request: phone('goal-1401', new Date(minute(1).getTime() + 30_000), { goalSession: true }) },
      { holder: 'check-in-1400', request: phone('check-in-1400', minute(0)) },
    ]
    for (const [i, waiter] of waiters.entries()) expect((await ask(i % 2 ? a : b, clock, waiter.request)).granted).toBe(false)
    const order: string[] = []
    for (let round = 0; round < waiters.length; round++) {
      await a.release(order.at(-1) ?? 'busy')
      // Everyone asks again; only the head is granted.
      for (const [i, waiter] of waiters.entries()) {
        if (order.includes(waiter.holder)) continue
        if ((await ask(i % 2 ? b : a, clock, waiter.request)).granted) order.push(waiter.holder)
      }
    }
    expect(order).toEqual(['check-in-1400', 'goal-1401', 'check-in-1401', 'retry-0800'])
    expect(placeScore(place(minute(1), false, true))).toBeLessThan(placeScore(place(minute(1), false, false)))
  })

  it('keeps the pace fleet-wide: never more dials in a second than VAPI_DIALS_PER_SECOND, however many processes ask', async () => {
    const clock = fakeClock(DUE)
    const [a, b] = backend.make({ maxConcurrentCalls: 100, reservedForApp: 0, dialsPerSecond: 2, dialsPerSecondPerNumber: 1000 }, clock)
    const granted: number[] = []
    const waiting = new Set(Array.from({ length: 12 }, (_, i) => `call-${i}`))
    for (let step = 0; step < 100 && waiting.size > 0; step++) {
      for (const [i, holder] of [...waiting].entries()) {
        const answer = await (i % 2 ? b : a).takePhone(phone(holder))
        if (answer.granted) {
          granted.push(clock.now().getTime() - DUE.getTime())
          waiting.delete(holder)
        } else expect(answer.cause).toBe('pace')
      }
      clock.advance(100)
    }
    expect(granted).toHaveLength(12)
    // A second's dials go at once, to the head of the queue, then the next second's.
    expect(granted.slice(0, 4)).toEqual([0, 0, 1000, 1000])
    // In any window of one second, at most 2 (a second's burst, then one every half second).
    for (const start of granted) expect(granted.filter((t) => t >= start && t < start + 1000).length).toBeLessThanOrEqual(2)
    // And not slower than the pace allows (the test clock steps 100 ms).
    expect(granted.at(-1)).toBeLessThanOrEqual(6_000)
  })

  it('keeps each caller number’s own pace', async () => {
    const clock = fakeClock(DUE)
    const [a, b] = backend.make({ maxConcurrentCalls: 100, reservedForApp: 0, dialsPerSecond: 100, dialsPerSecondPerNumber: 1 }, clock)
    expect(await ask(a, clock, phone('n1-a', DUE, { numberId: 'pn-1' }))).toEqual({ granted: true })
    expect(await ask(b, clock, phone('n2-a', DUE, { numberId: 'pn-2' }))).toEqual({ granted: true })
    expect(await ask(b, clock, phone('n1-b', DUE, { numberId: 'pn-1' }))).toMatchObject({ granted: false, cause: 'pace' })
    clock.advance(1000)
    expect(await ask(a, clock, phone('n1-b', DUE, { numberId: 'pn-1' }))).toEqual({ granted: true })
  })

  it('believes the limit Vapi told over the setting, for a while', async () => {
    const clock = fakeClock(DUE)
    const [a, b] = backend.make({ ...SETTINGS, maxConcurrentCalls: 10 }, clock)
    await a.learnLimit(4)
    expect(await b.state()).toMatchObject({ limit: 4, learnedLimit: 4 })
    // 4 lines, 2 of them the app's: two phone calls.
    expect((await ask(b, clock, phone('one'))).granted).toBe(true)
    expect((await ask(a, clock, phone('two'))).granted).toBe(true)
    expect((await ask(b, clock, phone('three'))).granted).toBe(false)
    clock.advance(LEARNED_LIMIT_TTL_MS + 1)
    expect(await a.state()).toMatchObject({ limit: 10, learnedLimit: null })
  })

  it('wakes this process’s waiters when a line is given back, not when nothing was held', async () => {
    const clock = fakeClock(DUE)
    const [a] = backend.make(SETTINGS, clock)
    expect((await ask(a, clock, phone('held'))).granted).toBe(true)
    let woken = 0
    const counted = () => a.freed().then(() => (woken += 1))
    const first = counted()
    await a.release('never-held')
    await Promise.resolve()
    expect(woken).toBe(0)
    await a.release('held')
    await first
    expect(woken).toBe(1)
  })

  it('grants no line to anyone for a while after Vapi said it had none (phone calls and the app alike)', async () => {
    const clock = fakeClock(DUE)
    const [a, b] = backend.make(SETTINGS, clock)
    await a.backOff(5_000)
    expect(await ask(b, clock, phone('call'))).toMatchObject({ granted: false, cause: 'lines_busy', retryInMs: 5_000 })
    expect(await b.takeApp('web', 60_000)).toBe(false)
    // A shorter back-off does not cut a longer one short.
    await b.backOff(1_000)
    clock.advance(4_990)
    expect(await ask(a, clock, phone('call'))).toEqual({ granted: true })
  })

  it('frees a line whose lease lapsed', async () => {
    const clock = fakeClock(DUE)
    const [a, b] = backend.make({ ...SETTINGS, maxConcurrentCalls: 3 }, clock)
    expect((await ask(a, clock, { ...phone('held'), leaseMs: 60_000 })).granted).toBe(true)
    expect(await ask(b, clock, phone('later'))).toMatchObject({ granted: false, position: 0 })
    clock.advance(60_000)
    expect(await ask(b, clock, phone('later'))).toEqual({ granted: true })
    expect(await a.state()).toMatchObject({ inUse: 1, waiting: 0 })
  })
})

describe('call lines in Redis', () => {
  it('wake the waiters of another process when a line is given back (the cluster bus)', async () => {
    const clock = fakeClock(DUE)
    const prefix = `${testRedis.prefix}lines${run++}:`
    const busOf = (connection: Redis) => redisClusterBus(connection, { prefix: `${testRedis.prefix}bus${run}:`, now: () => clock.now().getTime(), onError: () => {} })
    const [busA, busB] = [busOf(testRedis.redis), busOf(second)]
    try {
      const a = redisCallLines(testRedis.redis, prefix, SETTINGS, clock, busA)
      const b = redisCallLines(second, prefix, SETTINGS, clock, busB)
      expect((await ask(a, clock, phone('held'))).granted).toBe(true)
      const woken = b.freed()
      // B listens from its first wait; its SUBSCRIBE is answered before A gives the line back.
      await busB.onLinesFreed(() => {}).ready
      await a.release('held')
      await woken
    } finally {
      await busA.close()
      await busB.close()
    }
  })

  it('forget a waiter whose process stopped asking (it died): the ones behind it are not held up', async () => {
    const clock = fakeClock(DUE)
    const [a, b] = backends[0]!.make({ ...SETTINGS, maxConcurrentCalls: 3 }, clock)
    expect((await ask(a, clock, { ...phone('held'), leaseMs: 60_000 })).granted).toBe(true)
    expect((await ask(b, clock, phone('gone', new Date(DUE.getTime() - 60_000)))).granted).toBe(false)
    expect(await ask(a, clock, phone('later'))).toMatchObject({ granted: false, position: 1 })
    clock.advance(60_000)
    expect(await ask(a, clock, phone('later'))).toEqual({ granted: true })
    expect(await b.state()).toMatchObject({ inUse: 1, waiting: 0 })
  })
})

describe('caller numbers', () => {
  it('always give a person the same number, and spread people over the numbers', () => {
    const numbers = ['pn-a', 'pn-b', 'pn-c']
    const ids = Array.from({ length: 300 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`)
    const chosen = ids.map((id) => callerNumberOf(id, numbers))
    expect(ids.map((id) => callerNumberOf(id, numbers))).toEqual(chosen)
    for (const number of numbers) expect(chosen.filter((n) => n === number).length).toBeGreaterThan(60)
    expect(callerNumberOf(ids[0]!, [])).toBeNull()
    expect(callerNumberOf(ids[0]!, ['pn-only'])).toBe('pn-only')
  })
})
