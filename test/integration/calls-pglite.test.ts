/**
 * The calls loop on the embedded PGlite (one connection): applying a webhook in its transaction
 * must read everything through that transaction, or it waits for a connection that never comes.
 */
import { asc, eq } from 'drizzle-orm'
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createServices } from '#server/container'
import { coachingCallEvents, coachingCalls, profiles } from '#server/db/schema'
import { activateTestingPlan } from '#server/services/billing'
import { testConfig } from '../helpers/app'
import { fakeClock } from '../helpers/clock'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { insertUser } from '../helpers/factories'

const SECRET = 'whsec-test-vapi-pglite-0123456789abcdef'

describe('the calls loop on PGlite', () => {
  let database: TestDatabase

  beforeAll(async () => {
    database = await createTestDatabase('pglite')
  })

  afterAll(async () => {
    await database?.destroy()
  })

  it('schedules the retry of an unanswered call from its webhook (the retry’s eligibility read inside the transaction)', async () => {
    // Monday 15 June 2026, 10:00:40 AM in New York: the 10:00 call rang out.
    const clock = fakeClock(new Date('2026-06-15T14:00:40Z'))
    const enqueued: Array<{ name: string; payload: unknown }> = []
    const services = createServices(
      testConfig({ VAPI_API_KEY: 'key', VAPI_API_URL: 'http://127.0.0.1:9', VAPI_ASSISTANT_ID: 'asst', VAPI_PHONE_NUMBER_ID: 'pn', VAPI_WEBHOOK_SECRET: SECRET }),
      {
        db: database.db,
        redis: undefined,
        clock,
        log: pino({ level: 'silent' }),
        jobs: {
          enqueue: async (name, payload) => {
            enqueued.push({ name, payload })
            return String(enqueued.length)
          },
        },
      },
    )
    const user = await insertUser(database.db, { phoneNumber: '2025001111' })
    await database.db.update(profiles).set({ onboardingCompleted: true, dailyCallTime: '10:00', timezone: 'America/New_York' }).where(eq(profiles.id, user.id))
    await activateTestingPlan(database.db, user.id, 'basic', clock.now())
    const [call] = await database.db
      .insert(coachingCalls)
      .values({
        userId: user.id,
        slot: 'daily',
        localDate: '2026-06-15',
        attempt: 0,
        callDate: new Date('2026-06-15T14:00:00Z'),
        timeZone: 'America/New_York',
        completionStatus: 'ringing',
        vapiCallId: 'vapi-call-1',
        dialledAt: new Date('2026-06-15T14:00:00Z'),
      })
      .returning()

    const message = {
      message: {
        type: 'status-update',
        status: 'ended',
        endedReason: 'customer-did-not-answer',
        timestamp: clock.now().getTime(),
        call: { id: 'vapi-call-1', assistantOverrides: { metadata: { callId: call!.id } } },
      },
    }
    await services.calls.receiveWebhook(Buffer.from(JSON.stringify(message)), { 'x-vapi-secret': SECRET })
    const stored = enqueued.find((job) => job.name === 'vapi-event')!.payload as { id: number }
    expect(await services.calls.processEvent(stored.id)).toBe('applied')

    const [after] = await database.db.select().from(coachingCalls).where(eq(coachingCalls.id, call!.id))
    expect(after!.completionStatus).toBe('no_answer')
    expect(after!.retryAt).toEqual(new Date('2026-06-15T14:10:40Z'))
    const timeline = await database.db.select().from(coachingCallEvents).where(eq(coachingCallEvents.callId, call!.id)).orderBy(asc(coachingCallEvents.id))
    expect(timeline.map((event) => event.type)).toEqual(['ended', 'retry_scheduled'])
    expect(enqueued.find((job) => job.name === 'place-call')?.payload).toMatchObject({ userId: user.id, slot: 'daily', localDate: '2026-06-15', attempt: 1 })
  })
})
