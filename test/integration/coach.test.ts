/**
 * Elite's human coach (docs/decisions/078) on a real PostgreSQL: every Elite member gets the coach
 * with the most free places (or waits while all are full), an admin can reassign (the history
 * kept), a coach reads only their own members (each read in the member's audit log) and keeps
 * private notes the member never sees; the sweep ends the assignments of members who left Elite.
 */
import { and, eq, isNull } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { CoachesResponseSchema, CoachMemberDetailSchema, CoachMembersResponseSchema, MyCoachResponseSchema } from '#common/coach'
import { auditEvents, coachAssignments, coachingCalls, coachNotes, coachProfiles, staffRoles, subscribers } from '#server/db/schema'
import { buildTestApp } from '../helpers/app'
import { fakeClock } from '../helpers/clock'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { signedInStaff, type StaffMember } from '../helpers/staff'
import { signedInUser, type SignedIn } from '../helpers/users'

let database: TestDatabase
let app: FastifyInstance
let dana: StaffMember
let lee: StaffMember
let admin: StaffMember
const clock = fakeClock(new Date('2026-12-01T15:00:00Z'))

beforeAll(async () => {
  database = await createTestDatabase()
  app = await buildTestApp({ database, clock })
  admin = await signedInStaff(app, ['admin'], { fullName: 'Ada Admin' })
})

beforeEach(async () => {
  // Each test starts with two coaches of its own and no other coach taking members.
  await database.db.update(coachProfiles).set({ maxMembers: 0 })
  dana = await signedInStaff(app, ['coach'], { fullName: 'Dana Lee' })
  lee = await signedInStaff(app, ['coach'], { fullName: 'Lee Park' })
  // Full until a test gives them places.
  await database.db.insert(coachProfiles).values([dana, lee].map((coach) => ({ userId: coach.user.id, maxMembers: 0, updatedAt: clock.now() })))
})

afterAll(async () => {
  await app?.close()
  await database?.destroy()
})

type Headers = Record<string, string>
const get = (url: string, headers: Headers) => app.inject({ method: 'GET', url, headers })
const send = (method: 'POST' | 'PUT' | 'DELETE', url: string, headers: Headers, payload?: unknown) =>
  app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) })
const myCoach = async (member: SignedIn) => MyCoachResponseSchema.parse((await get('/api/coach', member.headers)).json())
const capacity = (coach: StaffMember, maxMembers: number) => send('PUT', `/api/staff/admin/coaches/${coach.user.id}/capacity`, admin.headers, { maxMembers })

describe("an Elite member's coach", () => {
  it('is the coach with the most free places, assigned on first ask and written to the audit log; other plans have none', async () => {
    expect((await capacity(dana, 3)).statusCode).toBe(200)
    expect((await capacity(lee, 2)).statusCode).toBe(200)
    const first = await signedInUser(app, { paid: 'elite', fullName: 'Eli One' })
    const mine = await myCoach(first)
    expect(mine).toMatchObject({ status: 'assigned', coach: { fullName: 'Dana Lee', replyPromise: 'Dana usually replies within 4 business hours.', hoursText: 'Monday to Friday, 09:00 to 17:00 (America/New_York).' } })
    // Asked again: the same coach, one assignment.
    expect(await myCoach(first)).toMatchObject({ status: 'assigned', coach: { coachId: dana.user.id } })
    expect(await database.db.select().from(coachAssignments).where(eq(coachAssignments.memberUserId, first.user.id))).toHaveLength(1)
    const [audited] = await database.db.select().from(auditEvents).where(and(eq(auditEvents.subjectUserId, first.user.id), eq(auditEvents.action, 'coach_assigned')))
    expect(audited).toMatchObject({ actorKind: 'system', targetType: 'coach', targetId: null })

    // Dana 1 of 3, Lee 0 of 2: 2 free places each; the tie goes to the one with fewer members (Lee).
    const second = await signedInUser(app, { paid: 'elite' })
    expect(await myCoach(second)).toMatchObject({ status: 'assigned', coach: { coachId: lee.user.id } })
    // Dana 1 of 3 (2 free), Lee 1 of 2 (1 free).
    const third = await signedInUser(app, { paid: 'elite' })
    expect(await myCoach(third)).toMatchObject({ status: 'assigned', coach: { coachId: dana.user.id } })

    const premium = await signedInUser(app, { paid: 'premium' })
    expect(await myCoach(premium)).toEqual({ status: 'not-elite' })
    expect(await myCoach(await signedInUser(app))).toEqual({ status: 'not-elite' })
  })

  it('is being matched while every coach is full, and the sweep assigns one when a place opens', async () => {
    const member = await signedInUser(app, { paid: 'elite' })
    expect(await myCoach(member)).toEqual({ status: 'matching' })
    const coaches = CoachesResponseSchema.parse((await get('/api/staff/admin/coaches', admin.headers)).json())
    expect(coaches.unassigned).toBeGreaterThanOrEqual(1)
    await capacity(lee, 5)
    const swept = await app.services.coach.sweep()
    expect(swept.assigned).toBeGreaterThanOrEqual(1)
    expect(await myCoach(member)).toMatchObject({ status: 'assigned', coach: { coachId: lee.user.id } })
  })

  it("ends with the member's Elite plan (the sweep), and an admin's reassignment keeps the history", async () => {
    await capacity(dana, 5)
    await capacity(lee, 6)
    const member = await signedInUser(app, { paid: 'elite', fullName: 'Moe Mover' })
    expect(await myCoach(member)).toMatchObject({ coach: { coachId: lee.user.id } })

    const moved = await send('POST', '/api/staff/admin/coach-assignments', admin.headers, { memberEmail: member.user.email.toUpperCase(), coachId: dana.user.id })
    expect(moved.statusCode).toBe(200)
    expect(await myCoach(member)).toMatchObject({ coach: { coachId: dana.user.id } })
    const history = await database.db.select().from(coachAssignments).where(eq(coachAssignments.memberUserId, member.user.id)).orderBy(coachAssignments.startedAt)
    expect(history.map((row) => [row.coachUserId, row.how, row.endedAt === null])).toEqual([
      [lee.user.id, 'auto', false],
      [dana.user.id, 'admin', true],
    ])
    const activity = (await get('/api/account/activity', member.headers)).json() as { events: Array<{ description: string }> }
    expect(activity.events.map((event) => event.description)).toContain('Ada Admin (administrator) assigned you a coach.')

    // Not Elite any more: the sweep ends the assignment.
    await database.db.update(subscribers).set({ tier: 'premium' }).where(eq(subscribers.userId, member.user.id))
    await app.services.coach.sweep()
    expect(await database.db.select().from(coachAssignments).where(and(eq(coachAssignments.memberUserId, member.user.id), isNull(coachAssignments.endedAt)))).toEqual([])
    expect(await myCoach(member)).toEqual({ status: 'not-elite' })

    // Only Elite members get a coach from an admin, and only a coach can be one.
    const refused = await send('POST', '/api/staff/admin/coach-assignments', admin.headers, { memberEmail: member.user.email, coachId: dana.user.id })
    expect(refused.statusCode).toBe(409)
    expect(refused.json().error.field).toBe('memberEmail')
    const elite = await signedInUser(app, { paid: 'elite' })
    const notCoach = await send('POST', '/api/staff/admin/coach-assignments', admin.headers, { memberEmail: elite.user.email, coachId: admin.user.id })
    expect(notCoach.statusCode).toBe(404)
    expect(notCoach.json().error.field).toBe('coachId')
  })
})

describe("the coach's workspace", () => {
  it('lists only their own members and shows one, with the read in the audit log; another coach gets 404', async () => {
    await capacity(dana, 5)
    const member = await signedInUser(app, { paid: 'elite', fullName: 'Mia Member' })
    await myCoach(member)
    const listed = CoachMembersResponseSchema.parse((await get('/api/staff/coach/members', dana.headers)).json()).members
    expect(listed).toEqual([expect.objectContaining({ memberId: member.user.id, fullName: 'Mia Member', overallScore: null, lastCompletedCallAt: null, quiet: false })])
    expect(CoachMembersResponseSchema.parse((await get('/api/staff/coach/members', lee.headers)).json()).members).toEqual([])

    const detail = await get(`/api/staff/coach/members/${member.user.id}`, dana.headers)
    expect(detail.statusCode).toBe(200)
    const body = CoachMemberDetailSchema.parse(detail.json())
    expect(body).toMatchObject({ member: { memberId: member.user.id }, goals: [], calls: [], notes: [] })

    // A completed call: its summary, mood and energy are in the file, and the member is not quiet.
    await database.db.insert(coachingCalls).values({
      userId: member.user.id,
      callDate: clock.now(),
      completionStatus: 'completed',
      slot: 'test',
      endedAt: clock.now(),
      summary: 'Talked about the 10k plan.',
      mood: 7,
      energy: 4,
    })
    const withCall = CoachMemberDetailSchema.parse((await get(`/api/staff/coach/members/${member.user.id}`, dana.headers)).json())
    expect(withCall.calls).toEqual([expect.objectContaining({ summary: 'Talked about the 10k plan.', mood: 7, energy: 4 })])
    expect(withCall.member.lastCompletedCallAt).toBe(clock.now().toISOString())
    const audited = await database.db.select().from(auditEvents).where(and(eq(auditEvents.subjectUserId, member.user.id), eq(auditEvents.action, 'coach_member_viewed')))
    expect(audited).toEqual([expect.objectContaining({ actorUserId: dana.user.id }), expect.objectContaining({ actorUserId: dana.user.id })])

    expect((await get(`/api/staff/coach/members/${member.user.id}`, lee.headers)).statusCode).toBe(404)
    // A member who has gone quiet: no completed call for 5 days since assignment.
    clock.advance(6 * 24 * 60 * 60 * 1000)
    expect(CoachMembersResponseSchema.parse((await get('/api/staff/coach/members', dana.headers)).json()).members[0]).toMatchObject({ quiet: true })
  })

  it('keeps private notes the member never sees, each change audited', async () => {
    await capacity(dana, 5)
    const member = await signedInUser(app, { paid: 'elite' })
    await myCoach(member)
    const added = await send('POST', `/api/staff/coach/members/${member.user.id}/notes`, dana.headers, { body: 'Prefers mornings; knee injury last spring.' })
    expect(added.statusCode).toBe(201)
    const noteId = added.json().note.id as string
    expect((await send('PUT', `/api/staff/coach/members/${member.user.id}/notes/${noteId}`, dana.headers, { body: 'Prefers mornings.' })).json().note.body).toBe('Prefers mornings.')
    const blank = await send('POST', `/api/staff/coach/members/${member.user.id}/notes`, dana.headers, { body: '  ' })
    expect(blank.statusCode).toBe(400)
    expect(blank.json().error.field).toBe('body')
    // Another coach cannot write on this member.
    expect((await send('POST', `/api/staff/coach/members/${member.user.id}/notes`, lee.headers, { body: 'x' })).statusCode).toBe(404)

    // Nothing the member can read holds the note.
    for (const url of ['/api/coach', '/api/account', '/api/account/activity']) expect((await get(url, member.headers)).body).not.toContain('Prefers mornings')
    const described = ((await get('/api/account/activity', member.headers)).json() as { events: Array<{ description: string }> }).events.map((event) => event.description)
    expect(described).toEqual(expect.arrayContaining(['Dana Lee (coach) added a private note to your file.', 'Dana Lee (coach) changed a private note on your file.']))

    expect((await send('DELETE', `/api/staff/coach/members/${member.user.id}/notes/${noteId}`, dana.headers)).statusCode).toBe(204)
    expect(await database.db.select().from(coachNotes).where(eq(coachNotes.memberUserId, member.user.id))).toEqual([])
  })

  it("edits the coach's profile, which the member sees; refuses a day that ends before it starts and an unknown zone", async () => {
    await capacity(dana, 5)
    const member = await signedInUser(app, { paid: 'elite' })
    await myCoach(member)
    const profile = { bio: 'Former marathoner; I coach habits.', timeZone: 'America/Chicago', workingDays: [1, 2, 3, 4], startTime: '08:00', endTime: '16:00', replyWithinHours: 6 }
    const saved = await send('PUT', '/api/staff/coach/profile', dana.headers, profile)
    expect(saved.statusCode).toBe(200)
    expect(await myCoach(member)).toMatchObject({
      coach: { bio: profile.bio, replyPromise: 'Dana usually replies within 6 business hours.', hoursText: 'Monday to Thursday, 08:00 to 16:00 (America/Chicago).' },
    })
    const backwards = await send('PUT', '/api/staff/coach/profile', dana.headers, { ...profile, endTime: '07:00' })
    expect(backwards.statusCode).toBe(400)
    expect(backwards.json().error.field).toBe('endTime')
    const nowhere = await send('PUT', '/api/staff/coach/profile', dana.headers, { ...profile, timeZone: 'Mars/Olympus' })
    expect(nowhere.statusCode).toBe(400)
    expect(nowhere.json().error.field).toBe('timeZone')
  })

  it('is for coaches: a member gets 404, support 403, and the admin routes refuse a coach', async () => {
    const member = await signedInUser(app, { paid: 'elite' })
    const support = await signedInStaff(app, ['support'])
    expect((await get('/api/staff/coach/members', member.headers)).statusCode).toBe(404)
    expect((await get('/api/staff/coach/members', support.headers)).statusCode).toBe(403)
    expect((await get('/api/staff/admin/coaches', dana.headers)).statusCode).toBe(403)
    const roles = await database.db.select().from(staffRoles).where(eq(staffRoles.userId, dana.user.id))
    expect(roles.map((row) => row.role)).toEqual(['coach'])
  })
})
