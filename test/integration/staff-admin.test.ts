/**
 * Admins manage staff from the app (docs/decisions/072, issue 35), as `npm run staff:add` and
 * `staff:remove` do: a new address gets an account and an emailed invitation (over real SMTP to a
 * sink), roles are given and taken with each change in the person's audit log, and an admin cannot
 * take their own admin role.
 */
import { and, eq } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { GrantStaffRolesResponseSchema, StaffAccountsResponseSchema } from '#common/staff'
import { buildApp } from '#server/app'
import { auditEvents, users } from '#server/db/schema'
import { testConfig } from '../helpers/app'
import { fakeClock } from '../helpers/clock'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { startSmtpSink } from '../helpers/smtp-sink'
import { signedInStaff, type StaffMember } from '../helpers/staff'
import { signedInUser } from '../helpers/users'

let database: TestDatabase
let app: FastifyInstance
let smtp: Awaited<ReturnType<typeof startSmtpSink>>
let admin: StaffMember
const clock = fakeClock(new Date('2026-12-01T15:00:00Z'))

beforeAll(async () => {
  database = await createTestDatabase()
  smtp = await startSmtpSink()
  app = await buildApp(testConfig({ SMTP_URL: smtp.url }), { database, clock, logger: false })
  await app.ready()
  admin = await signedInStaff(app, ['admin'], { fullName: 'Ada Admin' })
})

afterAll(async () => {
  await app?.close()
  await smtp?.close()
  await database?.destroy()
})

const post = (url: string, headers: Record<string, string>, payload: Record<string, unknown>) => app.inject({ method: 'POST', url, headers, payload })

describe('staff accounts, by an admin', () => {
  it('invites a new address: an account, the roles, and an email to choose a password; listed with its roles', async () => {
    const email = `dana.${Date.now()}@example.com`
    const response = await post('/api/staff/admin/staff', admin.headers, { email: email.toUpperCase(), fullName: 'Dana Lee', roles: ['coach', 'support'] })
    expect(response.statusCode).toBe(200)
    const body = GrantStaffRolesResponseSchema.parse(response.json())
    expect(body).toMatchObject({ created: true, invitationSent: true, account: { email, fullName: 'Dana Lee', roles: ['coach', 'support'], twoFactorOn: false } })
    const mail = await smtp.waitForMail(email, /^You are invited to Momentum Coach$/)
    expect(smtp.linkIn(mail)).toMatch(/\/auth\?mode=invite#token=/)

    const [dana] = await database.db.select().from(users).where(eq(users.email, email))
    const grants = await database.db.select().from(auditEvents).where(and(eq(auditEvents.subjectUserId, dana!.id), eq(auditEvents.action, 'role_granted')))
    expect(grants.map((row) => [row.actorUserId, row.targetId]).sort()).toEqual([
      [admin.user.id, 'coach'],
      [admin.user.id, 'support'],
    ])
    const listed = StaffAccountsResponseSchema.parse((await app.inject({ method: 'GET', url: '/api/staff/admin/staff', headers: admin.headers })).json()).staff
    expect(listed).toContainEqual(expect.objectContaining({ email, roles: ['coach', 'support'] }))
  })

  it('gives a member a role without a new account or an invitation, and takes it away again', async () => {
    const member = await signedInUser(app, { paid: 'premium', fullName: 'Mo Member' })
    const granted = GrantStaffRolesResponseSchema.parse((await post('/api/staff/admin/staff', admin.headers, { email: member.user.email, roles: ['support'] })).json())
    expect(granted).toMatchObject({ created: false, invitationSent: null, account: { roles: ['support'] } })
    const revoked = await post('/api/staff/admin/staff/revoke', admin.headers, { email: member.user.email, roles: ['support'] })
    expect(revoked.statusCode).toBe(200)
    expect(revoked.json()).toEqual({ account: null })
  })

  it("refuses an admin's own admin role, bad input (400 naming the field), and anyone but an admin", async () => {
    const own = await post('/api/staff/admin/staff/revoke', admin.headers, { email: admin.user.email, roles: ['admin'] })
    expect(own.statusCode).toBe(409)
    expect(own.json().error.field).toBe('roles')
    const noRole = await post('/api/staff/admin/staff', admin.headers, { email: 'x@example.com', roles: [] })
    expect(noRole.statusCode).toBe(400)
    expect(noRole.json().error.field).toBe('roles')
    const badEmail = await post('/api/staff/admin/staff', admin.headers, { email: 'not an email', roles: ['coach'] })
    expect(badEmail.statusCode).toBe(400)
    expect(badEmail.json().error.field).toBe('email')
    const coach = await signedInStaff(app, ['coach'])
    expect((await post('/api/staff/admin/staff', coach.headers, { email: 'x@example.com', roles: ['admin'] })).statusCode).toBe(403)
    const member = await signedInUser(app)
    expect((await app.inject({ method: 'GET', url: '/api/staff/admin/staff', headers: member.headers })).statusCode).toBe(404)
  })
})
