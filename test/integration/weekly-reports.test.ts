/**
 * Weekly progress reports through the real app on a test clock: the in-process scheduler's tick
 * claims each person's report at their own Sunday 6:00 PM (checked against an independent oracle
 * across zones and a DST change), writes the week's figures from seeded rows, and delivers the
 * email over real SMTP with a one-click unsubscribe the server honours and records in the consent
 * ledger; exactly once per person-week with two schedulers (in-process) and two BullMQ workers.
 */
import { randomBytes } from 'node:crypto'
import { Queue, QueueEvents } from 'bullmq'
import { and, asc, eq } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { Redis } from 'ioredis'
import { pino } from 'pino'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { LifeArea } from '#common/domain'
import type { WeeklyReportContent } from '#common/reports'
import { createSession } from '#server/auth/session'
import { createServices } from '#server/container'
import { coachingCalls, commitments, consentEvents, goals, profiles, textMessages, users, weeklyReports } from '#server/db/schema'
import { createBullmqEnqueuer, startBullmqWorkers } from '#server/jobs/bullmq'
import { JOBS } from '#server/jobs/index'
import { createMailer } from '#server/integrations/mailer'
import { activateTestingPlan } from '#server/services/billing'
import { createReports, type ReportTexts } from '#server/services/reports'
import { buildTestApp, testConfig } from '../helpers/app'
import { fakeClock } from '../helpers/clock'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { oracleFireInstant } from '../helpers/dst-oracle'
import { insertUser, setConsent } from '../helpers/factories'
import { createTestRedis } from '../helpers/redis'
import { startSmtpSink, type CapturedMail } from '../helpers/smtp-sink'
import { manualTimers } from '../helpers/timers'
import { signedInUser } from '../helpers/users'

const at = (iso: string) => new Date(iso)
const HOUR = 3_600_000
const log = pino({ level: 'silent' })

let database: TestDatabase
let smtp: Awaited<ReturnType<typeof startSmtpSink>>

beforeAll(async () => {
  database = await createTestDatabase()
  smtp = await startSmtpSink()
})

afterAll(async () => {
  await smtp?.close()
  await database?.destroy()
})

const ENV = () => ({ SMTP_URL: smtp.url, MAIL_FROM: 'Momentum Coach <coach@example.com>', APP_URL: 'http://localhost:3000' })

/** One app with the in-process scheduler on a test clock, and what moves it. */
async function clockedApp(clock: ReturnType<typeof fakeClock>, on: TestDatabase = database) {
  const timers = manualTimers(clock)
  const app = await buildTestApp({ database: on, clock, timers: timers.timers, env: ENV() })
  /** Runs everything due now: the armed schedules, then the jobs they enqueued, until nothing is due. */
  async function settle(): Promise<void> {
    for (let round = 0; round < 20; round++) {
      timers.advanceTo(clock.now())
      await app.jobRunner!.drain()
      if (!timers.armed().some((instant) => instant.getTime() <= clock.now().getTime())) return
    }
  }
  return {
    app,
    timers,
    settle,
    /** Moves the clock to `to` (a process that slept runs a missed schedule once), then runs what is due. */
    async jumpTo(to: Date) {
      clock.set(to)
      await settle()
    },
  }
}

/** A paid member who finished the goal intake, in `zone`. */
async function member(zone: string, now: Date, options: { onboarded?: boolean; paid?: boolean; on?: TestDatabase } = {}) {
  const { db } = options.on ?? database
  const user = await insertUser(db, { fullName: `Dana ${randomBytes(2).toString('hex')}`, createdAt: new Date(now.getTime() - 30 * 24 * HOUR) })
  await db.update(profiles).set({ onboardingCompleted: options.onboarded ?? true, timezone: zone }).where(eq(profiles.id, user.id))
  if (options.paid !== false) await activateTestingPlan(db, user.id, 'premium', new Date(now.getTime() - 20 * 24 * HOUR))
  return user
}

/** A signed-in member who finished the goal intake, in New York, with an account from before the week. */
async function signedInMember(app: FastifyInstance, now: Date, options: Parameters<typeof signedInUser>[1]) {
  const signedIn = await signedInUser(app, options)
  await database.db.update(users).set({ createdAt: new Date(now.getTime() - 30 * 24 * HOUR) }).where(eq(users.id, signedIn.user.id))
  await database.db.update(profiles).set({ onboardingCompleted: true, timezone: 'America/New_York' }).where(eq(profiles.id, signedIn.user.id))
  return signedIn
}

const reportsOf = (userId: string) => database.db.select().from(weeklyReports).where(eq(weeklyReports.userId, userId)).orderBy(asc(weeklyReports.periodEnd))
const mailsTo = (email: string) => smtp.mails.filter((mail) => mail.to.includes(email.toLowerCase()) && /^Your Momentum Coach week/.test(mail.subject))

/** A header field of a captured message. */
const headerOf = (mail: CapturedMail, name: string): string | undefined => mail.headers[name.toLowerCase()]

/** The one-click URL of a report email's List-Unsubscribe header. */
const oneClickUrl = (mail: CapturedMail) => /^<([^>]+)>$/.exec(headerOf(mail, 'List-Unsubscribe') ?? '')?.[1]

describe("each person's Sunday 6:00 PM", () => {
  let clock: ReturnType<typeof fakeClock>
  let running: Awaited<ReturnType<typeof clockedApp>>

  beforeEach(async () => {
    clock = fakeClock(at('2026-10-31T12:00:00Z'))
    running = await clockedApp(clock)
  })
  afterEach(async () => {
    await running.app.close()
  })

  it('claims and sends each report at 6:00 PM in its own zone, across offsets and the US change back from daylight time', async () => {
    // Sunday 1 November 2026: New York and Los Angeles leave daylight time at 2:00 AM that day.
    const zones = ['Pacific/Chatham', 'Asia/Kathmandu', 'Asia/Kolkata', 'Europe/London', 'America/New_York', 'America/Los_Angeles', 'Pacific/Honolulu']
    const people = await Promise.all(zones.map(async (zone) => ({ zone, user: await member(zone, clock.now()), due: oracleFireInstant('2026-11-01', '18:00', zone) })))
    const notOnboarded = await member('America/New_York', clock.now(), { onboarded: false })
    const unpaid = await member('America/New_York', clock.now(), { paid: false })
    people.sort((a, b) => a.due.getTime() - b.due.getTime())

    for (const { zone, user, due } of people) {
      await running.jumpTo(new Date(due.getTime() - 60_000))
      expect(await reportsOf(user.id), `${zone} a minute before`).toEqual([])
      await running.jumpTo(due)
      const [report] = await reportsOf(user.id)
      expect(report, zone).toMatchObject({ weekEnding: '2026-11-01', timeZone: zone, periodEnd: due, createdAt: due, emailStatus: 'sent', emailSentAt: due })
      expect(report!.periodStart).toEqual(oracleFireInstant('2026-10-25', '18:00', zone))
      expect(mailsTo(user.email), zone).toHaveLength(1)
    }
    // The week that holds New York's change back is 169 hours long; Kolkata's is 168.
    const byZone = new Map(people.map((person) => [person.zone, person]))
    const [newYork] = await reportsOf(byZone.get('America/New_York')!.user.id)
    expect((newYork!.periodEnd.getTime() - newYork!.periodStart.getTime()) / HOUR).toBe(169)
    const [kolkata] = await reportsOf(byZone.get('Asia/Kolkata')!.user.id)
    expect((kolkata!.periodEnd.getTime() - kolkata!.periodStart.getTime()) / HOUR).toBe(168)
    // Nobody without the goal intake or a paid plan; and nothing more a day later.
    await running.jumpTo(at('2026-11-02T18:00:00Z'))
    expect(await reportsOf(notOnboarded.id)).toEqual([])
    expect(await reportsOf(unpaid.id)).toEqual([])
    for (const { user } of people) expect(mailsTo(user.email)).toHaveLength(1)
  })

  it("catches up a scheduler that was down at 6:00 PM, within 12 hours; later, that week's report is left out", async () => {
    const late = await member('America/Chicago', clock.now())
    const tooLate = await member('Asia/Tokyo', clock.now())
    // Chicago's 6:00 PM on 1 November is 00:00 UTC on the 2nd; Tokyo's was 09:00 UTC on the 1st.
    await running.jumpTo(at('2026-11-02T03:00:00Z'))
    const [report] = await reportsOf(late.id)
    expect(report).toMatchObject({ weekEnding: '2026-11-01', periodEnd: at('2026-11-02T00:00:00Z'), createdAt: at('2026-11-02T03:00:00Z'), emailStatus: 'sent' })
    expect(await reportsOf(tooLate.id)).toEqual([])
    // The next week comes as usual.
    await running.jumpTo(at('2026-11-08T09:00:00Z'))
    expect((await reportsOf(tooLate.id)).map((row) => row.weekEnding)).toEqual(['2026-11-08'])
  })
})

describe('a seeded week', () => {
  let clock: ReturnType<typeof fakeClock>
  let running: Awaited<ReturnType<typeof clockedApp>>

  beforeEach(async () => {
    clock = fakeClock(at('2026-11-08T12:00:00Z'))
    running = await clockedApp(clock)
  })
  afterEach(async () => {
    await running.app.close()
  })

  /** A call row of the person's, as the dialler and the webhooks leave it. */
  async function call(userId: string, values: Partial<typeof coachingCalls.$inferInsert> & { callDate: Date }) {
    const [row] = await database.db
      .insert(coachingCalls)
      .values({ userId, timeZone: 'America/New_York', completionStatus: 'completed', ...values })
      .returning()
    return row!
  }

  async function seedWeek(userId: string) {
    // The week: Sunday 1 November 6:00 PM EST (23:00 UTC) to Sunday 8 November 6:00 PM EST.
    const monday = await call(userId, { slot: 'daily', localDate: '2026-11-02', callDate: at('2026-11-02T15:00:00Z'), callDuration: 300, areasDiscussed: ['fitness', 'finance'], mood: 6 })
    // Tuesday: answered on the third try (counts once, completed, not missed).
    await call(userId, { slot: 'daily', localDate: '2026-11-03', attempt: 0, callDate: at('2026-11-03T15:00:00Z'), completionStatus: 'no_answer' })
    await call(userId, { slot: 'daily', localDate: '2026-11-03', attempt: 1, callDate: at('2026-11-03T15:10:00Z'), completionStatus: 'busy' })
    await call(userId, { slot: 'daily', localDate: '2026-11-03', attempt: 2, callDate: at('2026-11-03T15:40:00Z'), callDuration: 240, areasDiscussed: ['fitness'], mood: 8 })
    // Wednesday: never reached (missed).
    await call(userId, { slot: 'daily', localDate: '2026-11-04', attempt: 0, callDate: at('2026-11-04T15:00:00Z'), completionStatus: 'no_answer' })
    await call(userId, { slot: 'daily', localDate: '2026-11-04', attempt: 1, callDate: at('2026-11-04T15:10:00Z'), completionStatus: 'voicemail' })
    // Thursday: paused (skipped, not missed); the evening check-in completed.
    await call(userId, { slot: 'daily', localDate: '2026-11-05', callDate: at('2026-11-05T15:00:00Z'), completionStatus: 'skipped' })
    await call(userId, { slot: 'evening', localDate: '2026-11-05', callDate: at('2026-11-06T00:00:00Z'), callDuration: 600, areasDiscussed: ['family', 'fitness'], mood: 7 })
    // Friday: a voice call in the app, no mood.
    await call(userId, { slot: 'web', kind: 'web', callDate: at('2026-11-06T20:00:00Z'), callDuration: 120 })
    // After the week (Sunday 7:00 PM): next week's.
    await call(userId, { slot: 'evening', localDate: '2026-11-08', callDate: at('2026-11-09T00:00:00Z'), callDuration: 900, areasDiscussed: ['faith'], mood: 2 })
    // The week before: moods 5 and 6.
    const before = await call(userId, { slot: 'daily', localDate: '2026-10-30', callDate: at('2026-10-30T14:00:00Z'), callDuration: 200, mood: 5 })
    await call(userId, { slot: 'daily', localDate: '2026-10-31', callDate: at('2026-10-31T14:00:00Z'), callDuration: 200, mood: 6 })

    await database.db.insert(commitments).values([
      // Made the week before, kept this week.
      { userId, callId: before.id, position: 0, text: 'Walk daily', madeAt: at('2026-10-30T14:05:00Z'), status: 'kept', resolvedAt: at('2026-11-03T15:45:00Z'), resolvedBy: 'call' },
      // Made the week before and kept then: not this week's.
      { userId, callId: before.id, position: 1, text: 'Call Mom', madeAt: at('2026-10-30T14:05:00Z'), status: 'kept', resolvedAt: at('2026-10-31T14:05:00Z'), resolvedBy: 'app' },
      // Made this week: one still open, one missed this week.
      { userId, callId: monday.id, position: 0, text: 'Write the budget', madeAt: at('2026-11-02T15:05:00Z') },
      { userId, callId: monday.id, position: 1, text: 'Sleep by 11', madeAt: at('2026-11-02T15:05:00Z'), status: 'missed', resolvedAt: at('2026-11-06T00:10:00Z'), resolvedBy: 'call' },
      // An old one, still open.
      { userId, callId: before.id, position: 2, text: 'Plan a trip', madeAt: at('2026-10-20T14:05:00Z') },
    ])

    const goal = (lifeArea: LifeArea, satisfactionScore: number | null, updatedAt: string) => ({ userId, lifeArea, satisfactionScore, updatedAt: at(updatedAt) })
    await database.db.insert(goals).values([
      goal('fitness', 7, '2026-10-01T00:00:00Z'),
      // Changed during the week: unknown before, unless the week before's report says.
      goal('finance', 4, '2026-11-04T12:00:00Z'),
      goal('family', 8, '2026-10-01T00:00:00Z'),
      goal('fun', null, '2026-10-01T00:00:00Z'),
    ])
  }

  const expectedContent = (scores: WeeklyReportContent['scores']): WeeklyReportContent => ({
    calls: { completed: 4, missed: 1, secondsTalked: 1260, minutesTalked: 21 },
    areasDiscussed: [
      { area: 'fitness', calls: 3 },
      { area: 'family', calls: 1 },
      { area: 'finance', calls: 1 },
    ],
    commitments: { made: 2, kept: 1, missed: 1, open: 2 },
    mood: {
      points: [
        { localDate: '2026-11-02', at: '2026-11-02T15:00:00.000Z', mood: 6 },
        { localDate: '2026-11-03', at: '2026-11-03T15:40:00.000Z', mood: 8 },
        { localDate: '2026-11-05', at: '2026-11-06T00:00:00.000Z', mood: 7 },
      ],
      average: 7,
      previousAverage: 5.5,
      trend: 'up',
    },
    scores,
  })

  it("reports the week's figures, each life area against the week before, by email and as a page", async () => {
    const { user, headers } = await signedInMember(running.app, clock.now(), { paid: 'premium', fullName: 'Dana Reyes' })
    await seedWeek(user.id)

    await running.jumpTo(at('2026-11-08T22:59:00Z'))
    expect(await reportsOf(user.id)).toEqual([])
    await running.jumpTo(at('2026-11-08T23:00:00Z'))
    const [report] = await reportsOf(user.id)
    // No report the week before: an area unchanged since before the week keeps its score; one
    // changed during the week has no earlier figure; an unrated or missing one has none at all.
    const content = expectedContent([
      { area: 'faith', score: null, previous: null, change: null },
      { area: 'family', score: 8, previous: 8, change: 0 },
      { area: 'fitness', score: 7, previous: 7, change: 0 },
      { area: 'finance', score: 4, previous: null, change: null },
      { area: 'friends', score: null, previous: null, change: null },
      { area: 'fun', score: null, previous: null, change: null },
      { area: 'service', score: null, previous: null, change: null },
      { area: 'personal_development', score: null, previous: null, change: null },
    ])
    expect(report!.content).toEqual(content)

    // The email: the figures, the link, and the one-click unsubscribe headers.
    const [mail] = mailsTo(user.email)
    expect(mail!.subject).toBe('Your Momentum Coach week: Nov 2 – Nov 8, 2026')
    expect(mail!.text).toContain('Hi Dana,')
    expect(mail!.text).toContain('Calls: 4 completed, 1 missed, 21 minutes talked')
    expect(mail!.text).toContain('Life areas discussed: Fitness & Health (3), Family Relationships (1), Finance (1)')
    expect(mail!.text).toContain('Commitments: 1 kept, 1 missed, 2 made this week, 2 open')
    expect(mail!.text).toContain('Mood: 7 out of 10 on average, up from 5.5 the week before')
    expect(mail!.text).toContain('Fitness & Health: 7/10, no change')
    expect(mail!.text).toContain('See your full report: http://localhost:3000/reports/2026-11-08')
    expect(headerOf(mail!, 'List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click')
    expect(oneClickUrl(mail!)).toMatch(new RegExp(`^http://localhost:3000/api/reports/unsubscribe\\?token=${report!.id}\\.[a-z2-7]{32}$`))
    expect(mail!.text).toMatch(new RegExp(`Unsubscribe from weekly report emails: http://localhost:3000/unsubscribe#token=${report!.id}\\.[a-z2-7]{32}`))

    // The same report in the app, and its history.
    const page = await running.app.inject({ method: 'GET', url: '/api/reports/2026-11-08', headers })
    expect(page.statusCode).toBe(200)
    expect(page.json()).toEqual({
      weekEnding: '2026-11-08',
      timeZone: 'America/New_York',
      periodStart: '2026-11-01T23:00:00.000Z',
      periodEnd: '2026-11-08T23:00:00.000Z',
      generatedAt: '2026-11-08T23:00:00.000Z',
      content,
    })

    // The next week compares against this one: the finance score changed from 4 to 6.
    await database.db.update(goals).set({ satisfactionScore: 6, updatedAt: at('2026-11-10T12:00:00Z') }).where(and(eq(goals.userId, user.id), eq(goals.lifeArea, 'finance')))
    await running.jumpTo(at('2026-11-15T23:00:00Z'))
    const [, next] = await reportsOf(user.id)
    expect(next!.content!.scores.find((score) => score.area === 'finance')).toEqual({ area: 'finance', score: 6, previous: 4, change: 2 })
    expect(next!.content!.mood).toMatchObject({ average: 2, previousAverage: 7, trend: 'down' })
    // A week later the session has run out (7 days idle): signed in again.
    const session = await createSession(running.app.db, running.app.services.clock, user.id)
    const history = await running.app.inject({ method: 'GET', url: '/api/reports', headers: { ...headers, cookie: `session=${session.token}` } })
    expect(history.json()).toEqual({
      reports: [
        { weekEnding: '2026-11-15', timeZone: 'America/New_York', periodStart: '2026-11-08T23:00:00.000Z', periodEnd: '2026-11-15T23:00:00.000Z', callsCompleted: 1, callsMissed: 0, minutesTalked: 15, commitmentsKept: 0 },
        { weekEnding: '2026-11-08', timeZone: 'America/New_York', periodStart: '2026-11-01T23:00:00.000Z', periodEnd: '2026-11-08T23:00:00.000Z', callsCompleted: 4, callsMissed: 1, minutesTalked: 21, commitmentsKept: 1 },
      ],
    })
  })

  it('keeps the pages to their owner: a session (401), a paid plan (403), and 404 for a week of no report of theirs', async () => {
    const owner = await signedInMember(running.app, clock.now(), { paid: 'basic' })
    const other = await signedInUser(running.app, { paid: 'basic' })
    await running.jumpTo(at('2026-11-08T23:00:00Z'))
    expect(await reportsOf(owner.user.id)).toHaveLength(1)

    expect((await running.app.inject({ method: 'GET', url: '/api/reports' })).statusCode).toBe(401)
    expect((await running.app.inject({ method: 'GET', url: '/api/reports/2026-11-08' })).statusCode).toBe(401)
    const foreign = await running.app.inject({ method: 'GET', url: '/api/reports/2026-11-08', headers: other.headers })
    expect(foreign.statusCode).toBe(404)
    expect((await running.app.inject({ method: 'GET', url: '/api/reports', headers: other.headers })).json()).toEqual({ reports: [] })
    const bad = await running.app.inject({ method: 'GET', url: '/api/reports/last-week', headers: owner.headers })
    expect(bad.statusCode).toBe(400)
    expect(bad.json()).toMatchObject({ error: { code: 'VALIDATION_FAILED', field: 'week' } })

    const unpaid = await signedInUser(running.app, { paid: false })
    const refused = await running.app.inject({ method: 'GET', url: '/api/reports', headers: unpaid.headers })
    expect(refused.statusCode).toBe(403)
    expect(refused.json()).toMatchObject({ error: { code: 'PAYMENT_REQUIRED' } })
  })
})

describe('the one-click unsubscribe', () => {
  let clock: ReturnType<typeof fakeClock>
  let running: Awaited<ReturnType<typeof clockedApp>>

  beforeEach(async () => {
    clock = fakeClock(at('2026-11-08T12:00:00Z'))
    running = await clockedApp(clock)
  })
  afterEach(async () => {
    await running.app.close()
  })

  async function reportEmailOf(zone = 'America/New_York') {
    const user = await member(zone, clock.now())
    await running.jumpTo(at('2026-11-08T23:00:00Z'))
    const [mail] = mailsTo(user.email)
    expect(mail).toBeDefined()
    return { user, mail: mail!, url: new URL(oneClickUrl(mail!)!) }
  }

  const ledgerOf = (userId: string) => database.db.select().from(consentEvents).where(and(eq(consentEvents.userId, userId), eq(consentEvents.channel, 'report_emails'))).orderBy(asc(consentEvents.id))

  it("is honoured without a session from a mail provider's POST (RFC 8058), recorded in the ledger once, and stops the next report's email", async () => {
    const { user, url } = await reportEmailOf()
    const post = () =>
      running.app.inject({
        method: 'POST',
        url: `${url.pathname}${url.search}`,
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://mail.google.com', 'user-agent': 'GoogleOneClick/1.0', 'x-forwarded-for': '198.51.100.7' },
        payload: 'List-Unsubscribe=One-Click',
      })
    const first = await post()
    expect(first.statusCode).toBe(200)
    expect(first.json()).toEqual({ unsubscribed: true, changed: true })
    const again = await post()
    expect(again.json()).toEqual({ unsubscribed: true, changed: false })

    const ledger = await ledgerOf(user.id)
    expect(ledger).toHaveLength(1)
    expect(ledger[0]).toMatchObject({ action: 'revoked', source: 'email_unsubscribe', text: 'List-Unsubscribe=One-Click', userAgent: 'GoogleOneClick/1.0', at: at('2026-11-08T23:00:00Z') })
    expect(ledger[0]!.ip).toEqual(expect.any(String))
    const [report] = await reportsOf(user.id)
    expect(ledger[0]!.detail).toEqual({ reportId: report!.id, weekEnding: '2026-11-08', oneClick: true })

    // The next Sunday: the report is made (and in the app), its email is not sent.
    await running.jumpTo(at('2026-11-15T23:00:00Z'))
    const [, next] = await reportsOf(user.id)
    expect(next).toMatchObject({ weekEnding: '2026-11-15', emailStatus: 'skipped', emailSkipReason: 'no_consent' })
    expect(next!.content).not.toBeNull()
    expect(mailsTo(user.email)).toHaveLength(1)
  })

  it("works from the app's /unsubscribe page (the token in the body), and a link opened in a browser only leads there", async () => {
    const { user, url } = await reportEmailOf()
    const token = url.searchParams.get('token')!
    const opened = await running.app.inject({ method: 'GET', url: `${url.pathname}${url.search}` })
    expect(opened.statusCode).toBe(303)
    expect(opened.headers.location).toBe(`/unsubscribe#token=${token}`)
    expect(await ledgerOf(user.id)).toEqual([])

    const clicked = await running.app.inject({ method: 'POST', url: '/api/reports/unsubscribe', headers: { origin: 'http://localhost:3000' }, payload: { token } })
    expect(clicked.json()).toEqual({ unsubscribed: true, changed: true })
    expect(await ledgerOf(user.id)).toMatchObject([{ action: 'revoked', source: 'email_unsubscribe', text: 'Unsubscribe from weekly report emails', detail: { oneClick: false } }])
  })

  it('refuses a token that is not one (400 naming `token`), and changes nothing', async () => {
    const { user, url } = await reportEmailOf()
    const token = url.searchParams.get('token')!
    const [id, secret] = token.split('.') as [string, string]
    const forged = `${id}.${secret.slice(0, -1)}${secret.endsWith('a') ? 'b' : 'a'}`
    for (const bad of [forged, id, `${id}.`, 'x.y', `00000000-0000-4000-8000-000000000000.${secret}`]) {
      const response = await running.app.inject({ method: 'POST', url: `/api/reports/unsubscribe?token=${encodeURIComponent(bad)}`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'List-Unsubscribe=One-Click' })
      expect(response.statusCode, bad).toBe(400)
      expect(response.json()).toMatchObject({ error: { code: 'INVALID_TOKEN', field: 'token' } })
    }
    const none = await running.app.inject({ method: 'POST', url: '/api/reports/unsubscribe', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'List-Unsubscribe=One-Click' })
    expect(none.statusCode).toBe(400)
    expect(await ledgerOf(user.id)).toEqual([])
  })

  it('sends nothing to a person who turned report emails off, and records why', async () => {
    const user = await member('America/New_York', clock.now())
    await setConsent(database.db, user.id, 'report_emails', false, clock.now())
    await running.jumpTo(at('2026-11-08T23:00:00Z'))
    expect(await reportsOf(user.id)).toMatchObject([{ emailStatus: 'skipped', emailSkipReason: 'no_consent', textStatus: 'skipped', textSkipReason: 'no_consent' }])
    expect(mailsTo(user.email)).toEqual([])
  })

  it("sends the report's link by text through the texts outbox, for a person with texts on", async () => {
    const user = await member('America/New_York', clock.now())
    await setConsent(database.db, user.id, 'texts', true, clock.now())
    await running.jumpTo(at('2026-11-08T23:00:00Z'))
    const [report] = await reportsOf(user.id)
    expect(report).toMatchObject({ emailStatus: 'sent', textStatus: 'requested' })
    const texts = await database.db.select().from(textMessages).where(eq(textMessages.userId, user.id))
    expect(texts).toHaveLength(1)
    expect(texts[0]).toMatchObject({ kind: 'weekly_report' })
    expect(texts[0]!.content).toContain(`/reports/${report!.weekEnding}`)
  })
})

describe("the report's text", () => {
  it('asks the texts service once per person-week with its link, with texts on; a refused request is given back and asked again', async () => {
    // The texts service is wired into createServices by the texts work; here the reports domain is
    // built by its factory (ADR 021) with a texts service that records what it is asked.
    const clock = fakeClock(at('2026-11-08T23:00:00Z'))
    const asked: Array<Parameters<ReportTexts['request']>[0]> = []
    let refuse = true
    const texts: ReportTexts = {
      async request(input) {
        if (refuse) throw new Error('the outbox is unavailable')
        asked.push(input)
      },
    }
    const queued: string[] = []
    const reports = createReports({
      db: database.db,
      clock,
      log,
      mailer: createMailer({ smtpUrl: smtp.url, from: 'coach@example.com', log, logLinks: false }),
      appUrl: 'http://localhost:3000/',
      jobs: { enqueue: async (_name, payload) => (queued.push((payload as { reportId: string }).reportId), 'job') },
      texts,
    })
    const withTexts = await member('America/New_York', clock.now())
    await setConsent(database.db, withTexts.id, 'texts', true, clock.now())
    const withoutTexts = await member('America/New_York', clock.now())
    await reports.tick()
    const [mine] = await reportsOf(withTexts.id)
    const [theirs] = await reportsOf(withoutTexts.id)
    expect(queued).toEqual(expect.arrayContaining([mine!.id, theirs!.id]))

    await expect(reports.deliver(mine!.id)).rejects.toThrow('the outbox is unavailable')
    expect((await reportsOf(withTexts.id))[0]).toMatchObject({ emailStatus: 'sent', textStatus: 'pending' })
    refuse = false
    expect(await reports.deliver(mine!.id)).toEqual({ email: 'sent', text: 'requested' })
    expect(await reports.deliver(mine!.id)).toEqual({ email: 'sent', text: 'requested' })
    expect(await reports.deliver(theirs!.id)).toEqual({ email: 'sent', text: 'skipped' })
    expect(asked).toEqual([
      {
        userId: withTexts.id,
        kind: 'weekly_report',
        dedupeKey: `weekly_report:${withTexts.id}:2026-11-08`,
        content: 'Your week (Nov 2 - Nov 8, 2026): 0 calls, 0 minutes talked, 0 commitments kept. Your report: http://localhost:3000/reports/2026-11-08',
      },
    ])
    expect(mailsTo(withTexts.email)).toHaveLength(1)
  })
})

describe('what a stopped process left', () => {
  it('writes the figures of a claim left without them, sends a delivery whose job was lost, and never resends a send that did not finish', async () => {
    const clock = fakeClock(at('2026-11-09T12:00:00Z'))
    const running = await clockedApp(clock)
    try {
      const week = { weekEnding: '2026-11-08', timeZone: 'America/New_York', periodStart: at('2026-11-01T23:00:00Z'), periodEnd: at('2026-11-08T23:00:00Z') }
      const unwritten = await member('America/New_York', clock.now())
      const undelivered = await member('America/New_York', clock.now())
      const halfSent = await member('America/New_York', clock.now())
      const claimedAt = at('2026-11-09T11:40:00Z')
      const content: WeeklyReportContent = {
        calls: { completed: 0, missed: 0, secondsTalked: 0, minutesTalked: 0 },
        areasDiscussed: [],
        commitments: { made: 0, kept: 0, missed: 0, open: 0 },
        mood: { points: [], average: null, previousAverage: null, trend: null },
        scores: [],
      }
      await database.db.insert(weeklyReports).values([
        { userId: unwritten.id, ...week, createdAt: claimedAt },
        { userId: undelivered.id, ...week, content, generatedAt: claimedAt, createdAt: claimedAt },
        { userId: halfSent.id, ...week, content, generatedAt: claimedAt, createdAt: claimedAt, emailStatus: 'sending', emailClaimedAt: claimedAt },
      ])
      // The sweep (every 5 minutes) finds them.
      await running.jumpTo(at('2026-11-09T12:05:00Z'))
      expect((await reportsOf(unwritten.id))[0]).toMatchObject({ emailStatus: 'sent', generatedAt: at('2026-11-09T12:05:00Z') })
      expect((await reportsOf(unwritten.id))[0]!.content!.scores).toHaveLength(8)
      expect((await reportsOf(undelivered.id))[0]).toMatchObject({ emailStatus: 'sent' })
      expect((await reportsOf(halfSent.id))[0]).toMatchObject({ emailStatus: 'failed', emailSkipReason: 'sender_lost' })
      expect(mailsTo(unwritten.email)).toHaveLength(1)
      expect(mailsTo(undelivered.email)).toHaveLength(1)
      expect(mailsTo(halfSent.email)).toEqual([])
    } finally {
      await running.app.close()
    }
  })
})

describe('on the embedded PGlite', () => {
  it('claims, writes, sends and unsubscribes the same way', async () => {
    const pglite = await createTestDatabase('pglite')
    const clock = fakeClock(at('2026-11-08T22:30:00Z'))
    const running = await clockedApp(clock, pglite)
    try {
      const user = await member('America/New_York', clock.now(), { on: pglite })
      await running.jumpTo(at('2026-11-08T23:00:00Z'))
      const [report] = await pglite.db.select().from(weeklyReports).where(eq(weeklyReports.userId, user.id))
      expect(report).toMatchObject({ weekEnding: '2026-11-08', emailStatus: 'sent' })
      const url = new URL(oneClickUrl(mailsTo(user.email)[0]!)!)
      const response = await running.app.inject({ method: 'POST', url: `${url.pathname}${url.search}`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'List-Unsubscribe=One-Click' })
      expect(response.json()).toEqual({ unsubscribed: true, changed: true })
    } finally {
      await running.app.close()
      await pglite.destroy()
    }
  })
})

describe('exactly once per person-week', () => {
  it('with two in-process schedulers over one database ticking at the same instant', async () => {
    const clock = fakeClock(at('2026-11-22T22:00:00Z'))
    const first = await clockedApp(clock)
    const second = await clockedApp(clock)
    try {
      const people = await Promise.all(Array.from({ length: 12 }, (_, index) => member(index % 2 ? 'America/New_York' : 'America/Bogota', clock.now())))
      const due = at('2026-11-22T23:00:00Z') // 6:00 PM in New York (EST) and in Bogotá
      clock.set(due)
      first.timers.advanceTo(due)
      second.timers.advanceTo(due)
      await Promise.all([first.app.jobRunner!.drain(), second.app.jobRunner!.drain()])
      await Promise.all([first.settle(), second.settle()])
      for (const person of people) {
        expect(await reportsOf(person.id)).toMatchObject([{ weekEnding: '2026-11-22', emailStatus: 'sent' }])
        expect(mailsTo(person.email)).toHaveLength(1)
      }
      // Both keep ticking: nothing more.
      await Promise.all([first.jumpTo(at('2026-11-23T01:00:00Z')), second.jumpTo(at('2026-11-23T01:00:00Z'))])
      for (const person of people) expect(mailsTo(person.email)).toHaveLength(1)
    } finally {
      await first.app.close()
      await second.app.close()
    }
  })

  it('with two BullMQ workers running the tick at once', async () => {
    const redis = await createTestRedis()
    const connection = new Redis(redis.url, { maxRetriesPerRequest: null })
    const prefix = `mc-test-bull-${randomBytes(4).toString('hex')}`
    const jobs = JOBS.filter((job) => job.queue === 'reports')
    const clock = fakeClock(at('2026-11-29T23:00:00Z'))
    const workers = []
    const enqueuers = []
    const queue = new Queue('reports', { connection, prefix })
    const events = new QueueEvents('reports', { connection: connection.duplicate(), prefix })
    try {
      const people = await Promise.all(Array.from({ length: 10 }, () => member('America/New_York', clock.now())))
      for (let i = 0; i < 2; i++) {
        const enqueuer = createBullmqEnqueuer({ jobs, connection, prefix })
        enqueuers.push(enqueuer)
        const services = createServices(testConfig(ENV()), { db: database.db, redis: connection, clock, log, redisPrefix: `${prefix}:`, jobs: enqueuer })
        workers.push(await startBullmqWorkers({ jobs, services, connection, prefix, log }))
      }
      await events.waitUntilReady()
      const ticks = await Promise.all(enqueuers.map((enqueuer, index) => enqueuer.enqueue('weekly-reports', {}, { jobId: `tick-${index}` })))
      const results = (await Promise.all(ticks.map(async (id) => (await queue.getJob(id))!.waitUntilFinished(events, 30_000)))) as Array<{ claimed: number }>
      // Between them the two ticks claimed each report of the week once (this file's other members too).
      const rows = await database.db.select().from(weeklyReports).where(eq(weeklyReports.weekEnding, '2026-11-29'))
      expect(results.map((result) => result.claimed).reduce((sum, claimed) => sum + claimed, 0)).toBe(rows.length)
      const ours = rows.filter((row) => people.some((person) => person.id === row.userId))
      expect(ours).toHaveLength(10)
      await Promise.all(ours.map(async (row) => (await queue.getJob(`weekly-report-${row.id}`))!.waitUntilFinished(events, 30_000)))
      for (const person of people) {
        expect(await reportsOf(person.id)).toMatchObject([{ weekEnding: '2026-11-29', emailStatus: 'sent' }])
        expect(mailsTo(person.email)).toHaveLength(1)
      }
    } finally {
      await Promise.all(workers.map((running) => running.close()))
      await Promise.all(enqueuers.map((enqueuer) => enqueuer.close()))
      await events.close()
      await queue.obliterate({ force: true })
      await queue.close()
      await connection.quit()
      await redis.destroy()
    }
  })
})
