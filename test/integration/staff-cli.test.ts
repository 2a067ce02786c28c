/**
 * `npm run staff:add` and `npm run staff:remove` (scripts/staff.ts) run as processes, as an
 * operator runs them: on PostgreSQL (DATABASE_URL) with the invitation through a real SMTP server,
 * then followed in the app (the password chosen, then /staff, where two-factor sign-in is asked
 * first); on an account that exists; with the usage's mistakes; and on the embedded database in a
 * DATA_DIR, refused with a clear message while another process holds it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { eq } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openDatabase } from '#server/db/client'
import { auditEvents, consentEvents, emailTokens, profiles, staffRoles, users } from '#server/db/schema'
import { APP_ORIGIN, buildTestApp, sessionCookieFrom } from '../helpers/app'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { insertUser } from '../helpers/factories'
import { spawnEntry } from '../helpers/process'
import { startSmtpSink } from '../helpers/smtp-sink'

let database: TestDatabase
let smtp: Awaited<ReturnType<typeof startSmtpSink>>
let app: FastifyInstance

beforeAll(async () => {
  database = await createTestDatabase('postgres')
  smtp = await startSmtpSink()
  app = await buildTestApp({ database, env: { SMTP_URL: smtp.url } })
})

afterAll(async () => {
  await app?.close()
  await smtp?.close()
  await database?.destroy()
})

/** Runs the command (`add` or `remove`, then its arguments) to its end: its exit code and what it printed. */
async function staff(args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const run = spawnEntry('scripts/staff.ts', { APP_URL: APP_ORIGIN, ...env }, args)
  const { code } = await run.exited
  return { code, output: run.output() }
}

const onPostgres = () => ({ DATABASE_URL: database.url, SMTP_URL: smtp.url })
const userByEmail = async (email: string) => (await app.db.select().from(users).where(eq(users.email, email)))[0]
const rolesOf = async (userId: string) => (await app.db.select({ role: staffRoles.role, grantedBy: staffRoles.grantedBy }).from(staffRoles).where(eq(staffRoles.userId, userId))).map((row) => row.role).sort()
const auditOf = (userId: string) =>
  app.db
    .select({ actorKind: auditEvents.actorKind, actorUserId: auditEvents.actorUserId, action: auditEvents.action, targetType: auditEvents.targetType, targetId: auditEvents.targetId })
    .from(auditEvents)
    .where(eq(auditEvents.subjectUserId, userId))
    .orderBy(auditEvents.id)

describe('npm run staff:add on DATABASE_URL', () => {
  it('makes an account for a new address, grants the roles, audits them as cli and emails an invitation that sets the password', async () => {
    const result = await staff(['add', '--role', 'operator', '--role', 'coach', '--name', 'Dana Lee', 'Dana.Lee@Example.com'], onPostgres())
    expect(result.code, result.output).toBe(0)
    expect(result.output).toContain('Created a staff account for Dana Lee <dana.lee@example.com> (DATABASE_URL).')
    expect(result.output).toContain('Granted: operator, coach.')
    expect(result.output).toContain('Roles now: coach, operator. Each grant is in the audit log.')
    expect(result.output).toContain('An invitation to choose a password was emailed to dana.lee@example.com (its link works for 7 days).')

    const dana = (await userByEmail('dana.lee@example.com'))!
    expect(dana).toMatchObject({ fullName: 'Dana Lee', phoneNumber: '0000000000', emailConfirmedAt: null })
    expect(await app.db.select({ phoneNumber: profiles.phoneNumber }).from(profiles).where(eq(profiles.id, dana.id))).toEqual([{ phoneNumber: null }])
    // Not a member: no consent to calls or texts in the ledger.
    expect(await app.db.select().from(consentEvents).where(eq(consentEvents.userId, dana.id))).toEqual([])
    expect(await rolesOf(dana.id)).toEqual(['coach', 'operator'])
    expect(await auditOf(dana.id)).toEqual([
      { actorKind: 'cli', actorUserId: null, action: 'staff_account_created', targetType: null, targetId: null },
      { actorKind: 'cli', actorUserId: null, action: 'role_granted', targetType: 'staff_role', targetId: 'operator' },
      { actorKind: 'cli', actorUserId: null, action: 'role_granted', targetType: 'staff_role', targetId: 'coach' },
    ])
    // No usable password: signing in with anything fails.
    const login = await app.inject({ method: 'POST', url: '/api/auth/login', headers: { origin: APP_ORIGIN }, payload: { email: dana.email, password: 'whatever-it-might-be-1' } })
    expect(login.statusCode).toBe(401)

    const mail = await smtp.waitForMail(dana.email, /^You are invited to Momentum Coach$/)
    expect(mail.text.replace(/\s+/g, ' ')).toContain('a staff account at Momentum Coach, with the coach and operator roles.')
    expect(smtp.linkIn(mail)).toMatch(/^http:\/\/localhost:3000\/auth\?mode=invite#token=[a-z2-7]+$/)
    const [token] = await app.db.select({ purpose: emailTokens.purpose, expiresAt: emailTokens.expiresAt, createdAt: emailTokens.createdAt }).from(emailTokens).where(eq(emailTokens.userId, dana.id))
    expect(token!.purpose).toBe('invitation')
    expect(token!.expiresAt.getTime() - token!.createdAt.getTime()).toBe(7 * 86_400_000)

    // The link sets the password as a reset link does, and signs in; a staff account without a plan goes to /staff.
    const accepted = await app.inject({
      method: 'POST',
      url: '/api/auth/reset-password',
      headers: { origin: APP_ORIGIN },
      payload: { token: smtp.tokenIn(mail), password: 'saffron-harbor-kite-73', confirmPassword: 'saffron-harbor-kite-73' },
    })
    expect(accepted.statusCode, accepted.body).toBe(200)
    const cookie = sessionCookieFrom(accepted)
    const destination = await app.inject({ method: 'POST', url: '/api/auth/destination', headers: { origin: APP_ORIGIN, cookie } })
    expect(destination.json()).toEqual({ path: '/staff' })
    // Staff pages ask for two-factor sign-in first.
    const me = await app.inject({ method: 'GET', url: '/api/staff/me', headers: { cookie } })
    expect(me.statusCode).toBe(403)
    expect(me.json()).toMatchObject({ error: { code: 'TWO_FACTOR_REQUIRED' } })
    // The link works once.
    const again = await app.inject({ method: 'POST', url: '/api/auth/reset-password', headers: { origin: APP_ORIGIN }, payload: { token: smtp.tokenIn(mail), password: 'another-harbor-kite-74', confirmPassword: 'another-harbor-kite-74' } })
    expect(again.statusCode).toBe(400)
  }, 120_000)

  it('gives an existing account the roles it lacks (no email), and staff:remove takes them away, audited', async () => {
    const member = await insertUser(app.db, { fullName: 'Riley Chen' })
    const before = smtp.mails.length
    const added = await staff(['add', '--role', 'support', member.email], onPostgres())
    expect(added.code, added.output).toBe(0)
    expect(added.output).toContain(`Riley Chen <${member.email}> has an account (DATABASE_URL).`)
    const twice = await staff(['add', '--role', 'support', '-r', 'admin', member.email], onPostgres())
    expect(twice.output).toContain('Granted: administrator.')
    expect(twice.output).toContain('Already held: support.')
    expect(await rolesOf(member.id)).toEqual(['admin', 'support'])
    expect(smtp.mails.length).toBe(before)

    const removed = await staff(['remove', '--role', 'admin', '--role', 'coach', member.email], onPostgres())
    expect(removed.code, removed.output).toBe(0)
    expect(removed.output).toContain(`Removed from Riley Chen <${member.email}>: administrator.`)
    expect(removed.output).toContain(`Not held by Riley Chen <${member.email}>: coach.`)
    expect(removed.output).toContain('Roles now: support.')
    expect(await rolesOf(member.id)).toEqual(['support'])
    expect((await auditOf(member.id)).map((row) => `${row.actorKind} ${row.action} ${row.targetId}`)).toEqual(['cli role_granted support', 'cli role_granted admin', 'cli role_revoked admin'])

    const nobody = await staff(['remove', '--role', 'support', 'nobody@example.com'], onPostgres())
    expect(nobody).toEqual({ code: 1, output: expect.stringContaining('There is no account with the email nobody@example.com.') })
  }, 120_000)

  it('refuses a mistaken command with what is wrong and how to write it (exit 2), and changes nothing', async () => {
    for (const [args, message] of [
      [['add', 'x@example.com'], 'Give at least one --role.'],
      [['add', '--role', 'janitor', 'x@example.com'], 'Unknown role: janitor.'],
      [['add', '--role', 'coach', 'not-an-email'], 'not-an-email is not an email address.'],
      [['add', '--role', 'coach'], 'Give the email address of the account.'],
      [['promote', '--role', 'coach', 'x@example.com'], 'Say what to do: add or remove.'],
    ] as const) {
      const result = await staff([...args], onPostgres())
      expect(result.code, result.output).toBe(2)
      expect(result.output).toContain(message)
      expect(result.output).toContain('Usage:\n  npm run staff:add -- --role <role>')
    }
    expect(await userByEmail('x@example.com')).toBeUndefined()
  }, 120_000)
})

describe('npm run staff:add on the embedded database (DATA_DIR)', () => {
  it('works while nothing else has the directory open, and says so clearly when something does', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'mc-staff-cli-'))
    try {
      const env = { DATA_DIR: dataDir, DATABASE_URL: '' }
      const first = await staff(['add', '--role', 'operator', 'ops@example.com'], env)
      expect(first.code, first.output).toBe(0)
      expect(first.output).toContain(`Created a staff account for ops <ops@example.com> (${dataDir}).`)
      // Without SMTP_URL the invitation is written to the log, with its link (outside production).
      expect(first.output).toMatch(/"subject":"You are invited to Momentum Coach","link":"http:\/\/localhost:3000\/auth\?mode=invite#token=[a-z2-7]+"/)
      expect(first.output).toContain('SMTP_URL is not set: the invitation email was written to the log above instead, with its link')

      // Held open by this process (as the running server holds it): refused, nothing written.
      const held = await openDatabase({ dataDir })
      try {
        const refused = await staff(['add', '--role', 'admin', 'ops@example.com'], env)
        expect(refused.code).toBe(1)
        expect(refused.output).toContain(
          `The embedded database in ${dataDir} is in use by another process (pid ${process.pid}), most likely the server (npm start). Only one process at a time may open it: stop that process first, then run this again (or use DATABASE_URL).`,
        )
        const [ops] = await held.db.select({ id: users.id }).from(users).where(eq(users.email, 'ops@example.com'))
        expect((await held.db.select({ role: staffRoles.role }).from(staffRoles).where(eq(staffRoles.userId, ops!.id))).map((row) => row.role)).toEqual(['operator'])
      } finally {
        await held.close()
      }
      // A holder that died without letting go (a crash) does not keep it.
      writeFileSync(join(dataDir, 'pglite.pid'), '999999999\n')
      const after = await staff(['add', '--role', 'admin', 'ops@example.com'], env)
      expect(after.code, after.output).toBe(0)
      expect(after.output).toContain('Roles now: operator, administrator.')
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  }, 180_000)
})
