import { randomUUID } from 'node:crypto'
import { and, asc, eq } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { CONSENT_TEXT } from '#common/auth'
import { CallDetailResponseSchema, CallScheduleResponseSchema, NextCallResponseSchema, type UpdateCallSchedule } from '#common/calls'
import { ErrorBodySchema } from '#common/errors'
import { RecentCallsResponseSchema } from '#common/calls'
import { DashboardStatsResponseSchema } from '#common/dashboard'
import { GoalsResponseSchema, emptyGoalsForm, parseCallTime } from '#common/goals'
import type { PlanId } from '#common/plans'
import { coachingCallEvents, coachingCalls, consentEvents, goals, profiles } from '#server/db/schema'
import { buildTestApp } from '../helpers/app'
import { fakeClock } from '../helpers/clock'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { setConsent } from '../helpers/factories'
import { manualTimers } from '../helpers/timers'
import { signedInUser, type SignedIn } from '../helpers/users'

/**
 * The calls the person sees (GET /api/calls/next, GET /api/calls/:id, GET and PUT
 * /api/calls/schedule) and the dashboard's Calls Completed, through the real app on its own
 * database. The clock is the test's; no job fires (the embedded runner's timers are manual).
 */
let database: TestDatabase
let app: FastifyInstance
/** The same database, on a server without Vapi's assistant and phone number. */
let unconfigured: FastifyInstance
const START = new Date('2026-11-21T12:00:00Z') // a Saturday; 7:00 AM in New York
const clock = fakeClock(START)
const timers = manualTimers(clock)

const VAPI_ENV = {
  VAPI_API_KEY: 'vapi-test-key',
  VAPI_ASSISTANT_ID: 'asst_calls_api',
  VAPI_PHONE_NUMBER_ID: 'phone_calls_api',
  VAPI_WEBHOOK_SECRET: 'calls-api-webhook-secret-0123456789abcdef',
  // Nothing listens here: these tests never dial.
  VAPI_API_URL: 'http://127.0.0.1:9',
}

beforeAll(async () => {
  database = await createTestDatabase()
  app = await buildTestApp({ database, clock, timers: timers.timers, env: VAPI_ENV })
  unconfigured = await buildTestApp({ database, clock, timers: manualTimers(clock).timers })
})
afterAll(async () => {
  await app?.close()
  await unconfigured?.close()
  await database?.destroy()
})
beforeEach(() => clock.set(START))

type Person = {
  plan?: PlanId | false
  timeZone?: string
  dailyCallTime?: string | null
  onboarded?: boolean
}

/** A signed-in user with a plan, onboarding done and a daily call time (7:30 AM New York unless told). */
async function person(options: Person = {}): Promise<SignedIn> {
  const user = await signedInUser(app, { paid: options.plan ?? 'basic' })
  await database.db
    .update(profiles)
    .set({
      onboardingCompleted: options.onboarded ?? true,
      timezone: options.timeZone ?? 'America/New_York',
      dailyCallTime: options.dailyCallTime === undefined ? '07:30:00' : options.dailyCallTime,
    })
    .where(eq(profiles.id, user.user.id))
  return user
}

let ipCounter = 0
const get = (user: SignedIn, url: string, server = app) => server.inject({ method: 'GET', url, headers: user.headers })
const putSchedule = (user: SignedIn, payload: unknown) =>
  app.inject({
    method: 'PUT',
    url: '/api/calls/schedule',
    headers: { ...user.headers, 'x-forwarded-for': `10.13.${Math.floor(++ipCounter / 250)}.${ipCounter % 250}` },
    payload: payload as object,
  })

const nextOf = async (user: SignedIn, server = app) => {
  const response = await get(user, '/api/calls/next', server)
  expect(response.statusCode, response.body).toBe(200)
  return NextCallResponseSchema.parse(response.json())
}

async function insertCall(userId: string, values: Partial<typeof coachingCalls.$inferInsert> = {}) {
  const [call] = await database.db
    .insert(coachingCalls)
    .values({ userId, callDate: START, completionStatus: 'completed', ...values })
    .returning()
  return call!
}

const errorOf = (response: { json(): unknown }) => ErrorBodySchema.parse(response.json()).error

describe('GET /api/calls/:id', () => {
  it("answers the user's own call with its timeline in the order things happened (time, then insertion)", async () => {
    const user = await person()
    const call = await insertCall(user.user.id, {
      slot: 'daily',
      kind: 'check_in',
      localDate: '2026-11-21',
      timeZone: 'America/New_York',
      attempt: 1,
      callDuration: 312,
      areasDiscussed: ['fitness', 'finance'],
      summary: 'Talked about the morning runs and the budget.',
      mood: 7,
      energy: 6,
      commitments: ['Run on Monday', 'Write the budget'],
      transcript: 'AI: Hi Jordan.\nUser: Hi!',
      endedReason: 'customer-ended-call',
      dialledAt: new Date('2026-11-21T12:30:01Z'),
      startedAt: new Date('2026-11-21T12:30:09Z'),
      endedAt: new Date('2026-11-21T12:35:21Z'),
    })
    const at = (iso: string) => new Date(`2026-11-21T${iso}Z`)
    // Inserted out of order; two events share an instant (insertion order decides between them).
    await database.db.insert(coachingCallEvents).values([
      { callId: call.id, userId: user.user.id, type: 'ended', at: at('12:35:21'), detail: { endedReason: 'customer-ended-call' } },
      { callId: call.id, userId: user.user.id, type: 'scheduled', at: at('12:29:00'), detail: null },
      { callId: call.id, userId: user.user.id, type: 'ringing', at: at('12:30:05'), detail: null },
      { callId: call.id, userId: user.user.id, type: 'answered', at: at('12:30:05'), detail: null },
      { callId: call.id, userId: user.user.id, type: 'dialled', at: at('12:30:01'), detail: { vapiCallId: 'call_1' } },
    ])

    const response = await get(user, `/api/calls/${call.id}`)
    expect(response.statusCode, response.body).toBe(200)
    const detail = CallDetailResponseSchema.parse(response.json())
    expect(detail).toMatchObject({
      id: call.id,
      slot: 'daily',
      kind: 'check_in',
      attempt: 1,
      completionStatus: 'completed',
      endedReason: 'customer-ended-call',
      callDuration: 312,
      areasDiscussed: ['fitness', 'finance'],
      summary: 'Talked about the morning runs and the budget.',
      mood: 7,
      energy: 6,
      commitments: ['Run on Monday', 'Write the budget'],
      transcript: 'AI: Hi Jordan.\nUser: Hi!',
      startedAt: '2026-11-21T12:30:09.000Z',
      endedAt: '2026-11-21T12:35:21.000Z',
      timeZone: 'America/New_York',
    })
    expect(detail.events.map((event) => event.type)).toEqual(['scheduled', 'dialled', 'ringing', 'answered', 'ended'])
    expect(detail.events[4]).toEqual({ type: 'ended', at: '2026-11-21T12:35:21.000Z', detail: { endedReason: 'customer-ended-call' } })
  })

  it('a call without a claimed zone is shown in the person\'s zone', async () => {
    const user = await person({ timeZone: 'America/Denver' })
    const call = await insertCall(user.user.id, { completionStatus: 'skipped', skipReason: 'phone' })
    const detail = CallDetailResponseSchema.parse((await get(user, `/api/calls/${call.id}`)).json())
    expect(detail).toMatchObject({ timeZone: 'America/Denver', completionStatus: 'skipped', skipReason: 'phone', events: [] })
  })

  it("is 404 for another user's call, an unknown id and an id that is not one, and 403 without a plan", async () => {
    const owner = await person()
    const other = await person()
    const call = await insertCall(owner.user.id)
    await database.db.insert(coachingCallEvents).values({ callId: call.id, userId: owner.user.id, type: 'scheduled', at: START })
    for (const id of [call.id, randomUUID(), 'not-a-call', '12345']) {
      const response = await get(other, `/api/calls/${encodeURIComponent(id)}`)
      expect(response.statusCode, id).toBe(404)
      expect(errorOf(response).code).toBe('NOT_FOUND')
      expect(response.body).not.toContain(call.id)
    }
    const unpaid = await signedInUser(app)
    expect(errorOf(await get(unpaid, `/api/calls/${call.id}`)).code).toBe('PAYMENT_REQUIRED')
  })
})

describe('how late a phone call was placed (docs/decisions/070)', () => {
  const minutes = (n: number) => new Date(START.getTime() + n * 60_000)

  it('the list and the detail give lateSeconds (due → dialled) and lateReason, for a phone call more than a minute late only', async () => {
    const user = await person()
    const other = await person()
    const late = await insertCall(user.user.id, { slot: 'daily', localDate: '2026-11-21', callDate: minutes(0), dialledAt: minutes(4), dialWaitReason: 'lines_busy' })
    const paced = await insertCall(user.user.id, { slot: 'evening', localDate: '2026-11-21', callDate: minutes(-600), dialledAt: new Date(minutes(-600).getTime() + 61_500), dialWaitReason: 'pace' })
    // Dialled within the minute (the reason is kept in the row, but the call was not late).
    const onTime = await insertCall(user.user.id, { slot: 'daily', localDate: '2026-11-20', callDate: minutes(-1440), dialledAt: minutes(-1439), dialWaitReason: 'pace' })
    // Late with no line or pace to blame (a server that was down): how late, no reason.
    const noReason = await insertCall(user.user.id, { slot: 'daily', localDate: '2026-11-19', callDate: minutes(-2880), dialledAt: minutes(-2880 + 65) })
    // Skipped after an hour waiting for a line: never dialled, so never "late".
    const skipped = await insertCall(user.user.id, {
      slot: 'daily',
      localDate: '2026-11-18',
      callDate: minutes(-4320),
      completionStatus: 'skipped',
      skipReason: 'no_line_free',
      dialWaitReason: 'lines_busy',
    })
    // Another person's late call stays theirs.
    await insertCall(other.user.id, { callDate: minutes(1), dialledAt: minutes(30), dialWaitReason: 'lines_busy' })

    const recent = RecentCallsResponseSchema.parse((await get(user, '/api/calls/recent')).json()).calls
    expect(recent.map(({ id, lateSeconds, lateReason }) => ({ id, lateSeconds, lateReason }))).toEqual([
      { id: late.id, lateSeconds: 240, lateReason: 'lines_busy' },
      { id: paced.id, lateSeconds: 61, lateReason: 'pace' },
      { id: onTime.id, lateSeconds: null, lateReason: null },
      { id: noReason.id, lateSeconds: 3900, lateReason: null },
      { id: skipped.id, lateSeconds: null, lateReason: null },
    ])

    const detailOf = async (id: string) => {
      const response = await get(user, `/api/calls/${id}`)
      expect(response.statusCode, response.body).toBe(200)
      return CallDetailResponseSchema.parse(response.json())
    }
    expect(await detailOf(late.id)).toMatchObject({ callDate: '2026-11-21T12:00:00.000Z', lateSeconds: 240, lateReason: 'lines_busy' })
    expect(await detailOf(onTime.id)).toMatchObject({ lateSeconds: null, lateReason: null })
    expect(await detailOf(skipped.id)).toMatchObject({ completionStatus: 'skipped', skipReason: 'no_line_free', lateSeconds: null, lateReason: null })
  })

  it('a voice call in the app is never late: it is placed when the person asks', async () => {
    const user = await person()
    const web = await insertCall(user.user.id, { slot: 'web', kind: 'web', callDate: minutes(0), dialledAt: minutes(3), dialWaitReason: 'lines_busy' })
    const detail = CallDetailResponseSchema.parse((await get(user, `/api/calls/${web.id}`)).json())
    expect(detail).toMatchObject({ slot: 'web', lateSeconds: null, lateReason: null })
    expect(RecentCallsResponseSchema.parse((await get(user, '/api/calls/recent')).json()).calls).toMatchObject([{ id: web.id, lateSeconds: null, lateReason: null }])
  })
})

describe('GET /api/calls/next', () => {
  it('is the daily call today at the chosen time in the zone, a check-in on Basic', async () => {
    const user = await person()
    expect(await nextOf(user)).toEqual({
      next: { at: '2026-11-21T12:30:00.000Z', slot: 'daily', kind: 'check_in', localDate: '2026-11-21', localTime: '07:30', timeZone: 'America/New_York' },
      reason: null,
      pausedUntil: null,
      startNumber: null,
    })
    clock.set(new Date('2026-11-21T12:31:00Z'))
    expect((await nextOf(user)).next).toMatchObject({ at: '2026-11-22T12:30:00.000Z', localDate: '2026-11-22' })
  })

  it("on Premium: the daily call is the month's goal session until one of the month is completed", async () => {
    const user = await person({ plan: 'premium' })
    expect((await nextOf(user)).next).toMatchObject({ slot: 'daily', kind: 'goal_session', localTime: '07:30' })
    // Last month's goal session, this month's check-ins and test call, a goal session missed or
    // never dialled: still owed.
    await insertCall(user.user.id, { slot: 'daily', kind: 'goal_session', localDate: '2026-10-31', dialledAt: new Date('2026-10-31T10:00:00Z') })
    await insertCall(user.user.id, { slot: 'test', localDate: null, dialledAt: new Date('2026-11-20T15:00:00Z') })
    await insertCall(user.user.id, { slot: 'evening', kind: 'check_in', localDate: '2026-11-19', dialledAt: new Date('2026-11-20T00:00:00Z') })
    await insertCall(user.user.id, { slot: 'daily', kind: 'goal_session', localDate: '2026-11-20', dialledAt: null, completionStatus: 'skipped' })
    await insertCall(user.user.id, { slot: 'daily', kind: 'goal_session', localDate: '2026-11-20', attempt: 1, dialledAt: new Date('2026-11-20T12:30:00Z'), completionStatus: 'no_answer' })
    expect((await nextOf(user)).next).toMatchObject({ slot: 'daily', kind: 'goal_session' })
    await insertCall(user.user.id, { slot: 'daily', kind: 'goal_session', localDate: '2026-11-20', attempt: 2, dialledAt: new Date('2026-11-20T13:00:00Z'), completionStatus: 'completed' })
    expect((await nextOf(user)).next).toMatchObject({ slot: 'daily', kind: 'check_in' })
  })

  it('on Premium: after the daily call, the evening check-in (7:00 PM by default), never a goal session', async () => {
    const user = await person({ plan: 'premium', dailyCallTime: '06:00:00' })
    expect((await nextOf(user)).next).toMatchObject({ slot: 'evening', kind: 'check_in', localTime: '19:00', at: '2026-11-22T00:00:00.000Z' })
  })

  it('gives each reason there is no call', async () => {
    expect(await nextOf(await person(), unconfigured)).toEqual({ next: null, reason: 'not_configured', pausedUntil: null, startNumber: null })

    const unpaid = await signedInUser(app)
    expect(await app.services.calls.next(unpaid.user.id)).toMatchObject({ next: null, reason: 'payment' })

    expect(await nextOf(await person({ onboarded: false }))).toMatchObject({ next: null, reason: 'onboarding' })
    expect(await nextOf(await person({ dailyCallTime: null }))).toMatchObject({ next: null, reason: 'no_call_time' })

    const revoked = await person()
    await setConsent(database.db, revoked.user.id, 'calls', false, START)
    expect(await nextOf(revoked)).toMatchObject({ next: null, reason: 'consent' })
  })

  it("calls the sign-up number when the profile has none (the schema requires one, so 'phone' is the service's rule only)", async () => {
    const user = await person()
    await database.db.update(profiles).set({ phoneNumber: null }).where(eq(profiles.id, user.user.id))
    expect(await nextOf(user)).toMatchObject({ reason: null, next: { localDate: '2026-11-21' } })
  })

  it('while paused: when calls resume, and the first call after', async () => {
    const user = await person()
    await database.db.update(profiles).set({ callsPausedUntil: '2026-11-25' }).where(eq(profiles.id, user.user.id))
    expect(await nextOf(user)).toEqual({
      next: { at: '2026-11-25T12:30:00.000Z', slot: 'daily', kind: 'check_in', localDate: '2026-11-25', localTime: '07:30', timeZone: 'America/New_York' },
      reason: null,
      pausedUntil: '2026-11-25',
      startNumber: null,
    })
    // Once the day has come, the pause is over.
    clock.set(new Date('2026-11-25T05:00:00Z'))
    expect(await nextOf(user)).toMatchObject({ pausedUntil: null, next: { localDate: '2026-11-25' } })
  })

  it('on a spring-forward day, a time in the gap is called as the clocks land; on a fall-back day, at its first occurrence', async () => {
    clock.set(new Date('2027-03-13T12:00:00Z'))
    const spring = await person({ dailyCallTime: '02:30:00' })
    expect((await nextOf(spring)).next).toEqual({
      at: '2027-03-14T07:00:00.000Z',
      slot: 'daily',
      kind: 'check_in',
      localDate: '2027-03-14',
      localTime: '03:00',
      timeZone: 'America/New_York',
    })

    clock.set(new Date('2026-10-31T12:00:00Z'))
    const fall = await person({ dailyCallTime: '01:30:00' })
    // 1:30 AM happens twice on 2026-11-01: EDT (05:30Z) first, then EST (06:30Z).
    expect((await nextOf(fall)).next).toMatchObject({ at: '2026-11-01T05:30:00.000Z', localDate: '2026-11-01', localTime: '01:30' })
    clock.set(new Date('2026-11-01T05:31:00Z'))
    expect((await nextOf(fall)).next).toMatchObject({ at: '2026-11-02T06:30:00.000Z', localDate: '2026-11-02' })
  })
})

describe('GET and PUT /api/calls/schedule', () => {
  const valid = (overrides: Partial<UpdateCallSchedule> = {}): UpdateCallSchedule => ({
    dailyCallTime: '08:00',
    timeZone: 'America/Chicago',
    eveningCallTime: null,
    pausedUntil: null,
    callsEnabled: true,
    ...overrides,
  })

  it('reads the schedule: the evening check-in only on Premium and Elite, with its 7:00 PM default', async () => {
    const basic = await person()
    expect(CallScheduleResponseSchema.parse((await get(basic, '/api/calls/schedule')).json())).toEqual({
      dailyCallTime: '07:30',
      timeZone: 'America/New_York',
      eveningCallTime: null,
      eveningDefault: '19:00',
      eveningAvailable: false,
      pausedUntil: null,
      callsEnabled: true,
      phoneVerified: true,
      phoneStopped: false,
      startNumber: '(555) 555-0123',
    })
    const elite = await person({ plan: 'elite' })
    expect((await get(elite, '/api/calls/schedule')).json()).toMatchObject({ eveningAvailable: true, eveningCallTime: null })
  })

  it('refuses what is not a schedule with 400 naming the field, and changes nothing', async () => {
    const user = await person()
    const cases: Array<[Partial<UpdateCallSchedule> | Record<string, unknown>, string]> = [
      [{ timeZone: 'Mars/Olympus_Mons' }, 'timeZone'],
      [{ timeZone: '+05:00' }, 'timeZone'],
      [{ timeZone: '' }, 'timeZone'],
      [{ dailyCallTime: '25:00' }, 'dailyCallTime'],
      [{ dailyCallTime: '7:30' }, 'dailyCallTime'],
      [{ dailyCallTime: '07:15' }, 'dailyCallTime'],
      [{ eveningCallTime: '20:00' }, 'eveningCallTime'], // Basic has no evening check-in
      [{ pausedUntil: '2026-11-21' }, 'pausedUntil'], // today in Chicago
      [{ pausedUntil: '2026-11-01' }, 'pausedUntil'],
      [{ pausedUntil: '2027-11-22' }, 'pausedUntil'], // more than a year ahead
      [{ pausedUntil: '2027-02-30' }, 'pausedUntil'],
      [{ pausedUntil: 'next week' }, 'pausedUntil'],
      [{ callsEnabled: 'yes' }, 'callsEnabled'],
    ]
    for (const [overrides, field] of cases) {
      const response = await putSchedule(user, { ...valid(), ...overrides })
      expect(response.statusCode, JSON.stringify(overrides)).toBe(400)
      expect(errorOf(response).field, JSON.stringify(overrides)).toBe(field)
    }
    const { dailyCallTime: _, ...missing } = valid()
    expect(errorOf(await putSchedule(user, missing)).field).toBe('dailyCallTime')
    expect((await putSchedule(user, { ...valid(), extra: 1 })).statusCode).toBe(400)

    const premium = await person({ plan: 'premium' })
    expect(errorOf(await putSchedule(premium, valid({ eveningCallTime: '20:10' }))).field).toBe('eveningCallTime')

    expect((await get(user, '/api/calls/schedule')).json()).toMatchObject({ dailyCallTime: '07:30', timeZone: 'America/New_York' })
  })

  it('a pause may end tomorrow and up to a year ahead, counted in the zone being saved', async () => {
    // 2026-11-22T03:00Z: still the 21st in Chicago, already the 22nd in London.
    clock.set(new Date('2026-11-22T03:00:00Z'))
    const user = await person()
    expect((await putSchedule(user, valid({ pausedUntil: '2026-11-22' }))).statusCode).toBe(200)
    expect(errorOf(await putSchedule(user, valid({ timeZone: 'Europe/London', pausedUntil: '2026-11-22' }))).field).toBe('pausedUntil')
    expect((await putSchedule(user, valid({ pausedUntil: '2027-11-21' }))).statusCode).toBe(200)
  })

  it('a change shows in the next call and in the goal intake, whose other answers stay', async () => {
    const user = await person({ plan: 'premium' })
    const form = emptyGoalsForm()
    form.specificGoals = { goal90Days: 'Run a 5k', goal12Months: '', goal5Years: '', obstacles: 'Time' }
    form.callTime = { time: '7:30', period: 'AM', timezone: 'eastern' }
    const saved = await app.inject({ method: 'PUT', url: '/api/goals', headers: { ...user.headers, 'x-forwarded-for': '10.14.0.1' }, payload: form })
    expect(saved.statusCode, saved.body).toBe(200)

    const response = await putSchedule(user, valid({ dailyCallTime: '08:00', timeZone: 'America/Chicago', eveningCallTime: '20:30' }))
    expect(response.statusCode, response.body).toBe(200)
    expect(CallScheduleResponseSchema.parse(response.json())).toEqual({
      dailyCallTime: '08:00',
      timeZone: 'America/Chicago',
      eveningCallTime: '20:30',
      eveningDefault: '19:00',
      eveningAvailable: true,
      pausedUntil: null,
      callsEnabled: true,
      phoneVerified: true,
      phoneStopped: false,
      startNumber: '(555) 555-0123',
    })
    // 6:00 AM in Chicago: the daily call at 8:00 is next (14:00Z).
    expect((await nextOf(user)).next).toMatchObject({ at: '2026-11-21T14:00:00.000Z', localTime: '08:00', timeZone: 'America/Chicago', slot: 'daily' })
    clock.set(new Date('2026-11-21T15:00:00Z'))
    expect((await nextOf(user)).next).toMatchObject({ at: '2026-11-22T02:30:00.000Z', localTime: '20:30', slot: 'evening' })

    const records = GoalsResponseSchema.parse((await get(user, '/api/goals')).json()).goals
    const specific = records.find((record) => record.lifeArea === 'specific_goals')!.specificGoals!
    expect(specific).toMatchObject({ goal_90_days: 'Run a 5k', obstacles: 'Time', preferred_call_time: '8:00 AM Central (CT)' })
    expect(parseCallTime(specific.preferred_call_time)).toEqual({ time: '8:00', period: 'AM', timezone: 'central' })

    // Back to no evening choice: the default applies again.
    expect((await putSchedule(user, valid({ dailyCallTime: '21:30' }))).json()).toMatchObject({ eveningCallTime: null, dailyCallTime: '21:30' })
    const after = GoalsResponseSchema.parse((await get(user, '/api/goals')).json()).goals
    expect(after.find((record) => record.lifeArea === 'specific_goals')!.specificGoals).toMatchObject({ preferred_call_time: '9:30 PM Central (CT)', goal_90_days: 'Run a 5k' })
  })

  it('writes the goal intake text for a person who never saved one, and names a zone outside the list by its IANA name', async () => {
    const user = await person()
    expect((await putSchedule(user, valid({ timeZone: 'US/Eastern', dailyCallTime: '12:00' }))).json()).toMatchObject({ timeZone: 'America/New_York' })
    const [record] = await database.db.select().from(goals).where(eq(goals.userId, user.user.id))
    expect(record).toMatchObject({ lifeArea: 'specific_goals', specificGoals: { preferred_call_time: '12:00 PM Eastern (ET)', goal_90_days: null } })

    expect((await putSchedule(user, valid({ timeZone: 'Europe/London', dailyCallTime: '00:30' }))).statusCode).toBe(200)
    const [london] = await database.db.select().from(goals).where(eq(goals.userId, user.user.id))
    expect(london!.specificGoals).toMatchObject({ preferred_call_time: '12:30 AM Europe/London' })
    expect(await nextOf(user)).toMatchObject({ next: { timeZone: 'Europe/London', localTime: '00:30', localDate: '2026-11-22', at: '2026-11-22T00:30:00.000Z' } })
  })

  it('turning calls off withdraws consent (the next call says so); turning them on gives them back; pausing and resuming', async () => {
    const user = await person()
    expect((await putSchedule(user, valid({ callsEnabled: false }))).json()).toMatchObject({ callsEnabled: false })
    const ledger = () =>
      database.db.select().from(consentEvents).where(and(eq(consentEvents.userId, user.user.id), eq(consentEvents.channel, 'calls'))).orderBy(asc(consentEvents.id))
    expect((await ledger()).map((row) => [row.action, row.source, row.text, row.at])).toEqual([
      ['granted', 'sign_up', CONSENT_TEXT, expect.any(Date)],
      ['revoked', 'settings', 'Daily coaching calls: Off', START],
    ])
    // The request's client and user agent are kept with the decision.
    expect((await ledger())[1]).toMatchObject({ ip: expect.any(String), userAgent: expect.any(String) })
    expect(await nextOf(user)).toMatchObject({ next: null, reason: 'consent' })

    // Saving again while off is no new decision: the ledger keeps the first time it was turned off.
    clock.set(new Date('2026-11-21T13:00:00Z'))
    await putSchedule(user, valid({ callsEnabled: false }))
    expect(await ledger()).toHaveLength(2)

    expect((await putSchedule(user, valid({ callsEnabled: true }))).json()).toMatchObject({ callsEnabled: true })
    expect(await nextOf(user)).toMatchObject({ reason: null, next: { localDate: '2026-11-21', localTime: '08:00' } })

    expect((await putSchedule(user, valid({ pausedUntil: '2026-12-01' }))).json()).toMatchObject({ pausedUntil: '2026-12-01' })
    expect(await nextOf(user)).toMatchObject({ pausedUntil: '2026-12-01', next: { localDate: '2026-12-01' } })
    expect((await putSchedule(user, valid({ pausedUntil: null }))).json()).toMatchObject({ pausedUntil: null })
    expect(await nextOf(user)).toMatchObject({ pausedUntil: null, next: { localDate: '2026-11-21' } })
  })

  it('a plan without the evening check-in keeps an evening time chosen before', async () => {
    const user = await person({ plan: 'basic' })
    await database.db.update(profiles).set({ eveningCallTime: '20:00:00' }).where(eq(profiles.id, user.user.id))
    expect((await putSchedule(user, valid())).statusCode).toBe(200)
    expect((await database.db.select().from(profiles).where(eq(profiles.id, user.user.id)))[0]!.eveningCallTime).toBe('20:00:00')
  })
})

describe('the dashboard', () => {
  it('Calls Completed counts every completed call, not only the five listed; recent calls carry slot and summary', async () => {
    const user = await person()
    const other = await person()
    for (let day = 1; day <= 7; day++) {
      await insertCall(user.user.id, { callDate: new Date(Date.UTC(2026, 10, day, 12)), summary: `Day ${day}`, slot: day % 2 ? 'daily' : 'evening' })
    }
    await insertCall(user.user.id, { callDate: new Date(Date.UTC(2026, 10, 8, 12)), completionStatus: 'no_answer' })
    await insertCall(user.user.id, { callDate: new Date(Date.UTC(2026, 10, 9, 12)), completionStatus: 'skipped', skipReason: 'paused' })
    await insertCall(other.user.id)

    const stats = DashboardStatsResponseSchema.parse((await get(user, '/api/dashboard/stats')).json())
    expect(stats.callsCompleted).toBe(7)
    const recent = RecentCallsResponseSchema.parse((await get(user, '/api/calls/recent')).json()).calls
    expect(recent).toHaveLength(5)
    expect(recent.map((call) => call.completionStatus)).toEqual(['skipped', 'no_answer', 'completed', 'completed', 'completed'])
    expect(recent[2]).toMatchObject({ summary: 'Day 7', slot: 'daily', kind: 'check_in' })
    expect(DashboardStatsResponseSchema.parse((await get(other, '/api/dashboard/stats')).json()).callsCompleted).toBe(1)
  })
})
