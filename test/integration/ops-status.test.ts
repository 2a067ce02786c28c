/**
 * The operator's view as `npm run calls:status` prints it (the compiled script's source run as a
 * process, on a real PostgreSQL and Redis, no server), and the snapshot's figures behind it and
 * /ops: calls by status, the answer rate against a week ago, lateness, parked webhook messages,
 * stuck calls, refused texts; and a parked message put back.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { OpsSnapshotSchema } from '#common/ops'
import { coachingCalls, textMessages, vapiWebhookEvents } from '#server/db/schema'
import { operationsSnapshot } from '#server/services/ops'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { insertUser } from '../helpers/factories'
import { spawnEntry } from '../helpers/process'

const NOW = new Date('2026-11-25T15:30:00Z')
const at = (minutesAgo: number) => new Date(NOW.getTime() - minutesAgo * 60_000)
const WEEK_MIN = 7 * 24 * 60

describe('the operator’s snapshot and calls:status', () => {
  let database: TestDatabase
  let stuckId: string
  let parkedId: number

  beforeAll(async () => {
    database = await createTestDatabase()
    const user = await insertUser(database.db)
    const call = (values: Partial<typeof coachingCalls.$inferInsert>) => ({ userId: user.id, timeZone: 'UTC', ...values }) as typeof coachingCalls.$inferInsert
    await database.db.insert(coachingCalls).values([
      // Today: two answered, one not; one dialled 90 s late; a voice call in the app (not counted).
      call({ callDate: at(30), dialledAt: at(29.5), endedAt: at(25), completionStatus: 'completed', slot: 'daily', localDate: '2026-11-25' }),
      call({ callDate: at(40), dialledAt: at(38.5), endedAt: at(35), completionStatus: 'completed', slot: 'evening', localDate: '2026-11-25' }),
      call({ callDate: at(200), dialledAt: at(200), endedAt: at(199), completionStatus: 'no_answer', slot: 'daily', localDate: '2026-11-24', attempt: 1 }),
      call({ callDate: at(20), dialledAt: at(20), endedAt: at(10), completionStatus: 'completed', slot: 'web', kind: 'web' }),
      // A week ago, the same hours: one answered of four.
      call({ callDate: at(WEEK_MIN + 30), endedAt: at(WEEK_MIN + 25), completionStatus: 'completed', slot: 'daily', localDate: '2026-11-18' }),
      ...[1, 2, 3].map((n) =>
        call({ callDate: at(WEEK_MIN + 60 + n), endedAt: at(WEEK_MIN + 59 + n), completionStatus: 'voicemail', slot: 'evening', localDate: '2026-11-18', attempt: n - 1 }),
      ),
    ])
    // Still ringing 20 minutes past its 5-minute maximum: stuck.
    const [stuck] = await database.db
      .insert(coachingCalls)
      .values(call({ callDate: at(26), dialledAt: at(26), maxDurationSeconds: 300, completionStatus: 'ringing', slot: 'test' }))
      .returning({ id: coachingCalls.id })
    stuckId = stuck!.id
    const [parked] = await database.db
      .insert(vapiWebhookEvents)
      .values({ dedupeKey: 'ops-test-1', vapiCallId: 'vapi-ops-1', type: 'status-update', payload: {}, receivedAt: at(50), attempts: 10, lastError: 'boom', deadAt: at(45) })
      .returning({ id: vapiWebhookEvents.id })
    parkedId = parked!.id
    const text = (code: number, status: 'failed' | 'undelivered', key: string) => ({
      userId: user.id,
      kind: 'recap' as const,
      dedupeKey: key,
      content: 'x',
      status,
      errorCode: code,
      createdAt: at(100),
      updatedAt: at(100),
    })
    await database.db.insert(textMessages).values([text(30003, 'undelivered', 'ops-a'), text(30003, 'failed', 'ops-b'), text(21610, 'failed', 'ops-c')])
  })

  afterAll(async () => {
    await database?.destroy()
  })

  it('counts the calls, the answer rate against a week ago, lateness, and lists what needs an operator', async () => {
    const snapshot = await operationsSnapshot({
      db: database.db,
      now: NOW,
      lines: async () => ({ inUse: 3, limit: 10, waiting: 2, learnedLimit: null }),
      queues: async () => [{ queue: 'calls', waiting: 4, oldestWaitingSeconds: 12.34 }],
    })
    expect(snapshot.calls.lastHour).toEqual(expect.arrayContaining([{ status: 'completed', count: 2 }, { status: 'ringing', count: 1 }]))
    expect(snapshot.calls.lastHour).toHaveLength(2)
    expect(snapshot.calls.today).toEqual(expect.arrayContaining([{ status: 'completed', count: 2 }, { status: 'no_answer', count: 1 }, { status: 'ringing', count: 1 }]))
    expect(snapshot.calls.answerRate.today).toEqual({ rate: 2 / 3, reached: 2, notReached: 1 })
    expect(snapshot.calls.answerRate.lastWeek).toEqual({ rate: 1 / 4, reached: 1, notReached: 3 })
    // Dialled in the last hour: 30 s, 90 s and 0 s late (the voice call in the app is not).
    expect(snapshot.lateness).toMatchObject({ dialled: 3, p50Seconds: 30 })
    expect(snapshot.lateness.p99Seconds).toBeCloseTo(88.8, 1)
    expect(snapshot.lines).toEqual({ inUse: 3, limit: 10, waiting: 2 })
    expect(snapshot.queues).toEqual([{ queue: 'calls', waiting: 4, oldestWaitingSeconds: 12.3 }])
    expect(snapshot.webhooks.parkedCount).toBe(1)
    expect(snapshot.webhooks.parked[0]).toMatchObject({ id: parkedId, type: 'status-update', attempts: 10, lastError: 'boom' })
    expect(snapshot.stuckCalls).toEqual([{ id: stuckId, status: 'ringing', dialledAt: at(26).toISOString(), minutesPastEnd: 21 }])
    expect(snapshot.textsRefused).toEqual([
      { code: 30003, count: 2 },
      { code: 21610, count: 1 },
    ])
  })

  it('prints the same at a glance, from PostgreSQL and Redis with no server', async () => {
    const status = spawnEntry('scripts/calls-status.ts', { DATABASE_URL: database.url, REDIS_URL: inject('redisUrl') })
    const { code } = await status.exited
    const output = status.output()
    expect(code, output).toBe(0)
    expect(output).toMatch(/^Calls \(phone\)$/m)
    expect(output).toMatch(/Vapi lines\n {2}\d+ of 10 in use/)
    expect(output).toMatch(/^ {2}calls +\d+ waiting/m)
    expect(output).toContain(`Webhook messages parked: 1\n  #${parkedId} status-update`)
    expect(output).toContain('Stuck calls: ')

    const json = spawnEntry('scripts/calls-status.ts', { DATABASE_URL: database.url, REDIS_URL: inject('redisUrl') }, ['--json'])
    expect((await json.exited).code).toBe(0)
    const parsed = OpsSnapshotSchema.parse(JSON.parse(json.output()))
    expect(parsed.webhooks.parkedCount).toBe(1)

    const noRedis = spawnEntry('scripts/calls-status.ts', { DATABASE_URL: database.url })
    expect((await noRedis.exited).code).toBe(0)
    expect(noRedis.output()).toContain('without REDIS_URL the lines and queues live in the server process')
  })

  it('says what it needs without DATABASE_URL', async () => {
    const status = spawnEntry('scripts/calls-status.ts', {})
    expect((await status.exited).code).toBe(1)
    expect(status.output()).toContain('calls:status reads PostgreSQL: set DATABASE_URL')
  })

})
