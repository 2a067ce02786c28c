/**
 * Priority support (docs/decisions/077): the Help page's requests and the support inbox, on a real
 * PostgreSQL, with replies emailed over real SMTP to a sink. A person sees only their own requests
 * and never support's notes; support sees the account and billing state, never coaching data; each
 * staff read and change is in the audit log; the caps answer 409 naming the field.
 */
import { randomUUID } from 'node:crypto'
import { and, eq } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { InboxTicketResponseSchema, SupportInboxResponseSchema, SupportTicketResponseSchema, SupportTicketsResponseSchema, SUPPORT_MESSAGES_PER_TICKET_MAX } from '#common/support'
import { buildApp } from '#server/app'
import { auditEvents, supportCannedReplies, supportMessages, supportTickets } from '#server/db/schema'
import { testConfig } from '../helpers/app'
import { fakeClock } from '../helpers/clock'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { startSmtpSink } from '../helpers/smtp-sink'
import { signedInStaff, type StaffMember } from '../helpers/staff'
import { signedInUser, type SignedIn } from '../helpers/users'

let database: TestDatabase
let app: FastifyInstance
let smtp: Awaited<ReturnType<typeof startSmtpSink>>
let agent: StaffMember
// Tuesday 2026-12-01, 10:00 in New York (support's hours: 9 to 5 Eastern).
const clock = fakeClock(new Date('2026-12-01T15:00:00Z'))

beforeAll(async () => {
  database = await createTestDatabase()
  smtp = await startSmtpSink()
  app = await buildApp(testConfig({ SMTP_URL: smtp.url }), { database, clock, logger: false })
  await app.ready()
  agent = await signedInStaff(app, ['support'], { fullName: 'Sam Rivera' })
})

afterAll(async () => {
  await app?.close()
  await smtp?.close()
  await database?.destroy()
})

type Headers = Record<string, string>
const post = (url: string, headers: Headers, payload: unknown) => app.inject({ method: 'POST', url, headers, payload: payload as Record<string, unknown> })
const get = (url: string, headers: Headers) => app.inject({ method: 'GET', url, headers })

async function openTicket(person: SignedIn, message = 'My call did not come this morning.', extra: Record<string, unknown> = {}) {
  const response = await post('/api/support/tickets', person.headers, { topic: 'calls', message, ...extra })
  expect(response.statusCode).toBe(201)
  return SupportTicketResponseSchema.parse(response.json()).ticket
}

describe('the Help page: a person and their requests', () => {
  it('opens a request with the context the app sends, lists it, and shows it only to its owner', async () => {
    const member = await signedInUser(app, { paid: 'basic', fullName: 'Bea Basic' })
    const ticket = await openTicket(member, 'The page said something went wrong.', { topic: 'app', context: { page: '/goal-intake', errorCode: 'INTERNAL' } })
    expect(ticket).toMatchObject({ topic: 'app', status: 'open', lastFrom: 'you', reference: expect.stringMatching(/^#[0-9A-F]{6}$/) })
    expect(ticket.messages).toEqual([expect.objectContaining({ from: 'you', authorName: null, body: 'The page said something went wrong.' })])

    const [row] = await database.db.select().from(supportTickets).where(eq(supportTickets.id, ticket.id))
    expect(row).toMatchObject({ userId: member.user.id, priority: 'basic', plan: 'basic', context: { page: '/goal-intake', errorCode: 'INTERNAL' } })
    // Basic: two business days from Tuesday 10:00 Eastern is Thursday 10:00 Eastern.
    expect(row!.firstResponseDueAt.toISOString()).toBe('2026-12-03T15:00:00.000Z')

    const list = SupportTicketsResponseSchema.parse((await get('/api/support/tickets', member.headers)).json())
    expect(list.priority).toBe('basic')
    expect(list.tickets.map((t) => t.id)).toEqual([ticket.id])

    const stranger = await signedInUser(app)
    expect((await get(`/api/support/tickets/${ticket.id}`, stranger.headers)).statusCode).toBe(404)
    expect((await post(`/api/support/tickets/${ticket.id}/messages`, stranger.headers, { message: 'mine now' })).statusCode).toBe(404)
    expect(SupportTicketsResponseSchema.parse((await get('/api/support/tickets', stranger.headers)).json()).tickets).toEqual([])
    expect((await get('/api/support/tickets/not-a-uuid', member.headers)).statusCode).toBe(404)
  })

  it('needs a session, and refuses bad input with 400 naming the field', async () => {
    expect((await app.inject({ method: 'GET', url: '/api/support/tickets' })).statusCode).toBe(401)
    const person = await signedInUser(app)
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ topic: 'refunds', message: 'hi' }, 'topic'],
      [{ topic: 'other', message: '   ' }, 'message'],
      [{ topic: 'other', message: 'x'.repeat(4_001) }, 'message'],
      [{ topic: 'other', message: 'hi', context: { page: 'https://evil.example/' } }, 'context.page'],
      [{ topic: 'other', message: 'hi', context: { errorCode: 'not a code' } }, 'context.errorCode'],
    ]
    for (const [payload, field] of cases) {
      const response = await post('/api/support/tickets', person.headers, payload)
      expect(response.statusCode, JSON.stringify(payload).slice(0, 80)).toBe(400)
      expect(response.json().error.field).toBe(field)
    }
    expect(await database.db.select().from(supportTickets).where(eq(supportTickets.userId, person.user.id))).toEqual([])
  })

  it('keeps at most 5 requests open at once, and a request at most 200 messages', async () => {
    const person = await signedInUser(app, { paid: 'premium' })
    const tickets = []
    for (let i = 0; i < 5; i++) tickets.push(await openTicket(person, `question ${i}`))
    const sixth = await post('/api/support/tickets', person.headers, { topic: 'other', message: 'one more' })
    expect(sixth.statusCode).toBe(409)
    expect(sixth.json().error).toMatchObject({ code: 'SUPPORT_TICKET_LIMIT', field: 'topic' })

    // Resolved, one no longer counts.
    expect((await app.inject({ method: 'PUT', url: `/api/staff/support/tickets/${tickets[0]!.id}/status`, headers: agent.headers, payload: { status: 'resolved' } })).statusCode).toBe(200)
    await openTicket(person, 'now there is room')

    const full = tickets[1]!
    const now = clock.now()
    await database.db
      .insert(supportMessages)
      .values(Array.from({ length: SUPPORT_MESSAGES_PER_TICKET_MAX - 1 }, (_, i) => ({ ticketId: full.id, kind: 'member' as const, body: `filler ${i}`, createdAt: now })))
    const over = await post(`/api/support/tickets/${full.id}/messages`, person.headers, { message: 'and another' })
    expect(over.statusCode).toBe(409)
    expect(over.json().error).toMatchObject({ code: 'SUPPORT_THREAD_FULL', field: 'message' })
  })
})

describe('the support inbox', () => {
  it('orders by plan, Elite first, then by age, and flags a request past its first-reply target', async () => {
    const basic = await signedInUser(app, { paid: 'basic' })
    const elite = await signedInUser(app, { paid: 'elite', fullName: 'Eli Elite' })
    const premium = await signedInUser(app, { paid: 'premium' })
    const first = await openTicket(basic, 'basic, oldest')
    clock.advance(60_000)
    const second = await openTicket(elite, 'elite, newer')
    clock.advance(60_000)
    const third = await openTicket(premium, 'premium, newest')

    const inbox = SupportInboxResponseSchema.parse((await get('/api/staff/support/tickets', agent.headers)).json())
    const ours = inbox.tickets.filter((t) => [first.id, second.id, third.id].includes(t.id))
    expect(ours.map((t) => [t.id, t.priority])).toEqual([
      [second.id, 'elite'],
      [third.id, 'premium'],
      [first.id, 'basic'],
    ])
    expect(ours.every((t) => !t.overdue)).toBe(true)
    expect(ours[0]).toMatchObject({ memberName: 'Eli Elite', lastFrom: 'member', firstRespondedAt: null })

    // Five business hours later: past Elite's 4, within Premium's 8 and Basic's 16.
    clock.advance(5 * 60 * 60 * 1000)
    const later = SupportInboxResponseSchema.parse((await get('/api/staff/support/tickets', agent.headers)).json())
    const overdue = Object.fromEntries(later.tickets.map((t) => [t.id, t.overdue]))
    expect([overdue[second.id], overdue[third.id], overdue[first.id]]).toEqual([true, false, false])
  })

  it("shows support the member's account and billing state, never coaching data, and records each read", async () => {
    const member = await signedInUser(app, { paid: 'elite', fullName: 'Mia Member' })
    const ticket = await openTicket(member, 'Please check my billing.')
    const response = await get(`/api/staff/support/tickets/${ticket.id}`, agent.headers)
    expect(response.statusCode).toBe(200)
    const detail = InboxTicketResponseSchema.parse(response.json()).ticket
    expect(Object.keys(response.json().ticket.member).sort()).toEqual(['email', 'emailConfirmed', 'fullName', 'memberSince', 'paid', 'phoneVerified', 'plan', 'subscriptionStatus', 'twoFactorOn'])
    expect(detail.member).toMatchObject({ fullName: 'Mia Member', email: member.user.email, plan: 'elite', paid: true, twoFactorOn: false })
    expect(JSON.stringify(response.json())).not.toMatch(/transcript|summary|goals|conversation/i)

    const audited = await database.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.action, 'support_ticket_viewed'), eq(auditEvents.targetId, ticket.id)))
    expect(audited).toHaveLength(1)
    expect(audited[0]).toMatchObject({ actorUserId: agent.user.id, subjectUserId: member.user.id, targetType: 'support_ticket', details: { reference: ticket.reference } })

    // The member sees it on their account page.
    const activity = (await get('/api/account/activity', member.headers)).json() as { events: Array<{ description: string }> }
    expect(activity.events.map((event) => event.description)).toContain(`Sam Rivera (support) read your support request ${ticket.reference}.`)
  })

  it('replies by email and in the app, keeps notes from the member, and reopens on the member’s answer', async () => {
    const member = await signedInUser(app, { paid: 'basic', fullName: 'Rae Reply' })
    const ticket = await openTicket(member, 'How do I change my call time?')

    const note = await post(`/api/staff/support/tickets/${ticket.id}/notes`, agent.headers, { note: 'Second time she asks; the schedule page may be unclear.' })
    expect(note.statusCode).toBe(200)
    const replied = await post(`/api/staff/support/tickets/${ticket.id}/replies`, agent.headers, { message: 'Open Call schedule from the menu.\n\nPick a new time and save.' })
    expect(replied.statusCode).toBe(200)
    const detail = InboxTicketResponseSchema.parse(replied.json()).ticket
    expect(detail).toMatchObject({ status: 'waiting_on_member', lastFrom: 'support', firstRespondedAt: clock.now().toISOString() })
    expect(detail.messages.map((m) => m.kind)).toEqual(['member', 'note', 'reply'])
    expect(detail.messages[2]).toMatchObject({ authorName: 'Sam Rivera' })

    const mail = await smtp.waitForMail(member.user.email, /^Re: your support request #[0-9A-F]{6}$/)
    expect(mail.text).toContain('Sam from support replied')
    expect(mail.text).toContain('Pick a new time and save.')
    expect(mail.text).toContain(`http://localhost:3000/help/${ticket.id}`)
    expect(mail.text).not.toContain('Second time she asks')
    const [reply] = await database.db.select().from(supportMessages).where(and(eq(supportMessages.ticketId, ticket.id), eq(supportMessages.kind, 'reply')))
    expect(reply!.notifiedAt).not.toBeNull()

    const seen = SupportTicketResponseSchema.parse((await get(`/api/support/tickets/${ticket.id}`, member.headers)).json()).ticket
    expect(seen.status).toBe('waiting_on_member')
    expect(seen.messages.map((m) => [m.from, m.authorName])).toEqual([
      ['you', null],
      ['support', 'Sam'],
    ])
    expect(JSON.stringify(seen)).not.toContain('Second time she asks')

    const answered = await post(`/api/support/tickets/${ticket.id}/messages`, member.headers, { message: 'Found it, thanks!' })
    expect(answered.statusCode).toBe(200)
    expect(SupportTicketResponseSchema.parse(answered.json()).ticket).toMatchObject({ status: 'open', lastFrom: 'you' })

    const actions = (await database.db.select({ action: auditEvents.action }).from(auditEvents).where(eq(auditEvents.targetId, ticket.id))).map((row) => row.action)
    expect(actions.sort()).toEqual(['support_note_added', 'support_reply_sent'])
  })

  it('is for support staff only: a member gets 404, other roles 403, staff without two-factor sign-in are sent to set it up', async () => {
    const member = await signedInUser(app, { paid: 'elite' })
    const ticket = await openTicket(member)
    const coach = await signedInStaff(app, ['coach'])
    const unverified = await signedInStaff(app, ['support'], { twoFactor: false })
    for (const url of ['/api/staff/support/tickets', `/api/staff/support/tickets/${ticket.id}`]) {
      expect((await get(url, member.headers)).statusCode).toBe(404)
      expect((await get(url, coach.headers)).statusCode).toBe(403)
      const refused = await get(url, unverified.headers)
      expect(refused.statusCode).toBe(403)
      expect(refused.json().error.code).toBe('TWO_FACTOR_REQUIRED')
    }
    expect((await post(`/api/staff/support/tickets/${ticket.id}/replies`, coach.headers, { message: 'hi' })).statusCode).toBe(403)
    expect((await get(`/api/staff/support/tickets/${randomUUID()}`, agent.headers)).statusCode).toBe(404)
    // Nothing was read, so nothing is in the audit log about this request.
    expect(await database.db.select().from(auditEvents).where(eq(auditEvents.targetId, ticket.id))).toEqual([])
  })
})

describe('a reply whose email was never queued', () => {
  it('is emailed by the sweep, once', async () => {
    const member = await signedInUser(app, { fullName: 'Lou Lost' })
    const ticket = await openTicket(member, 'Is anyone there?')
    // A reply committed by a process that stopped before queueing its email.
    await database.db.insert(supportMessages).values({ ticketId: ticket.id, kind: 'reply', authorUserId: agent.user.id, body: 'Yes, we are here.', createdAt: clock.now() })
    expect(await app.services.support.sweepUnsentReplies()).toEqual({ queued: 0 })
    clock.advance(6 * 60 * 1000)
    expect(await app.services.support.sweepUnsentReplies()).toEqual({ queued: 1 })
    const mail = await smtp.waitForMail(member.user.email, /^Re: your support request/)
    expect(mail.text).toContain('Yes, we are here.')
    await expect.poll(async () => (await database.db.select().from(supportMessages).where(and(eq(supportMessages.ticketId, ticket.id), eq(supportMessages.kind, 'reply'))))[0]?.notifiedAt).not.toBeNull()
    expect(await app.services.support.sweepUnsentReplies()).toEqual({ queued: 0 })
  })
})

describe('canned replies', () => {
  it('are written by admins and read by support, at most 100', async () => {
    const admin = await signedInStaff(app, ['admin'])
    const body = { title: 'Change call time', body: 'Open Call schedule from the menu, pick a time, and save.' }
    expect((await post('/api/staff/support/canned-replies', agent.headers, body)).statusCode).toBe(403)
    const created = await post('/api/staff/support/canned-replies', admin.headers, body)
    expect(created.statusCode).toBe(201)
    const id = created.json().reply.id as string
    const listed = await get('/api/staff/support/canned-replies', agent.headers)
    expect(listed.json().replies).toContainEqual(expect.objectContaining({ id, title: 'Change call time' }))

    const blank = await post('/api/staff/support/canned-replies', admin.headers, { title: ' ', body: 'x' })
    expect(blank.statusCode).toBe(400)
    expect(blank.json().error.field).toBe('title')

    const now = clock.now()
    const existing = (await database.db.select().from(supportCannedReplies)).length
    await database.db.insert(supportCannedReplies).values(Array.from({ length: 100 - existing }, (_, i) => ({ title: `filler ${i}`, body: 'x', createdAt: now, updatedAt: now })))
    const over = await post('/api/staff/support/canned-replies', admin.headers, body)
    expect(over.statusCode).toBe(409)
    expect(over.json().error).toMatchObject({ code: 'CANNED_REPLY_LIMIT', field: 'title' })

    expect((await app.inject({ method: 'DELETE', url: `/api/staff/support/canned-replies/${id}`, headers: admin.headers })).statusCode).toBe(204)
    expect((await app.inject({ method: 'DELETE', url: `/api/staff/support/canned-replies/${id}`, headers: admin.headers })).statusCode).toBe(404)
  })
})
