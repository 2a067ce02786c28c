/**
 * Elite's 1-on-1 sessions (docs/decisions/082) on a real PostgreSQL, invitations over real SMTP to a
 * sink, on a test clock: 100 members holding one slot at once get one hold and 99 SLOT_TAKEN (the
 * exclusion constraint decides), holds lapse, the 24-hour rule, one session a month in the member's
 * zone, slots across the DST weeks of the coach's zone and the member's, reminders sent once across
 * two runners, and invitations read by an independent iCalendar parser (ical.js): the start instant,
 * one UID, SEQUENCE raised by a move, METHOD:CANCEL on cancel.
 */
import ICAL from 'ical.js'
import { and, eq } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import PostalMime from 'postal-mime'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CoachSessionsResponseSchema, HoldResponseSchema, MemberSessionsResponseSchema, SessionResponseSchema, SlotsResponseSchema } from '#common/coach-sessions'
import { createSession } from '#server/auth/session'
import { buildApp } from '#server/app'
import { coachAvailability, coachProfiles, coachSessions, memoryEpisodes, profiles, textMessages } from '#server/db/schema'
import { testConfig } from '../helpers/app'
import { fakeClock } from '../helpers/clock'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { setConsent } from '../helpers/factories'
import { startSmtpSink, type CapturedMail } from '../helpers/smtp-sink'
import { signedInStaff, type StaffMember } from '../helpers/staff'
import { signedInUser, type SignedIn } from '../helpers/users'

let database: TestDatabase
let app: FastifyInstance
let smtp: Awaited<ReturnType<typeof startSmtpSink>>
let dana: StaffMember
// Wednesday 10 March 2027, 4:00 AM in Los Angeles (PST); the US moves to summer time on Sunday 14 March, the UK on 28 March.
const clock = fakeClock(new Date('2027-03-10T12:00:00Z'))
const MINUTE = 60_000
const HOUR = 60 * MINUTE

beforeAll(async () => {
  database = await createTestDatabase()
  smtp = await startSmtpSink()
  app = await buildApp(testConfig({ SMTP_URL: smtp.url }), { database, clock, logger: false })
  await app.ready()
  dana = await signedInStaff(app, ['coach'], { fullName: 'Dana Lee' })
  // Dana coaches from Los Angeles, 9 to 12 on weekdays, with a 15-minute buffer after each session.
  await database.db.insert(coachProfiles).values({ userId: dana.user.id, timeZone: 'America/Los_Angeles', maxMembers: 500, sessionBufferMinutes: 15, updatedAt: clock.now() })
  await database.db.insert(coachAvailability).values([1, 2, 3, 4, 5].map((weekday) => ({ coachUserId: dana.user.id, weekday, startTime: '09:00', endTime: '12:00' })))
})

afterAll(async () => {
  await app?.close()
  await smtp?.close()
  await database?.destroy()
})

type Headers = Record<string, string>
const get = (url: string, headers: Headers) => app.inject({ method: 'GET', url, headers })
const post = (url: string, headers: Headers, payload?: Record<string, unknown>) => app.inject({ method: 'POST', url, headers, ...(payload ? { payload } : {}) })

/** An Elite member with Dana as their coach, living in `timeZone`. */
async function eliteMember(fullName: string, timeZone = 'Europe/London'): Promise<SignedIn> {
  const member = await signedInUser(app, { paid: 'elite', fullName })
  await database.db.update(profiles).set({ timezone: timeZone }).where(eq(profiles.id, member.user.id))
  expect((await get('/api/coach', member.headers)).json()).toMatchObject({ status: 'assigned', coach: { coachId: dana.user.id } })
  return member
}

/** A new two-factor session of a staff member (the test clock's days make sessions go idle). */
async function signedInStaffAs(staff: StaffMember): Promise<Headers> {
  const session = await createSession(app.db, app.services.clock, staff.user.id, { twoFactorVerified: true })
  return { cookie: `${app.config.secureCookies ? '__Host-session' : 'session'}=${session.token}`, origin: app.config.appOrigin }
}

async function slotsOf(member: SignedIn) {
  const response = await get('/api/coach/sessions/slots', member.headers)
  expect(response.statusCode).toBe(200)
  return SlotsResponseSchema.parse(response.json())
}

async function book(member: SignedIn, startsAt: string, extra: Record<string, unknown> = {}) {
  const held = await post('/api/coach/sessions/holds', member.headers, { startsAt, ...extra })
  expect(held.statusCode, held.body).toBe(201)
  const confirmed = await post(`/api/coach/sessions/holds/${HoldResponseSchema.parse(held.json()).holdId}/confirm`, member.headers)
  expect(confirmed.statusCode, confirmed.body).toBe(200)
  return SessionResponseSchema.parse(confirmed.json()).session
}

/** The invitation a mail carries, read by ical.js. */
async function invitationIn(mail: CapturedMail) {
  const parsed = await PostalMime.parse(mail.raw)
  const part = parsed.attachments.find((attachment) => attachment.mimeType === 'text/calendar')
  expect(part, 'a text/calendar part').toBeDefined()
  const body = typeof part!.content === 'string' ? part!.content : new TextDecoder().decode(part!.content)
  const calendar = new ICAL.Component(ICAL.parse(body))
  const event = new ICAL.Event(calendar.getFirstSubcomponent('vevent')!)
  return { method: calendar.getFirstPropertyValue('method'), uid: event.uid, sequence: event.sequence, start: event.startDate.toJSDate(), end: event.endDate.toJSDate(), status: event.component.getFirstPropertyValue('status') }
}

describe('slots', () => {
  it("follow the coach's hours in their zone across the DST change, from 24 hours ahead, and never on a day off", async () => {
    const member = await eliteMember('Sam Slots')
    const { slots, coachTimeZone, memberTimeZone } = await slotsOf(member)
    expect({ coachTimeZone, memberTimeZone }).toEqual({ coachTimeZone: 'America/Los_Angeles', memberTimeZone: 'Europe/London' })
    const starts = slots.map((slot) => slot.startsAt)
    // Nothing before the 24-hour notice: Thursday 11 March 9:00 AM PST is 17:00Z, 29 hours ahead.
    expect(starts[0]).toBe('2027-03-11T17:00:00.000Z')
    // Friday 9:00 AM PST (17:00Z); Monday after the change 9:00 AM PDT (16:00Z); the last of a morning starts 11:15.
    expect(starts).toContain('2027-03-12T17:00:00.000Z')
    expect(starts).toContain('2027-03-15T16:00:00.000Z')
    expect(starts).not.toContain('2027-03-15T15:45:00.000Z')
    expect(starts).toContain('2027-03-15T18:15:00.000Z')
    expect(starts).not.toContain('2027-03-15T18:30:00.000Z')
    // No weekend, and nothing beyond the 30-day horizon.
    expect(starts.some((start) => start.startsWith('2027-03-13') || start.startsWith('2027-03-14'))).toBe(false)
    expect(starts.every((start) => new Date(start).getTime() <= clock.now().getTime() + 30 * 24 * HOUR)).toBe(true)
    // After the UK's change (28 March) the member's 5:00 PM is still Dana's 9:00 AM: the same instant rule.
    expect(starts).toContain('2027-03-29T16:00:00.000Z')

    // A day off takes the day's slots away; extra hours add some.
    await app.inject({
      method: 'PUT',
      url: '/api/staff/coach/availability',
      headers: dana.headers,
      payload: {
        weekly: [1, 2, 3, 4, 5].map((weekday) => ({ weekday, startTime: '09:00', endTime: '12:00' })),
        exceptions: [
          { date: '2027-03-12', kind: 'off' },
          { date: '2027-03-13', kind: 'extra', startTime: '10:00', endTime: '11:00' },
        ],
        bufferMinutes: 15,
        minNoticeHours: 24,
        horizonDays: 30,
      },
    })
    const after = (await slotsOf(member)).slots.map((slot) => slot.startsAt)
    expect(after.some((start) => start.startsWith('2027-03-12'))).toBe(false)
    expect(after.filter((start) => start.startsWith('2027-03-13'))).toEqual(['2027-03-13T18:00:00.000Z', '2027-03-13T18:15:00.000Z'])
  })

  it('are for Elite: Premium is told what Elite adds (403 ELITE_REQUIRED)', async () => {
    const premium = await signedInUser(app, { paid: 'premium' })
    for (const refused of [await get('/api/coach/sessions', premium.headers), await get('/api/coach/sessions/slots', premium.headers), await post('/api/coach/sessions/holds', premium.headers, { startsAt: '2027-03-15T16:00:00Z' })]) {
      expect(refused.statusCode).toBe(403)
      expect(refused.json().error).toMatchObject({ code: 'ELITE_REQUIRED', message: expect.stringContaining('1-on-1') })
    }
  })
})

describe('booking', () => {
  it('100 members holding one slot at once: exactly one hold, 99 refusals naming the slot, and one booking', async () => {
    const members = await Promise.all(Array.from({ length: 100 }, (_, i) => eliteMember(`Racer ${i}`)))
    const startsAt = '2027-03-16T16:00:00.000Z'
    const answers = await Promise.all(members.map((member) => post('/api/coach/sessions/holds', member.headers, { startsAt })))
    const won = answers.filter((answer) => answer.statusCode === 201)
    const refused = answers.filter((answer) => answer.statusCode === 409)
    expect(won).toHaveLength(1)
    expect(refused).toHaveLength(99)
    for (const answer of refused) expect(answer.json().error).toMatchObject({ code: 'SLOT_TAKEN', field: 'startsAt' })
    const winner = members[answers.indexOf(won[0]!)]!
    const confirmed = await post(`/api/coach/sessions/holds/${won[0]!.json().holdId}/confirm`, winner.headers)
    expect(confirmed.statusCode).toBe(200)
    const live = await database.db.select().from(coachSessions).where(and(eq(coachSessions.coachUserId, dana.user.id), eq(coachSessions.startsAt, new Date(startsAt))))
    expect(live.map((row) => row.status)).toEqual(['booked'])
    // The slot is gone from everyone's list, and the one 15 minutes later too (the session and its buffer).
    const starts = (await slotsOf(members[0]!)).slots.map((slot) => slot.startsAt)
    expect(starts).not.toContain(startsAt)
    expect(starts).not.toContain('2027-03-16T16:45:00.000Z')
    expect(starts).toContain('2027-03-16T17:00:00.000Z')
  })

  it('the database itself refuses an overlapping booking written past the service', async () => {
    const [row] = await database.db.select().from(coachSessions).where(and(eq(coachSessions.coachUserId, dana.user.id), eq(coachSessions.status, 'booked'))).limit(1)
    const copy = { ...row!, id: undefined, memberUserId: row!.memberUserId, month: 'copy', startsAt: new Date(row!.startsAt.getTime() + 30 * MINUTE), endsAt: new Date(row!.endsAt.getTime() + 30 * MINUTE), blockedUntil: new Date(row!.blockedUntil.getTime() + 30 * MINUTE) }
    await expect(database.db.insert(coachSessions).values(copy)).rejects.toMatchObject({ cause: { code: '23P01' } })
  })

  it('a hold lapses after 5 minutes: its confirm is refused, and the slot is free again', async () => {
    const first = await eliteMember('Hana Hold')
    const second = await eliteMember('Ivo Later')
    const startsAt = '2027-03-17T17:00:00.000Z'
    const held = HoldResponseSchema.parse((await post('/api/coach/sessions/holds', first.headers, { startsAt })).json())
    expect(new Date(held.expiresAt).getTime() - clock.now().getTime()).toBe(5 * MINUTE)
    expect((await post('/api/coach/sessions/holds', second.headers, { startsAt })).json().error.code).toBe('SLOT_TAKEN')
    clock.advance(5 * MINUTE + 1000)
    const late = await post(`/api/coach/sessions/holds/${held.holdId}/confirm`, first.headers)
    expect(late.statusCode).toBe(409)
    expect(late.json().error).toMatchObject({ code: 'HOLD_EXPIRED', field: 'holdId' })
    await book(second, startsAt)
  })

  it("one session a month in the member's zone: a second is refused, next month's is not", async () => {
    // Auckland is 13 hours ahead in March: Dana's Wednesday 31 March 9:00 AM is the member's Thursday 1 April.
    const member = await eliteMember('Mere Month', 'Pacific/Auckland')
    await book(member, '2027-03-18T17:00:00.000Z')
    const again = await post('/api/coach/sessions/holds', member.headers, { startsAt: '2027-03-19T17:00:00.000Z' })
    expect(again.statusCode).toBe(409)
    expect(again.json().error).toMatchObject({ code: 'SESSION_ALREADY_USED', field: 'startsAt' })
    const april = await book(member, '2027-03-31T16:00:00.000Z')
    expect(april.status).toBe('booked')
    const overview = MemberSessionsResponseSchema.parse((await get('/api/coach/sessions', member.headers)).json())
    expect(overview.month).toEqual({ month: '2027-03', used: true })
    expect(overview.sessions).toHaveLength(2)
  })

  it('24 hours before: a move or an in-time cancel gives the month back; later, a move is refused and a cancel uses the month', async () => {
    clock.set(new Date('2027-03-18T12:00:00Z'))
    const member = await eliteMember('Rae Reschedule')
    const session = await book(member, '2027-03-22T16:00:00.000Z')
    const booked = await smtp.waitForMail(member.user.email, /^Booked: 1-on-1 coaching session on Monday, March 22 at 4:00 PM \(Europe\/London\)$/)
    const request = await invitationIn(booked)
    expect(request).toMatchObject({ method: 'REQUEST', sequence: 0, status: 'CONFIRMED' })
    expect(request.start.toISOString()).toBe('2027-03-22T16:00:00.000Z')
    expect(request.end.toISOString()).toBe('2027-03-22T16:45:00.000Z')
    expect(booked.text).toContain('Add to Google Calendar: https://calendar.google.com/')
    expect(booked.text).toContain('Add to Outlook: https://outlook.live.com/')
    await smtp.waitForMail(dana.user.email, /^Booked: 1-on-1 coaching session on Monday, March 22 at 9:00 AM \(America\/Los_Angeles\)$/)

    // Moved: the same UID, SEQUENCE 1, the new instant.
    await book(member, '2027-03-23T16:30:00.000Z', { movesSessionId: session.id })
    const moved = await invitationIn(await smtp.waitForMail(member.user.email, /^Moved: /))
    expect(moved).toMatchObject({ method: 'REQUEST', uid: request.uid, sequence: 1 })
    expect(moved.start.toISOString()).toBe('2027-03-23T16:30:00.000Z')
    const [row] = await database.db.select().from(coachSessions).where(eq(coachSessions.id, session.id))
    expect(row).toMatchObject({ status: 'booked', sequence: 1 })

    // Cancelled in time: METHOD:CANCEL, SEQUENCE 2, and the month is free again.
    const cancelled = await post(`/api/coach/sessions/${session.id}/cancel`, member.headers)
    expect(SessionResponseSchema.parse(cancelled.json()).session).toMatchObject({ status: 'cancelled', counts: false })
    const cancel = await invitationIn(await smtp.waitForMail(member.user.email, /^Cancelled: /))
    expect(cancel).toMatchObject({ method: 'CANCEL', uid: request.uid, sequence: 2, status: 'CANCELLED' })
    expect(MemberSessionsResponseSchema.parse((await get('/api/coach/sessions', member.headers)).json()).month.used).toBe(false)

    // Within 24 hours: no move; a cancel counts as the month's session.
    const late = await book(member, '2027-03-24T16:00:00.000Z')
    clock.set(new Date('2027-03-23T20:00:00Z'))
    const move = await post('/api/coach/sessions/holds', member.headers, { startsAt: '2027-03-26T16:00:00.000Z', movesSessionId: late.id })
    expect(move.statusCode).toBe(409)
    expect(move.json().error).toMatchObject({ code: 'SESSION_CHANGE_CLOSED', field: 'movesSessionId' })
    const lateCancel = await post(`/api/coach/sessions/${late.id}/cancel`, member.headers)
    expect(SessionResponseSchema.parse(lateCancel.json()).session).toMatchObject({ status: 'cancelled', counts: true })
    expect(MemberSessionsResponseSchema.parse((await get('/api/coach/sessions', member.headers)).json()).month.used).toBe(true)
  })
})

describe('reminders', () => {
  it('go once each, 24 hours and 1 hour before, to the member and the coach, even with two runners at once; none for a cancelled session', async () => {
    const second = await buildApp(testConfig({ SMTP_URL: smtp.url }), { database, clock, logger: false })
    await second.ready()
    try {
      clock.set(new Date('2027-03-24T12:00:00Z'))
      const member = await eliteMember('Remy Reminder', 'America/New_York')
      await setConsent(database.db, member.user.id, 'texts', true, clock.now())
      const session = await book(member, '2027-03-26T16:00:00.000Z')
      const other = await eliteMember('Cleo Cancel', 'America/New_York')
      const dropped = await book(other, '2027-03-26T17:00:00.000Z')
      await post(`/api/coach/sessions/${dropped.id}/cancel`, other.headers)
      const runBoth = () => Promise.all([app.services.coachSessions.sendReminders(), second.services.coachSessions.sendReminders()])
      const remindersTo = (email: string) => smtp.mails.filter((mail) => mail.to.includes(email) && mail.subject.startsWith('Reminder:'))

      // Not yet: more than 24 hours ahead.
      await runBoth()
      expect(remindersTo(member.user.email)).toHaveLength(0)
      // 24 hours before (12:00 PM in New York): one each, whoever runs.
      clock.set(new Date('2027-03-25T16:00:00Z'))
      const [a, b] = await runBoth()
      expect(a.sent + b.sent).toBe(2)
      await runBoth()
      expect(remindersTo(member.user.email).map((mail) => mail.subject)).toEqual(['Reminder: your 1-on-1 session tomorrow, Friday, March 26 at 12:00 PM (America/New_York)'])
      expect(remindersTo(dana.user.email).filter((mail) => mail.subject.includes('9:00 AM (America/Los_Angeles)'))).toHaveLength(1)
      // 1 hour before: one more each.
      clock.set(new Date('2027-03-26T15:00:00Z'))
      await runBoth()
      await runBoth()
      expect(remindersTo(member.user.email)).toHaveLength(2)
      expect(remindersTo(other.user.email)).toHaveLength(0)
      // And by text, the member's texts being on: one per reminder.
      const texts = await database.db.select().from(textMessages).where(and(eq(textMessages.userId, member.user.id), eq(textMessages.kind, 'session_reminder')))
      expect(texts.map((text) => text.content).sort()).toEqual([
        `Reminder: your 1-on-1 coaching session is today at 12:00 PM. Details: ${app.config.appUrl.replace(/\/$/, '')}/sessions`,
        `Reminder: your 1-on-1 coaching session is tomorrow at 12:00 PM. Details: ${app.config.appUrl.replace(/\/$/, '')}/sessions`,
      ])
      const [row] = await database.db.select().from(coachSessions).where(eq(coachSessions.id, session.id))
      expect(row!.reminder24hAt).not.toBeNull()
      expect(row!.coachReminder1hAt).not.toBeNull()

      // The coach sees the member's (proven) number only from 15 minutes before the session to its end.
      const coachHeaders = await signedInStaffAs(dana)
      const phoneShown = async () => CoachSessionsResponseSchema.parse((await get('/api/staff/coach/sessions', coachHeaders)).json()).sessions.find((item) => item.id === session.id)!.memberPhone
      expect(await phoneShown()).toBeNull()
      clock.set(new Date('2027-03-26T15:50:00Z'))
      expect(await phoneShown()).toBe(member.user.phoneNumber)
      clock.set(new Date('2027-03-26T16:46:00Z'))
      expect(await phoneShown()).toBeNull()
    } finally {
      await second.close()
    }
  })
})

describe('white-glove onboarding', () => {
  it("the coach adjusts a member's 90-day goal, obstacles and call time; the member sees each change; another coach's member is refused", async () => {
    clock.set(new Date('2027-03-27T12:00:00Z'))
    // Dana signs in again (her session went idle on the test clock's days).
    const coach = await signedInStaff(app, ['coach'], { fullName: 'Dana Lee' })
    await database.db.insert(coachProfiles).values({ userId: coach.user.id, maxMembers: 0, updatedAt: clock.now() })
    const member = await eliteMember('Olive Onboard', 'America/New_York')
    const put = (headers: Headers, memberId: string, payload: Record<string, unknown>) => app.inject({ method: 'PUT', url: `/api/staff/coach/members/${memberId}/plan`, headers, payload })
    // Not Dana's second account's member: 404, as every workspace route.
    expect((await put(coach.headers, member.user.id, { goal90Days: 'x' })).statusCode).toBe(404)

    const danaAgain = await signedInStaffAs(dana)
    // New to Elite: flagged for onboarding in Dana's list.
    const listed = (await get('/api/staff/coach/members', danaAgain)).json().members.find((m: { memberId: string }) => m.memberId === member.user.id)
    expect(listed).toMatchObject({ awaitingOnboarding: true })
    const changed = await put(danaAgain, member.user.id, { goal90Days: 'Run a 10k by June', obstacles: 'Late meetings', dailyCallTime: '07:30' })
    expect(changed.statusCode, changed.body).toBe(200)
    expect(changed.json()).toEqual({ changed: ['goal_90_days', 'obstacles', 'daily_call_time'] })
    const goalsNow = (await get('/api/goals', member.headers)).json().goals.find((goal: { lifeArea: string }) => goal.lifeArea === 'specific_goals')
    expect(goalsNow.specificGoals).toMatchObject({ goal_90_days: 'Run a 10k by June', obstacles: 'Late meetings' })
    expect((await get('/api/calls/schedule', member.headers)).json()).toMatchObject({ dailyCallTime: '07:30' })
    const activity = (await get('/api/account/activity', member.headers)).json().events.map((event: { description: string }) => event.description)
    expect(activity).toEqual(expect.arrayContaining(['Dana Lee (coach) updated your 90-day goal.', 'Dana Lee (coach) updated the obstacles in your goals.', 'Dana Lee (coach) moved your daily call to 7:30 AM.']))
    // A life area's goal, in the notes the intake keeps for it.
    const area = await put(danaAgain, member.user.id, { area: { lifeArea: 'fitness', notes: 'Half marathon in the fall' } })
    expect(area.json()).toEqual({ changed: ['area_goal'] })
    expect((await get('/api/goals', member.headers)).json().goals.find((goal: { lifeArea: string }) => goal.lifeArea === 'fitness')).toMatchObject({ customNotes: 'Half marathon in the fall' })
    const later = (await get('/api/account/activity', member.headers)).json().events.map((event: { description: string }) => event.description)
    expect(later).toContain('Dana Lee (coach) updated your Fitness & Health goal.')
    // The same again changes nothing, and says so.
    expect((await put(danaAgain, member.user.id, { goal90Days: 'Run a 10k by June' })).json()).toEqual({ changed: [] })
    const bad = await put(danaAgain, member.user.id, { dailyCallTime: '07:10' })
    expect(bad.statusCode).toBe(400)
    expect(bad.json().error.field).toBe('dailyCallTime')
    // A member cannot use it.
    expect((await put(member.headers, member.user.id, { goal90Days: 'Mine' })).statusCode).toBe(404)
  })
})

describe("the coach's memory (docs/decisions/083)", () => {
  it("keeps the coach's summary of a session, with what was agreed, as an episode the next brief reads; once", async () => {
    clock.set(new Date('2027-04-05T12:00:00Z'))
    const member = await eliteMember('Mira Stone', 'America/New_York')
    const [slot] = (await slotsOf(member)).slots
    const session = await book(member, slot!.startsAt)
    clock.set(new Date(new Date(slot!.startsAt).getTime() + 50 * MINUTE))
    await app.services.coachSessions.coach.complete(dana.user.id, session.id, { summary: 'We mapped out the half marathon.', commitments: ['Run 3 times', 'Sleep by 11'] })
    const episodes = await database.db.select().from(memoryEpisodes).where(eq(memoryEpisodes.userId, member.user.id))
    expect(episodes.map((episode) => [episode.channel, episode.sourceId, episode.summary, episode.occurredAt.toISOString()])).toEqual([
      ['coach_session', session.id, 'We mapped out the half marathon. Agreed: Run 3 times; Sleep by 11.', new Date(slot!.startsAt).toISOString()],
    ])
    const brief = await app.services.memory.brief(member.user.id)
    expect(brief!.text).toContain('1-on-1 with their human coach: We mapped out the half marathon. Agreed: Run 3 times; Sleep by 11.')
  })
})
