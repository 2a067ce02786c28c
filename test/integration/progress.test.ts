/**
 * The progress page's series (GET /api/progress, Premium and Elite's detailed analytics) through
 * the real app on a test clock and real PostgreSQL: each of the last weeks' figures from seeded
 * calls and commitments (the weekly report's weeks, Sunday 6:00 PM in the person's zone), the life
 * areas over the span with their scores; only the signed-in person's rows; 401 without a session,
 * 403 PAYMENT_REQUIRED unpaid, 403 PLAN_UPGRADE_REQUIRED on Basic, 400 naming `weeks`.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { eq } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import type { LifeArea } from '#common/domain'
import type { ProgressResponse } from '#common/progress'
import { coachingCalls, commitments, goals, profiles } from '#server/db/schema'
import { buildTestApp } from '../helpers/app'
import { fakeClock } from '../helpers/clock'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { signedInUser } from '../helpers/users'

const at = (iso: string) => new Date(iso)

let database: TestDatabase
let app: FastifyInstance

beforeAll(async () => {
  database = await createTestDatabase()
})
afterAll(async () => {
  await database?.destroy()
})

/** Thursday 12 November 2026, 7:00 AM in New York: the week running ends Sunday 15 November. */
beforeEach(async () => {
  app = await buildTestApp({ database, clock: fakeClock(at('2026-11-12T12:00:00Z')) })
})
afterEach(async () => {
  await app.close()
})

async function member(plan: 'basic' | 'premium' | 'elite' | false, timezone = 'America/New_York') {
  const signedIn = await signedInUser(app, { paid: plan })
  await database.db.update(profiles).set({ onboardingCompleted: true, timezone }).where(eq(profiles.id, signedIn.user.id))
  return signedIn
}

async function call(userId: string, values: Partial<typeof coachingCalls.$inferInsert> & { callDate: Date }) {
  const [row] = await database.db.insert(coachingCalls).values({ userId, timeZone: 'America/New_York', completionStatus: 'completed', slot: 'daily', ...values }).returning()
  return row!
}

/** Calls in three of the last twelve weeks (and one before them), commitments settled in two, two rated areas. */
async function seed(userId: string) {
  // Too old: the first of the twelve weeks begins Sunday 23 August 2026, 6:00 PM EDT.
  await call(userId, { localDate: '2026-08-20', callDate: at('2026-08-20T14:00:00Z'), callDuration: 600, areasDiscussed: ['fun'], mood: 1 })
  // The week ending 4 October.
  await call(userId, { localDate: '2026-09-30', callDate: at('2026-09-30T14:00:00Z'), callDuration: 180, areasDiscussed: ['faith'], mood: 5 })
  // The week ending 8 November (1 Nov 23:00 UTC to 8 Nov 23:00 UTC): two completed, one day missed.
  const monday = await call(userId, { localDate: '2026-11-02', callDate: at('2026-11-02T15:00:00Z'), callDuration: 300, areasDiscussed: ['fitness', 'finance'], mood: 6 })
  await call(userId, { localDate: '2026-11-03', callDate: at('2026-11-03T15:00:00Z'), callDuration: 240, areasDiscussed: ['fitness'], mood: 8 })
  await call(userId, { localDate: '2026-11-04', attempt: 0, callDate: at('2026-11-04T15:00:00Z'), completionStatus: 'no_answer' })
  await call(userId, { localDate: '2026-11-04', attempt: 1, callDate: at('2026-11-04T15:10:00Z'), completionStatus: 'voicemail' })
  // The week running: Tuesday's evening call.
  await call(userId, { slot: 'evening', localDate: '2026-11-10', callDate: at('2026-11-11T00:30:00Z'), callDuration: 600, areasDiscussed: ['family'], mood: 4 })

  await database.db.insert(commitments).values([
    { userId, callId: monday.id, position: 0, text: 'Walk daily', madeAt: at('2026-11-02T15:05:00Z'), status: 'kept', resolvedAt: at('2026-11-03T15:05:00Z'), resolvedBy: 'call' },
    { userId, callId: monday.id, position: 1, text: 'Call Mom', madeAt: at('2026-11-02T15:05:00Z'), status: 'kept', resolvedAt: at('2026-11-05T12:00:00Z'), resolvedBy: 'app' },
    { userId, callId: monday.id, position: 2, text: 'Sleep by 11', madeAt: at('2026-11-02T15:05:00Z'), status: 'missed', resolvedAt: at('2026-11-11T00:40:00Z'), resolvedBy: 'call' },
    { userId, callId: monday.id, position: 3, text: 'Write the budget', madeAt: at('2026-11-02T15:05:00Z') },
  ])
  const goal = (lifeArea: LifeArea, satisfactionScore: number | null) => ({ userId, lifeArea, satisfactionScore })
  await database.db.insert(goals).values([goal('fitness', 7), goal('family', 3), goal('fun', null)])
}

const emptyWeek = { callsCompleted: 0, callsMissed: 0, minutesTalked: 0, moodAverage: null, commitmentsKept: 0, commitmentsMissed: 0, current: false }

describe('GET /api/progress', () => {
  it("gives a Premium member's last twelve weeks, oldest first, and the life areas over them, from their own rows only", async () => {
    const me = await member('premium')
    const other = await member('elite')
    await seed(me.user.id)
    // Someone else's busy week: none of it is mine.
    await call(other.user.id, { localDate: '2026-11-09', callDate: at('2026-11-09T15:00:00Z'), callDuration: 900, areasDiscussed: ['service'], mood: 10 })

    const response = await app.inject({ method: 'GET', url: '/api/progress', headers: me.headers })
    expect(response.statusCode).toBe(200)
    expect(response.headers['cache-control']).toContain('no-store')
    const body = response.json<ProgressResponse>()
    expect(body.timeZone).toBe('America/New_York')
    expect(body.weeks.map((week) => week.weekEnding)).toEqual([
      '2026-08-30', '2026-09-06', '2026-09-13', '2026-09-20', '2026-09-27', '2026-10-04',
      '2026-10-11', '2026-10-18', '2026-10-25', '2026-11-01', '2026-11-08', '2026-11-15',
    ])
    expect(body.weeks[0]).toMatchObject({ ...emptyWeek, periodStart: '2026-08-23T22:00:00.000Z', periodEnd: '2026-08-30T22:00:00.000Z' })
    expect(body.weeks[5]).toMatchObject({ ...emptyWeek, weekEnding: '2026-10-04', callsCompleted: 1, minutesTalked: 3, moodAverage: 5 })
    // The week the clocks changed back: 169 hours, ending at 6:00 PM EST.
    expect(body.weeks[9]).toEqual({ ...emptyWeek, weekEnding: '2026-11-01', periodStart: '2026-10-25T22:00:00.000Z', periodEnd: '2026-11-01T23:00:00.000Z' })
    expect(body.weeks[10]).toEqual({
      weekEnding: '2026-11-08',
      periodStart: '2026-11-01T23:00:00.000Z',
      periodEnd: '2026-11-08T23:00:00.000Z',
      current: false,
      callsCompleted: 2,
      callsMissed: 1,
      minutesTalked: 9,
      moodAverage: 7,
      commitmentsKept: 2,
      commitmentsMissed: 0,
    })
    expect(body.weeks[11]).toEqual({
      weekEnding: '2026-11-15',
      periodStart: '2026-11-08T23:00:00.000Z',
      periodEnd: '2026-11-15T23:00:00.000Z',
      current: true,
      callsCompleted: 1,
      callsMissed: 0,
      minutesTalked: 10,
      moodAverage: 4,
      commitmentsKept: 0,
      commitmentsMissed: 1,
    })
    expect(body.weeks.filter((week) => week.callsCompleted > 0)).toHaveLength(3)
    expect(body.areas).toEqual([
      { area: 'faith', calls: 1, score: null },
      { area: 'family', calls: 1, score: 3 },
      { area: 'fitness', calls: 2, score: 7 },
      { area: 'finance', calls: 1, score: null },
      { area: 'friends', calls: 0, score: null },
      { area: 'fun', calls: 0, score: null },
      { area: 'service', calls: 0, score: null },
      { area: 'personal_development', calls: 0, score: null },
    ])

    // The other member (Elite) sees their own week and nothing of mine.
    const theirs = (await app.inject({ method: 'GET', url: '/api/progress', headers: other.headers })).json<ProgressResponse>()
    expect(theirs.weeks.at(-1)).toMatchObject({ callsCompleted: 1, minutesTalked: 15, moodAverage: 10, commitmentsKept: 0, commitmentsMissed: 0 })
    expect(theirs.weeks.slice(0, -1).every((week) => week.callsCompleted === 0 && week.callsMissed === 0)).toBe(true)
    expect(theirs.areas.filter((area) => area.calls > 0)).toEqual([{ area: 'service', calls: 1, score: null }])
  })

  it('takes the number of weeks (1 to 52) and weeks in the person\'s own zone', async () => {
    const me = await member('elite', 'Asia/Kolkata')
    const response = await app.inject({ method: 'GET', url: '/api/progress?weeks=2', headers: me.headers })
    expect(response.statusCode).toBe(200)
    const body = response.json<ProgressResponse>()
    expect(body.timeZone).toBe('Asia/Kolkata')
    // 6:00 PM IST is 12:30 UTC.
    expect(body.weeks.map((week) => [week.weekEnding, week.periodEnd, week.current])).toEqual([
      ['2026-11-08', '2026-11-08T12:30:00.000Z', false],
      ['2026-11-15', '2026-11-15T12:30:00.000Z', true],
    ])
    for (const weeks of ['0', '53', 'two']) {
      const refused = await app.inject({ method: 'GET', url: `/api/progress?weeks=${weeks}`, headers: me.headers })
      expect(refused.statusCode, weeks).toBe(400)
      expect(refused.json().error).toMatchObject({ code: 'VALIDATION_FAILED', field: 'weeks' })
    }
  })

  it('refuses without a session (401), unpaid (403 PAYMENT_REQUIRED) and on Basic (403 PLAN_UPGRADE_REQUIRED)', async () => {
    const anonymous = await app.inject({ method: 'GET', url: '/api/progress' })
    expect(anonymous.statusCode).toBe(401)
    expect(anonymous.json()).toEqual({ error: { code: 'UNAUTHENTICATED', message: expect.any(String) } })

    const unpaid = await member(false)
    const refused = await app.inject({ method: 'GET', url: '/api/progress', headers: unpaid.headers })
    expect(refused.statusCode).toBe(403)
    expect(refused.json().error.code).toBe('PAYMENT_REQUIRED')

    const basic = await member('basic')
    await seed(basic.user.id)
    const upgrade = await app.inject({ method: 'GET', url: '/api/progress', headers: basic.headers })
    expect(upgrade.statusCode).toBe(403)
    expect(upgrade.headers['content-type']).toMatch(/^application\/json/)
    expect(upgrade.json()).toEqual({
      error: { code: 'PLAN_UPGRADE_REQUIRED', message: 'Detailed analytics come with the Premium and Elite plans. Upgrade your plan to see your progress charts.' },
    })
  })
})
