/**
 * The schedule page's calls switch turned off is a revocation of consent to calls, like a STOP
 * text: against real PostgreSQL, the Vapi fake placing the calls, on a test clock. What was on its
 * way stops: a claim waiting for its instant is never dialled, a call ringing at Vapi is deleted
 * there, a retry is dropped.
 */
import { and, asc, eq } from 'drizzle-orm'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { UpdateCallSchedule } from '#common/calls'
import { createSession } from '#server/auth/session'
import { coachingCallEvents, coachingCalls, consentEvents } from '#server/db/schema'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { freePort, startTextsHarness, type Harness } from '../helpers/texts-harness'

const at = (iso: string) => new Date(iso)

let database: TestDatabase
let port: number
let h: Harness

beforeAll(async () => {
  database = await createTestDatabase()
  port = await freePort()
})

afterAll(async () => {
  await database?.destroy()
})

beforeEach(async () => {
  // Monday 15 June 2026, 13:50 UTC = 9:50 AM in New York (EDT).
  h = await startTextsHarness(database, { start: at('2026-06-15T13:50:00Z'), port })
})

afterEach(async () => {
  await h.close()
})

const callsOf = (userId: string) => database.db.select().from(coachingCalls).where(eq(coachingCalls.userId, userId)).orderBy(asc(coachingCalls.callDate), asc(coachingCalls.attempt))
const dialsTo = (number: string) => h.vapi.calls.list().filter((call) => call.customer?.number === number)

/** The person turns calls off (or on again) on the schedule page (the rest of the schedule as it was). */
async function switchCallsOff(userId: string, callsEnabled = false): Promise<void> {
  const { token } = await createSession(h.app.db, h.clock, userId)
  const schedule: UpdateCallSchedule = { dailyCallTime: '10:00', timeZone: 'America/New_York', eveningCallTime: null, pausedUntil: null, callsEnabled }
  const response = await h.app.inject({
    method: 'PUT',
    url: '/api/calls/schedule',
    headers: { cookie: `session=${token}`, origin: h.app.config.appUrl },
    payload: schedule,
  })
  expect(response.statusCode, response.body).toBe(200)
  expect(response.json()).toMatchObject({ callsEnabled })
}

describe('calls switched off in the app', () => {
  it('a call claimed and waiting for its instant is skipped, and nobody is dialled that day or the next', async () => {
    const { user, phone } = await h.person({ time: '10:00' })
    await h.advanceTo(at('2026-06-15T13:59:20Z'))
    expect((await callsOf(user.id)).map((call) => call.completionStatus)).toEqual(['dialling'])
    await switchCallsOff(user.id)
    // Stopped by the switch itself, in its transaction, before the instant comes.
    expect(await callsOf(user.id)).toMatchObject([{ completionStatus: 'skipped', skipReason: 'consent', vapiCallId: null }])
    const [skipped] = await database.db.select().from(coachingCallEvents).where(and(eq(coachingCallEvents.userId, user.id), eq(coachingCallEvents.type, 'skipped')))
    expect(skipped!.at).toEqual(at('2026-06-15T13:59:20Z'))
    await h.advanceTo(at('2026-06-15T14:30:00Z'))
    expect(dialsTo(phone)).toHaveLength(0)
    await h.jumpTo(at('2026-06-16T13:50:00Z'))
    await h.advanceTo(at('2026-06-16T14:30:00Z'))
    expect(dialsTo(phone)).toHaveLength(0)
    const [revoked] = await database.db.select().from(consentEvents).where(and(eq(consentEvents.userId, user.id), eq(consentEvents.channel, 'calls'), eq(consentEvents.action, 'revoked')))
    expect(revoked).toMatchObject({ source: 'settings', text: 'Daily coaching calls: Off' })
  })

  it('a call ringing at Vapi is deleted there; a scheduled retry is dropped', async () => {
    const ringing = await h.person({ time: '10:00', scenario: 'no-answer' })
    h.vapi.calls.pacing = 'manual'
    await h.advanceTo(at('2026-06-15T14:00:02Z'))
    const [dial] = dialsTo(ringing.phone)
    await h.vapi.calls.advance()
    await h.vapi.calls.advance()
    await h.settle()
    expect(dial?.status).toBe('ringing')
    await switchCallsOff(ringing.user.id)
    await h.advanceTo(at('2026-06-15T14:01:00Z'))
    expect(h.vapi.calls.isDeleted(dial!.id)).toBe(true)
    const [call] = await callsOf(ringing.user.id)
    expect(call!.completionStatus).toBe('cancelled')
    const events = await database.db.select().from(coachingCallEvents).where(and(eq(coachingCallEvents.callId, call!.id), eq(coachingCallEvents.type, 'cancelled')))
    expect(events[0]!.detail).toMatchObject({ reason: 'consent' })

    h.vapi.calls.pacing = 'auto'
    const missed = await h.person({ time: '10:30', scenario: 'no-answer' })
    await h.advanceTo(at('2026-06-15T14:31:00Z'))
    expect((await callsOf(missed.user.id))[0]!.retryAt).not.toBeNull()
    await switchCallsOff(missed.user.id)
    await h.advanceTo(at('2026-06-15T16:00:00Z'))
    expect(dialsTo(missed.phone)).toHaveLength(1)
    expect((await callsOf(missed.user.id))[0]!.retryAt).toBeNull()
  })

  it('calls turned on again before the cancellation ran: the call ringing now is left to ring', async () => {
    const { user, phone } = await h.person({ time: '10:00', scenario: 'no-answer' })
    h.vapi.calls.pacing = 'manual'
    await h.advanceTo(at('2026-06-15T14:00:02Z'))
    const [dial] = dialsTo(phone)
    await h.vapi.calls.advance()
    await h.vapi.calls.advance()
    await h.settle()
    expect(dial?.status).toBe('ringing')
    // Off, then on again a moment later (before the queued cancellations run).
    await switchCallsOff(user.id)
    await switchCallsOff(user.id, true)
    await h.advanceTo(at('2026-06-15T14:01:00Z'))
    expect(h.vapi.calls.isDeleted(dial!.id)).toBe(false)
    expect((await callsOf(user.id))[0]!.completionStatus).toBe('ringing')
  })
})
