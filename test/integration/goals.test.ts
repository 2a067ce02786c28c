import { and, eq, sql } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ErrorBodySchema } from '#common/errors'
import { RecentCallsResponseSchema } from '#common/calls'
import { DashboardStatsResponseSchema } from '#common/dashboard'
import { GoalsResponseSchema, PARTNER_COMPANY, SaveGoalsResponseSchema, emptyGoalsForm, type GoalsForm } from '#common/goals'
import { coachingCalls, goals, profiles, userActivity, users } from '#server/db/schema'
import { recordActivity } from '#server/db/activity'
import { dueCalls, getCallSchedule } from '#server/services/calls'
import { buildTestApp } from '../helpers/app'
import { fakeClock } from '../helpers/clock'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { signedInUser, type SignedIn } from '../helpers/users'

let database: TestDatabase
let app: FastifyInstance
const clock = fakeClock(new Date('2026-11-21T12:00:00Z'))

beforeAll(async () => {
  database = await createTestDatabase()
  app = await buildTestApp({ database, clock })
})
afterAll(async () => {
  await app?.close()
  await database?.destroy()
})

const paidUser = () => signedInUser(app, { paid: 'basic' })

function fullForm(): GoalsForm {
  const form = emptyGoalsForm()
  form.areas.faith = { selectedOptions: ['daily_prayer', 'live_values'], satisfactionScore: 8, customNotes: '  Pray each morning  ' }
  form.areas.family = { selectedOptions: ['quality_time'], satisfactionScore: 3, customNotes: '' }
  form.areas.finance = { selectedOptions: ['pay_off_debt'], satisfactionScore: 2, customNotes: 'Credit card first' }
  form.areas.service = { selectedOptions: ['better_at_job', 'paid_more', 'new_career'], satisfactionScore: 6, customNotes: '' }
  form.workCareer = { company: 'microsoft', industry: 'technology_software', role: 'Engineer' }
  form.specificGoals = { goal90Days: 'Run a 5k', goal12Months: 'Ship the product', goal5Years: 'Lead a team', obstacles: 'Long hours' }
  form.callTime = { time: '7:30', period: 'AM', timezone: 'mountain' }
  return form
}

/** Each save from its own client address, so the per-address save limit is tested on purpose only. */
let ipCounter = 0
const newIp = () => `10.5.${Math.floor(++ipCounter / 250)}.${ipCounter % 250}`
const save = (user: SignedIn, payload: unknown, ip = newIp()) =>
  app.inject({ method: 'PUT', url: '/api/goals', headers: { ...user.headers, 'x-forwarded-for': ip }, payload: payload as object })
const getGoals = (user: SignedIn) => app.inject({ method: 'GET', url: '/api/goals', headers: user.headers })

const rowsOf = (userId: string) => database.db.select().from(goals).where(eq(goals.userId, userId)).orderBy(goals.lifeArea)
const profileOf = async (userId: string) => (await database.db.select().from(profiles).where(eq(profiles.id, userId)))[0]!

describe('access', () => {
  it('needs a session and a paid plan for every goals and dashboard endpoint', async () => {
    const endpoints = [
      { method: 'GET' as const, url: '/api/goals' },
      { method: 'PUT' as const, url: '/api/goals', payload: emptyGoalsForm() },
      { method: 'GET' as const, url: '/api/calls/recent' },
      { method: 'GET' as const, url: '/api/dashboard/stats' },
    ]
    const unpaid = await signedInUser(app)
    for (const endpoint of endpoints) {
      const anonymous = await app.inject({ ...endpoint, headers: { origin: 'http://localhost:3000' } })
      expect(anonymous.statusCode, endpoint.url).toBe(401)
      const refused = await app.inject({ ...endpoint, headers: unpaid.headers })
      expect(refused.statusCode, endpoint.url).toBe(403)
      expect(ErrorBodySchema.parse(refused.json()).error.code).toBe('PAYMENT_REQUIRED')
    }
    expect(await rowsOf(unpaid.user.id)).toHaveLength(0)
  })

  it('documents every endpoint in the OpenAPI document as needing a session', async () => {
    const document = (await app.inject({ method: 'GET', url: '/api/openapi.json' })).json() as {
      paths: Record<string, Record<string, { security?: unknown[]; requestBody?: unknown; responses: Record<string, unknown> }>>
    }
    for (const [path, method] of [['/api/goals', 'get'], ['/api/goals', 'put'], ['/api/calls/recent', 'get'], ['/api/dashboard/stats', 'get']] as const) {
      const operation = document.paths[path]?.[method]
      expect(operation?.security, `${method} ${path}`).toEqual([{ session: [] }])
      expect(operation?.responses['200'], `${method} ${path}`).toBeDefined()
      expect(operation?.responses['403'], `${method} ${path}`).toBeDefined()
    }
    expect(document.paths['/api/goals']?.put?.requestBody).toBeDefined()
  })

  it('refuses a cross-origin save', async () => {
    const user = await paidUser()
    const response = await app.inject({ method: 'PUT', url: '/api/goals', headers: { cookie: user.cookie, origin: 'https://evil.example' }, payload: fullForm() })
    expect(response.statusCode).toBe(403)
    expect(await rowsOf(user.user.id)).toHaveLength(0)
  })
})

describe('saving the goal intake', () => {
  it('writes every area, the two special records, the profile and the activity in one go', async () => {
    const user = await paidUser()
    const response = await save(user, fullForm())
    expect(response.statusCode, response.body).toBe(200)
    const body = SaveGoalsResponseSchema.parse(response.json())
    expect(body.profile).toEqual({ timezone: 'America/Denver', dailyCallTime: '07:30', partnerProgram: 'GENERAL', onboardingCompleted: true })
    expect(body.goals.map((g) => g.lifeArea)).toEqual([
      'faith', 'family', 'fitness', 'finance', 'friends', 'fun', 'service', 'personal_development', 'company_industry', 'specific_goals',
    ])

    const rows = await rowsOf(user.user.id)
    const byArea = Object.fromEntries(rows.map((row) => [row.lifeArea, row]))
    expect(rows).toHaveLength(10)
    expect(byArea.faith).toMatchObject({ selectedOptions: ['daily_prayer', 'live_values'], satisfactionScore: 8, customNotes: 'Pray each morning' })
    // Not rated: saved as 5 (spec 2 §5).
    expect(byArea.fitness).toMatchObject({ selectedOptions: [], satisfactionScore: 5, customNotes: null })
    expect(byArea.company_industry).toMatchObject({
      selectedOptions: ['technology_software'],
      satisfactionScore: null,
      customNotes: 'Company: Microsoft\nRole: Engineer',
      specificGoals: { company: 'microsoft', industry: 'technology_software', role: 'Engineer' },
    })
    expect(byArea.specific_goals).toMatchObject({
      selectedOptions: [],
      satisfactionScore: null,
      customNotes: null,
      specificGoals: {
        goal_90_days: 'Run a 5k',
        goal_12_months: 'Ship the product',
        goal_5_years: 'Lead a team',
        obstacles: 'Long hours',
        preferred_call_time: '7:30 AM Mountain (MT)',
      },
    })
    const profile = await profileOf(user.user.id)
    expect(profile).toMatchObject({ timezone: 'America/Denver', dailyCallTime: '07:30:00', onboardingCompleted: true })
    const activity = await database.db.select().from(userActivity).where(eq(userActivity.userId, user.user.id))
    expect(activity.map((a) => a.kind)).toEqual(['goals_saved'])

    // GET answers what was saved, and the scheduler sees the call time.
    const loaded = GoalsResponseSchema.parse((await getGoals(user)).json())
    expect(loaded.goals).toEqual(body.goals)
    expect(await getCallSchedule(app.db, user.user.id)).toEqual({ userId: user.user.id, timeZone: 'America/Denver', dailyCallTime: '07:30' })
  })

  it('updates on a second save, never duplicates, and the scheduler sees the new time at once', async () => {
    const user = await paidUser()
    expect((await save(user, fullForm())).statusCode).toBe(200)
    const first = await rowsOf(user.user.id)

    clock.advance(60_000)
    const changed = fullForm()
    changed.areas.faith = { selectedOptions: ['faith_community'], satisfactionScore: 9, customNotes: '' }
    changed.workCareer = { company: PARTNER_COMPANY.id, industry: 'education', role: '' }
    changed.callTime = { time: '9:00', period: 'PM', timezone: 'newfoundland' }
    const response = await save(user, changed)
    expect(response.statusCode, response.body).toBe(200)

    const rows = await rowsOf(user.user.id)
    expect(rows).toHaveLength(10)
    const [{ n }] = (await database.db.execute(sql`select count(*)::int as n from goals where user_id = ${user.user.id} and life_area = 'faith'`)) as unknown as [{ n: number }]
    expect(n).toBe(1)
    const faith = rows.find((r) => r.lifeArea === 'faith')!
    expect(faith).toMatchObject({ selectedOptions: ['faith_community'], satisfactionScore: 9, customNotes: null })
    expect(faith.id).toBe(first.find((r) => r.lifeArea === 'faith')!.id)
    expect(faith.updatedAt.getTime()).toBeGreaterThan(first.find((r) => r.lifeArea === 'faith')!.updatedAt.getTime())
    expect(rows.find((r) => r.lifeArea === 'company_industry')).toMatchObject({
      customNotes: 'Company: Northwind Traders',
      specificGoals: { company: PARTNER_COMPANY.id, industry: 'education', role: null },
    })
    expect(await profileOf(user.user.id)).toMatchObject({ timezone: 'America/St_Johns', dailyCallTime: '21:00:00', partnerProgram: 'NORTHWIND' })
    expect(await getCallSchedule(app.db, user.user.id)).toEqual({ userId: user.user.id, timeZone: 'America/St_Johns', dailyCallTime: '21:00' })
  })

  it('saves the special records only under the spec conditions, and the call time only with a timezone', async () => {
    const user = await paidUser()
    // Nothing filled in: the eight areas only (each rated 5), the profile keeps its defaults.
    expect((await save(user, emptyGoalsForm())).statusCode).toBe(200)
    expect((await rowsOf(user.user.id)).map((r) => r.lifeArea).sort()).toEqual(
      ['faith', 'family', 'finance', 'fitness', 'friends', 'fun', 'personal_development', 'service'].sort(),
    )
    expect((await rowsOf(user.user.id)).every((r) => r.satisfactionScore === 5)).toBe(true)
    expect(await profileOf(user.user.id)).toMatchObject({ timezone: 'America/New_York', dailyCallTime: null, onboardingCompleted: true })
    expect(await getCallSchedule(app.db, user.user.id)).toBeNull()

    // Only a role: the company_industry record. Only a time (no AM/PM, no timezone): the specific_goals record without a call time.
    const partial = emptyGoalsForm()
    partial.workCareer.role = 'Nurse'
    partial.callTime = { time: '6:00', period: null, timezone: 'pacific' }
    expect((await save(user, partial)).statusCode).toBe(200)
    const rows = await rowsOf(user.user.id)
    expect(rows.find((r) => r.lifeArea === 'company_industry')).toMatchObject({ selectedOptions: [], customNotes: 'Role: Nurse' })
    expect(rows.find((r) => r.lifeArea === 'specific_goals')!.specificGoals).toMatchObject({ preferred_call_time: null, goal_90_days: null })
    expect(await profileOf(user.user.id)).toMatchObject({ timezone: 'America/New_York', dailyCallTime: null })
  })

  it.each([
    ['the specific_goals upsert (half-way)', `create trigger mc_fail before insert on goals for each row when (new.user_id = '%USER%' and new.life_area = 'specific_goals') execute function mc_test_fail()`],
    ['the profile update', `create trigger mc_fail before update on profiles for each row when (new.id = '%USER%') execute function mc_test_fail()`],
    ['the activity entry (the last write)', `create trigger mc_fail before insert on user_activity for each row when (new.user_id = '%USER%') execute function mc_test_fail()`],
  ])('is atomic: a failure in %s leaves the earlier state intact', async (_label, trigger) => {
    const user = await paidUser()
    expect((await save(user, fullForm())).statusCode).toBe(200)
    const before = await rowsOf(user.user.id)
    const profileBefore = await profileOf(user.user.id)
    const activityBefore = await database.db.select().from(userActivity).where(eq(userActivity.userId, user.user.id))

    await database.db.execute(sql.raw(`create or replace function mc_test_fail() returns trigger language plpgsql as $$ begin raise exception 'injected failure'; end $$`))
    const table = /on (\w+)/.exec(trigger)![1]!
    await database.db.execute(sql.raw(trigger.replace('%USER%', user.user.id)))
    try {
      clock.advance(60_000)
      const changed = emptyGoalsForm()
      changed.areas.faith = { selectedOptions: ['study_scripture'], satisfactionScore: 1, customNotes: 'changed' }
      changed.workCareer = { company: PARTNER_COMPANY.id, industry: 'insurance', role: 'Agent' }
      changed.specificGoals.goal90Days = 'Changed goal'
      changed.callTime = { time: '11:00', period: 'PM', timezone: 'hawaii' }
      const response = await save(user, changed)
      expect(response.statusCode).toBe(500)
      expect(ErrorBodySchema.parse(response.json()).error.code).toBe('INTERNAL')
      expect(response.body).not.toContain('injected failure')
    } finally {
      await database.db.execute(sql.raw(`drop trigger mc_fail on ${table}`))
    }

    expect(await rowsOf(user.user.id)).toEqual(before)
    expect(await profileOf(user.user.id)).toEqual(profileBefore)
    expect(await database.db.select().from(userActivity).where(eq(userActivity.userId, user.user.id))).toEqual(activityBefore)
  })
})

describe('the save limit', () => {
  it('answers 429 past 30 saves a minute from one address', async () => {
    const user = await paidUser()
    const ip = newIp()
    for (let i = 0; i < 30; i++) expect((await save(user, emptyGoalsForm(), ip)).statusCode).toBe(200)
    const limited = await save(user, emptyGoalsForm(), ip)
    expect(limited.statusCode).toBe(429)
    expect(ErrorBodySchema.parse(limited.json()).error.code).toBe('RATE_LIMITED')
  })
})

describe("another user's goals", () => {
  it('can never be read or written', async () => {
    const alice = await paidUser()
    const bob = await paidUser()
    expect((await save(alice, fullForm())).statusCode).toBe(200)
    const aliceRows = await rowsOf(alice.user.id)

    expect(GoalsResponseSchema.parse((await getGoals(bob)).json()).goals).toEqual([])

    // Bob's save writes Bob's rows only, whatever he puts in the body.
    const sneaky = { ...emptyGoalsForm(), userId: alice.user.id }
    const refused = await save(bob, sneaky)
    expect(refused.statusCode).toBe(400)
    expect(await save(bob, emptyGoalsForm()).then((r) => r.statusCode)).toBe(200)
    const withQuery = await app.inject({
      method: 'PUT',
      url: `/api/goals?userId=${alice.user.id}`,
      headers: { ...bob.headers, 'x-forwarded-for': newIp() },
      payload: emptyGoalsForm(),
    })
    expect(withQuery.statusCode).toBe(200)
    expect(await rowsOf(alice.user.id)).toEqual(aliceRows)
    expect(await rowsOf(bob.user.id)).toHaveLength(8)
    expect(GoalsResponseSchema.parse((await getGoals(alice)).json()).goals.find((g) => g.lifeArea === 'faith')!.satisfactionScore).toBe(8)
  })
})

describe('bad payloads', () => {
  type Loose = {
    areas: { [K in 'faith' | 'family' | 'fun']: Record<string, unknown> } & Record<string, unknown>
    workCareer: Record<string, unknown>
    specificGoals: Record<string, unknown>
    callTime: Record<string, unknown>
    [key: string]: unknown
  }
  const mutate = (change: (form: Loose) => void) => {
    const form = fullForm() as unknown as Loose
    change(form)
    return form
  }

  it.each([
    ['an unknown life area', mutate((f) => (f.areas.hobbies = { selectedOptions: [], satisfactionScore: 5, customNotes: '' })), 'areas', /hobbies/],
    ['a missing life area', mutate((f) => Reflect.deleteProperty(f.areas, 'fun')), 'areas.fun', /./],
    ['an unknown option id', mutate((f) => (f.areas.faith.selectedOptions = ['win_lottery'])), 'areas.faith.selectedOptions.0', /option/],
    ['a repeated option', mutate((f) => (f.areas.faith.selectedOptions = ['daily_prayer', 'daily_prayer'])), 'areas.faith.selectedOptions', /once/],
    ['a score of 0', mutate((f) => (f.areas.family.satisfactionScore = 0)), 'areas.family.satisfactionScore', /1 to 10/],
    ['a score of 11', mutate((f) => (f.areas.family.satisfactionScore = 11)), 'areas.family.satisfactionScore', /1 to 10/],
    ['a score as text', mutate((f) => (f.areas.family.satisfactionScore = '7')), 'areas.family.satisfactionScore', /./],
    ['notes over 2,000 characters', mutate((f) => (f.areas.fun.customNotes = 'x'.repeat(2001))), 'areas.fun.customNotes', /2000/],
    ['a role over 120 characters', mutate((f) => (f.workCareer.role = 'r'.repeat(121))), 'workCareer.role', /120/],
    ['an unknown company', mutate((f) => (f.workCareer.company = 'Initech')), 'workCareer.company', /company/],
    ['an unknown industry', mutate((f) => (f.workCareer.industry = 'Piracy')), 'workCareer.industry', /industry/],
    ['a 90-day goal over 1,000 characters', mutate((f) => (f.specificGoals.goal90Days = 'g'.repeat(1001))), 'specificGoals.goal90Days', /1000/],
    ['a time off the list', mutate((f) => (f.callTime.time = '7:15')), 'callTime.time', /time/],
    ['AM/PM other than AM or PM', mutate((f) => (f.callTime.period = 'XM')), 'callTime.period', /AM or PM/],
    ['a timezone off the list', mutate((f) => (f.callTime.timezone = 'Europe/Paris')), 'callTime.timezone', /timezone/],
    ['an extra field', mutate((f) => (f.partnerProgram = 'NORTHWIND')), undefined, /partnerProgram/],
  ])('refuses %s with 400 naming the field', async (_label, payload, field, message) => {
    const user = await paidUser()
    const response = await save(user, payload)
    expect(response.statusCode).toBe(400)
    const { error } = ErrorBodySchema.parse(response.json())
    expect(error.code).toBe('VALIDATION_FAILED')
    if (field) expect(error.field).toBe(field)
    expect(error.message).toMatch(message)
    expect(await rowsOf(user.user.id)).toHaveLength(0)
  })

  it('refuses a body that is not JSON', async () => {
    const user = await paidUser()
    const response = await app.inject({
      method: 'PUT',
      url: '/api/goals',
      headers: { ...user.headers, 'content-type': 'application/json', 'x-forwarded-for': newIp() },
      payload: '{"areas":',
    })
    expect(response.statusCode).toBe(400)
    expect(ErrorBodySchema.parse(response.json()).error.code).toBe('BAD_REQUEST')
  })
})

describe('the dashboard loads', () => {
  it('lists the last 5 calls, newest first, only the user\'s own', async () => {
    const user = await paidUser()
    const other = await paidUser()
    const base = Date.parse('2026-11-10T15:00:00Z')
    await database.db.insert(coachingCalls).values(
      Array.from({ length: 7 }, (_, i) => ({
        userId: user.user.id,
        callDate: new Date(base + i * 86_400_000),
        callDuration: 60 * i + 29,
        areasDiscussed: ['fitness', 'finance'].slice(0, (i % 2) + 1),
        completionStatus: i % 3 === 0 ? ('no_answer' as const) : ('completed' as const),
      })),
    )
    await database.db.insert(coachingCalls).values({ userId: other.user.id, callDate: new Date(base + 30 * 86_400_000), callDuration: 300, completionStatus: 'completed' })

    const response = await app.inject({ method: 'GET', url: '/api/calls/recent', headers: user.headers })
    expect(response.statusCode).toBe(200)
    const { calls } = RecentCallsResponseSchema.parse(response.json())
    expect(calls).toHaveLength(5)
    expect(calls.map((c) => c.callDate)).toEqual([6, 5, 4, 3, 2].map((i) => new Date(base + i * 86_400_000).toISOString()))
    expect(calls[0]).toMatchObject({ callDuration: 389, areasDiscussed: ['fitness'], completionStatus: 'no_answer' })
    expect(calls[1]).toMatchObject({ callDuration: 329, areasDiscussed: ['fitness', 'finance'], completionStatus: 'completed' })

    const empty = await paidUser()
    expect(RecentCallsResponseSchema.parse((await app.inject({ method: 'GET', url: '/api/calls/recent', headers: empty.headers })).json()).calls).toEqual([])
  })

  it('counts Days Active as distinct days in the user\'s time zone since sign-up, and names the partner company', async () => {
    const user = await paidUser()
    await database.db.update(users).set({ createdAt: new Date('2026-11-15T12:00:00Z') }).where(eq(users.id, user.user.id))
    await database.db.update(profiles).set({ timezone: 'America/Los_Angeles' }).where(eq(profiles.id, user.user.id))
    const at = (iso: string) => new Date(iso)
    await recordActivity(app.db, user.user.id, 'sign_in', at('2026-11-14T20:00:00Z')) // before sign-up: not counted
    await recordActivity(app.db, user.user.id, 'sign_in', at('2026-11-16T02:00:00Z')) // Nov 15 in Los Angeles
    await recordActivity(app.db, user.user.id, 'goals_saved', at('2026-11-16T07:00:00Z')) // Nov 15 23:00 in Los Angeles
    await recordActivity(app.db, user.user.id, 'call_completed', at('2026-11-16T09:00:00Z')) // Nov 16 01:00
    await recordActivity(app.db, user.user.id, 'sign_in', at('2026-11-18T18:00:00Z')) // Nov 18
    const stats = async () => DashboardStatsResponseSchema.parse((await app.inject({ method: 'GET', url: '/api/dashboard/stats', headers: user.headers })).json())
    expect(await stats()).toEqual({ daysActive: 3, timezone: 'America/Los_Angeles', partnerProgram: 'GENERAL', partnerCompanyName: 'General', callsCompleted: 0 })

    // Choosing the partner company joins its program; saving counts today as active.
    const form = fullForm()
    form.workCareer.company = PARTNER_COMPANY.id
    form.callTime.timezone = 'pacific'
    expect((await save(user, form)).statusCode).toBe(200)
    expect(await stats()).toEqual({ daysActive: 4, timezone: 'America/Los_Angeles', partnerProgram: 'NORTHWIND', partnerCompanyName: 'Northwind Traders', callsCompleted: 0 })
  })
})

describe('the daily-call schedule', () => {
  it("the tick finds each user's call at their local time, in their own zone, across midnight", async () => {
    const mountain = await paidUser()
    const eastern = await paidUser()
    const notOnboarded = await paidUser()
    const a = fullForm() // 7:30 AM Mountain = 14:30 UTC in November
    expect((await save(mountain, a)).statusCode).toBe(200)
    const b = fullForm()
    b.callTime = { time: '12:00', period: 'AM', timezone: 'eastern' } // midnight Eastern = 05:00 UTC
    expect((await save(eastern, b)).statusCode).toBe(200)
    await database.db.update(profiles).set({ dailyCallTime: '07:30:00', timezone: 'America/Denver' }).where(eq(profiles.id, notOnboarded.user.id))

    // The tick looks TICK_LOOKAHEAD_MS ahead and TICK_LOOKBACK_MS back from now.
    const ours = [mountain.user.id, eastern.user.id, notOnboarded.user.id]
    const due = async (now: string) => (await dueCalls(app.db, new Date(now))).filter((call) => ours.includes(call.userId))

    expect(await due('2026-11-21T14:26:00Z')).toEqual([{ userId: mountain.user.id, slot: 'daily', localDate: '2026-11-21', attempt: 0, dueAt: new Date('2026-11-21T14:30:00Z') }])
    expect(await due('2026-11-21T14:44:00Z')).toHaveLength(1)
    expect(await due('2026-11-21T14:46:00Z')).toEqual([])
    expect(await due('2026-11-21T14:24:00Z')).toEqual([])
    expect(await due('2026-11-21T04:58:00Z')).toEqual([{ userId: eastern.user.id, slot: 'daily', localDate: '2026-11-21', attempt: 0, dueAt: new Date('2026-11-21T05:00:00Z') }])

    // Edit Goals moves the call: the scheduler sees it at once.
    const moved = fullForm()
    moved.callTime = { time: '8:00', period: 'AM', timezone: 'mountain' }
    expect((await save(mountain, moved)).statusCode).toBe(200)
    expect(await due('2026-11-21T14:26:00Z')).toEqual([])
    expect((await due('2026-11-21T14:59:00Z')).map((call) => call.dueAt)).toEqual([new Date('2026-11-21T15:00:00Z')])
    const [row] = await database.db.select().from(goals).where(and(eq(goals.userId, mountain.user.id), eq(goals.lifeArea, 'specific_goals')))
    expect(row!.specificGoals!.preferred_call_time).toBe('8:00 AM Mountain (MT)')
  })
})
