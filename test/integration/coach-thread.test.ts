/**
 * Direct coach access (docs/decisions/079) on a real PostgreSQL, with notices over real SMTP to a
 * sink: an Elite member and their coach write to each other, each side's live channel hears the
 * other's messages and read receipts, crisis words get the resources at once and flag the member,
 * the daily cap answers 409 naming the field, and a notice of unread messages goes out once per
 * 15 minutes per side (the member's also by text when their texts are on, once per run of unread
 * messages, and not at all once they have read them).
 */
import { and, eq } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { COACH_MESSAGES_PER_DAY, CoachMembersResponseSchema, CoachThreadResponseSchema, MemberThreadResponseSchema, SendCoachMessageResponseSchema, type CoachThreadEvent } from '#common/coach'
import { buildApp } from '#server/app'
import { auditEvents, coachMessages, coachProfiles, textMessages } from '#server/db/schema'
import { testConfig } from '../helpers/app'
import { fakeClock } from '../helpers/clock'
import { setConsent } from '../helpers/factories'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { startSmtpSink } from '../helpers/smtp-sink'
import { signedInStaff, type StaffMember } from '../helpers/staff'
import { signedInUser, type SignedIn } from '../helpers/users'

let database: TestDatabase
let app: FastifyInstance
let smtp: Awaited<ReturnType<typeof startSmtpSink>>
let dana: StaffMember
const clock = fakeClock(new Date('2026-12-01T15:00:00Z'))

beforeAll(async () => {
  database = await createTestDatabase()
  smtp = await startSmtpSink()
  app = await buildApp(testConfig({ SMTP_URL: smtp.url }), { database, clock, logger: false })
  await app.ready()
  dana = await signedInStaff(app, ['coach'], { fullName: 'Dana Lee' })
  await database.db.insert(coachProfiles).values({ userId: dana.user.id, maxMembers: 100, updatedAt: clock.now() })
})

afterAll(async () => {
  await app?.close()
  await smtp?.close()
  await database?.destroy()
})

type Headers = Record<string, string>
const get = (url: string, headers: Headers) => app.inject({ method: 'GET', url, headers })
const post = (url: string, headers: Headers, payload: Record<string, unknown>) => app.inject({ method: 'POST', url, headers, payload })

/** An Elite member with Dana as their coach. */
async function eliteMember(fullName = 'Eli Elite'): Promise<SignedIn> {
  const member = await signedInUser(app, { paid: 'elite', fullName })
  expect((await get('/api/coach', member.headers)).json()).toMatchObject({ status: 'assigned', coach: { coachId: dana.user.id } })
  return member
}

/** What `userId`'s live channel hears until `count` events came. */
function listen(userId: string, count: number): { events: CoachThreadEvent[]; done: Promise<void>; stop(): void } {
  const events: CoachThreadEvent[] = []
  let release!: () => void
  const done = new Promise<void>((resolve) => (release = resolve))
  const subscription = app.services.coach.thread.watch(userId, (event) => {
    events.push(event)
    if (events.length >= count) release()
  })
  return { events, done, stop: () => subscription.unsubscribe() }
}

describe('the thread', () => {
  it('carries both sides, live, with read receipts; the coach’s read is audited; another coach gets 404', async () => {
    const member = await eliteMember('Tia Thread')
    const coachHears = listen(dana.user.id, 1)
    const sent = await post('/api/coach/messages', member.headers, { body: 'Can we move my call to 7?' })
    expect(sent.statusCode).toBe(201)
    expect(SendCoachMessageResponseSchema.parse(sent.json())).toMatchObject({ message: { from: 'member', readAt: null }, crisisResources: null })
    await coachHears.done
    coachHears.stop()
    expect(coachHears.events[0]).toMatchObject({ type: 'coach-message', memberId: member.user.id, message: { body: 'Can we move my call to 7?' } })

    const listed = CoachMembersResponseSchema.parse((await get('/api/staff/coach/members', dana.headers)).json()).members.find((m) => m.memberId === member.user.id)
    expect(listed).toMatchObject({ unread: 1, urgent: false })

    // The coach opens the thread: the member's message is read, and the member hears it.
    const memberHears = listen(member.user.id, 2)
    const opened = MemberThreadResponseSchema.parse((await get(`/api/staff/coach/members/${member.user.id}/messages`, dana.headers)).json())
    expect(opened.messages).toHaveLength(1)
    const [audited] = await database.db.select().from(auditEvents).where(and(eq(auditEvents.subjectUserId, member.user.id), eq(auditEvents.action, 'coach_messages_viewed')))
    expect(audited).toMatchObject({ actorUserId: dana.user.id })
    const replied = await post(`/api/staff/coach/members/${member.user.id}/messages`, dana.headers, { body: 'Yes, 7 works. Done!' })
    expect(replied.statusCode).toBe(201)
    await memberHears.done
    memberHears.stop()
    expect(memberHears.events.map((event) => event.type)).toEqual(['coach-messages-read', 'coach-message'])

    const thread = CoachThreadResponseSchema.parse((await get('/api/coach/messages', member.headers)).json())
    expect(thread.coach).toMatchObject({ fullName: 'Dana Lee', replyPromise: 'Dana usually replies within 4 business hours.' })
    expect(thread.messages.map((m) => [m.from, m.body, m.readAt !== null])).toEqual([
      ['member', 'Can we move my call to 7?', true],
      ['coach', 'Yes, 7 works. Done!', true],
    ])

    const other = await signedInStaff(app, ['coach'])
    expect((await get(`/api/staff/coach/members/${member.user.id}/messages`, other.headers)).statusCode).toBe(404)
    expect((await post(`/api/staff/coach/members/${member.user.id}/messages`, other.headers, { body: 'hi' })).statusCode).toBe(404)
  })

  it('answers crisis words with where help is, and flags the member until the coach reads it', async () => {
    const member = await eliteMember('Cal Crisis')
    const sent = SendCoachMessageResponseSchema.parse((await post('/api/coach/messages', member.headers, { body: "Honestly I want to die, nothing is working" })).json())
    expect(sent.crisisResources).toContain('988')
    expect(sent.crisisResources).toContain('Dana will read your message')
    const flagged = async () => CoachMembersResponseSchema.parse((await get('/api/staff/coach/members', dana.headers)).json())
    expect((await flagged()).members.find((m) => m.memberId === member.user.id)).toMatchObject({ urgent: true })
    await get(`/api/staff/coach/members/${member.user.id}/messages`, dana.headers)
    expect((await flagged()).members.find((m) => m.memberId === member.user.id)).toMatchObject({ urgent: false })
    // A figure of speech is no crisis.
    const fine = SendCoachMessageResponseSchema.parse((await post('/api/coach/messages', member.headers, { body: 'This workout is killing me' })).json())
    expect(fine.crisisResources).toBeNull()
  })

  it('caps a member at 50 messages a day (409 naming the field), refuses other plans (403) and bad input (400)', async () => {
    const member = await eliteMember()
    await database.db
      .insert(coachMessages)
      .values(Array.from({ length: COACH_MESSAGES_PER_DAY }, (_, i) => ({ memberUserId: member.user.id, coachUserId: dana.user.id, from: 'member' as const, body: `m${i}`, createdAt: clock.now() })))
    const over = await post('/api/coach/messages', member.headers, { body: 'one more' })
    expect(over.statusCode).toBe(409)
    expect(over.json().error).toMatchObject({ code: 'COACH_MESSAGE_LIMIT', field: 'body' })
    const tooLong = await post('/api/coach/messages', member.headers, { body: 'x'.repeat(4_001) })
    expect(tooLong.statusCode).toBe(400)
    expect(tooLong.json().error.field).toBe('body')

    const premium = await signedInUser(app, { paid: 'premium' })
    for (const refused of [await get('/api/coach/messages', premium.headers), await post('/api/coach/messages', premium.headers, { body: 'hi' })]) {
      expect(refused.statusCode).toBe(403)
      expect(refused.json().error.code).toBe('ELITE_REQUIRED')
    }
  })
})

describe('notices of unread messages', () => {
  it('email the other side after 2 minutes unread, at most once per 15 minutes', async () => {
    const member = await eliteMember('Nora Notice')
    await post('/api/coach/messages', member.headers, { body: 'First' })
    expect((await app.services.coach.thread.sendNotices()).sent).toBe(0)
    clock.advance(3 * 60 * 1000)
    expect((await app.services.coach.thread.sendNotices()).sent).toBeGreaterThanOrEqual(1)
    const mail = await smtp.waitForMail(dana.user.email, /^Nora Notice wrote to you$/)
    expect(mail.text).toContain('Nora Notice sent you a message')
    expect(mail.text).toContain(`/coach?member=${member.user.id}`)

    // A second message within 15 minutes: no second notice yet.
    await post('/api/coach/messages', member.headers, { body: 'Second' })
    clock.advance(3 * 60 * 1000)
    await app.services.coach.thread.sendNotices()
    const covered = await database.db.select().from(coachMessages).where(and(eq(coachMessages.memberUserId, member.user.id), eq(coachMessages.body, 'Second')))
    expect(covered[0]!.notifiedAt).toBeNull()
    clock.advance(15 * 60 * 1000)
    await app.services.coach.thread.sendNotices()
    const later = await database.db.select().from(coachMessages).where(and(eq(coachMessages.memberUserId, member.user.id), eq(coachMessages.body, 'Second')))
    expect(later[0]!.notifiedAt).not.toBeNull()
  })

  it("text the member too when their texts are on: the coach's name and the link, never the words; once per run of unread messages", async () => {
    const member = await eliteMember('Tess Texts')
    const quiet = await eliteMember('Quinn Quiet')
    await setConsent(database.db, member.user.id, 'texts', true, clock.now())
    const textsOf = (userId: string) => database.db.select().from(textMessages).where(and(eq(textMessages.userId, userId), eq(textMessages.kind, 'coach_message')))

    clock.advance(16 * 60 * 1000)
    for (const who of [member, quiet]) await post(`/api/staff/coach/members/${who.user.id}/messages`, dana.headers, { body: 'How did the 6 AM run go? Private words.' })
    clock.advance(3 * 60 * 1000)
    await app.services.coach.thread.sendNotices()
    await smtp.waitForMail(member.user.email, /^Your coach Dana Lee wrote to you$/)
    const [text] = await textsOf(member.user.id)
    expect(text!.content).toBe(`Your coach Dana sent you a message. Read and reply: ${app.config.appUrl.replace(/\/$/, '')}/messages`)
    expect(text!.content).not.toContain('Private')
    // Texts off: the email only.
    await smtp.waitForMail(quiet.user.email, /^Your coach Dana Lee wrote to you$/)
    expect(await textsOf(quiet.user.id)).toHaveLength(0)

    // More from the coach before the member reads: an email after 15 minutes, no second text.
    await post(`/api/staff/coach/members/${member.user.id}/messages`, dana.headers, { body: 'And the stretch?' })
    clock.advance(16 * 60 * 1000)
    await app.services.coach.thread.sendNotices()
    expect(await textsOf(member.user.id)).toHaveLength(1)
  })

  it("withdraw a text still held for the night once the member reads their coach's messages", async () => {
    const member = await eliteMember('Nina Night')
    await setConsent(database.db, member.user.id, 'texts', true, clock.now())
    const textOf = async () => (await database.db.select().from(textMessages).where(and(eq(textMessages.userId, member.user.id), eq(textMessages.kind, 'coach_message'))))[0]
    // 11:30 PM in New York (the member's zone): outside the hours texts go out in.
    clock.set(new Date('2026-12-03T04:30:00Z'))
    await post(`/api/staff/coach/members/${member.user.id}/messages`, dana.headers, { body: 'Sleep well, talk tomorrow.' })
    clock.advance(3 * 60 * 1000)
    await app.services.coach.thread.sendNotices()
    await app.services.texts.release()
    expect(await textOf()).toMatchObject({ status: 'held' })

    expect((await get('/api/coach/messages', member.headers)).statusCode).toBe(200)
    expect(await textOf()).toMatchObject({ status: 'skipped', skipReason: 'read' })
    // The morning's release sends nothing.
    clock.set(new Date('2026-12-03T13:30:00Z'))
    await app.services.texts.release()
    expect(await textOf()).toMatchObject({ status: 'skipped', skipReason: 'read' })
  })
})
