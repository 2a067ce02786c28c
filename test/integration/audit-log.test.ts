/**
 * The audit log (docs/decisions/072): `audit.record(tx, event)` commits with the caller's change
 * or not at all; PostgreSQL itself refuses to change or delete a row (UPDATE, DELETE and TRUNCATE
 * all fail, on the server and on PGlite alike); deleting an account keeps its rows with its id set
 * to null; and the account page lists a person's events in words, staff named with their roles.
 */
import { eq, sql } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AccountActivityResponseSchema } from '#common/audit'
import type { Database } from '#server/db/client'
import { auditEvents, staffRoles, users } from '#server/db/schema'
import { audit } from '#server/services/audit'
import { buildTestApp } from '../helpers/app'
import { fakeClock } from '../helpers/clock'
import { createTestDatabase, hasPostgres, type TestDatabase } from '../helpers/db'
import { insertUser } from '../helpers/factories'
import { signedInUser } from '../helpers/users'

const clock = fakeClock(new Date('2026-12-01T12:00:00Z'))

/** The database's own words for a refused statement (drizzle wraps them in "Failed query: ..."). */
async function refusal(work: Promise<unknown>): Promise<string> {
  try {
    await work
  } catch (error) {
    let inner = error as { message: string; cause?: unknown }
    while (inner.cause) inner = inner.cause as { message: string; cause?: unknown }
    return inner.message
  }
  throw new Error('the statement was not refused')
}

const drivers = ['pglite', ...(hasPostgres() ? (['postgres'] as const) : [])] as const

describe.each(drivers)('audit_events on %s', (driver) => {
  let database: TestDatabase
  beforeAll(async () => {
    database = await createTestDatabase(driver)
  })
  afterAll(async () => {
    await database?.destroy()
  })

  async function event(db: Database['db'], subjectUserId: string, actorUserId: string) {
    await audit.record(db, { actor: { kind: 'user', userId: actorUserId }, action: 'role_granted', subjectUserId, target: { type: 'staff_role', id: 'coach' }, details: { note: 'test' }, at: clock.now() })
    const [row] = await db.select().from(auditEvents).where(eq(auditEvents.subjectUserId, subjectUserId)).orderBy(sql`${auditEvents.id} desc`).limit(1)
    return row!
  }

  it('refuses UPDATE, DELETE and TRUNCATE', async () => {
    const { db } = database
    const person = await insertUser(db)
    const row = await event(db, person.id, person.id)
    expect(await refusal(db.update(auditEvents).set({ action: 'role_revoked' }).where(eq(auditEvents.id, row.id)))).toBe('audit_events is append-only (UPDATE refused)')
    // Not even the one change a deletion makes, by hand.
    expect(await refusal(db.update(auditEvents).set({ subjectUserId: null }).where(eq(auditEvents.id, row.id)))).toBe('audit_events is append-only (UPDATE refused)')
    expect(await refusal(db.delete(auditEvents).where(eq(auditEvents.id, row.id)))).toBe('audit_events is append-only (DELETE refused)')
    expect(await refusal(db.execute(sql`truncate audit_events`))).toBe('audit_events is append-only (TRUNCATE refused)')
    expect(await db.select().from(auditEvents).where(eq(auditEvents.id, row.id))).toEqual([row])
  })

  it('commits with the change it records, or not at all', async () => {
    const { db } = database
    const person = await insertUser(db)
    await expect(
      db.transaction(async (tx) => {
        await tx.insert(staffRoles).values({ userId: person.id, role: 'support', grantedAt: clock.now() })
        await audit.record(tx, { actor: { kind: 'cli' }, action: 'role_granted', subjectUserId: person.id, target: { type: 'staff_role', id: 'support' }, at: clock.now() })
        throw new Error('the grant failed after all')
      }),
    ).rejects.toThrow('the grant failed after all')
    expect(await db.select().from(auditEvents).where(eq(auditEvents.subjectUserId, person.id))).toEqual([])
    // Only a person has an id as actor.
    expect(await refusal(db.insert(auditEvents).values({ at: clock.now(), actorKind: 'cli', actorUserId: person.id, action: 'role_granted' }))).toMatch(/audit_events_actor_user/)
  })

  it('keeps a deleted account’s rows, with its id set to null', async () => {
    const { db } = database
    const staff = await insertUser(db)
    const member = await insertUser(db)
    const about = await event(db, member.id, staff.id)
    await db.delete(users).where(eq(users.id, member.id))
    const [afterMember] = await db.select().from(auditEvents).where(eq(auditEvents.id, about.id))
    expect(afterMember).toEqual({ ...about, subjectUserId: null })
    await db.delete(users).where(eq(users.id, staff.id))
    const [afterStaff] = await db.select().from(auditEvents).where(eq(auditEvents.id, about.id))
    expect(afterStaff).toEqual({ ...about, subjectUserId: null, actorUserId: null })
  })
})

describe('the account page’s activity', () => {
  let database: TestDatabase
  let app: FastifyInstance
  beforeAll(async () => {
    database = await createTestDatabase()
    app = await buildTestApp({ database, clock })
  })
  afterAll(async () => {
    await app?.close()
    await database?.destroy()
  })

  it('names staff with their roles, the command line and deleted accounts, newest first, and only the person’s own', async () => {
    const member = await signedInUser(app)
    const bystander = await signedInUser(app)
    const dana = await insertUser(app.db, { fullName: 'Dana Lee' })
    await app.db.insert(staffRoles).values([
      { userId: dana.id, role: 'operator', grantedAt: clock.now() },
      { userId: dana.id, role: 'coach', grantedAt: clock.now() },
    ])
    const former = await insertUser(app.db, { fullName: 'Sam Former' })
    const record = (actor: Parameters<typeof audit.record>[1]['actor'], action: Parameters<typeof audit.record>[1]['action'], role?: string) =>
      audit.record(app.db, { actor, action, subjectUserId: member.user.id, target: role ? { type: 'staff_role', id: role } : { type: 'two_factor', id: null }, at: clock.now() })
    await record({ kind: 'cli' }, 'role_granted', 'support')
    await record({ kind: 'user', userId: dana.id }, 'role_revoked', 'support')
    await record({ kind: 'user', userId: former.id }, 'two_factor_disabled')
    await record({ kind: 'user', userId: member.user.id }, 'two_factor_enabled')
    await record({ kind: 'system' }, 'recovery_codes_regenerated')
    await app.db.delete(users).where(eq(users.id, former.id))

    const response = await app.inject({ method: 'GET', url: '/api/account/activity', headers: member.headers })
    expect(response.statusCode).toBe(200)
    const { events } = AccountActivityResponseSchema.parse(response.json())
    expect(events.map((event) => event.description)).toEqual([
      'Momentum Coach made new recovery codes; the earlier ones no longer work.',
      'You turned on two-factor sign-in.',
      'A person whose account has since been deleted turned off two-factor sign-in for your account.',
      'Dana Lee (coach, operator) removed your support role.',
      "An administrator (on the server's command line) gave you the support role.",
    ])
    expect(events[3]).toMatchObject({ action: 'role_revoked', role: 'support', actor: { kind: 'staff', name: 'Dana Lee', roles: ['coach', 'operator'] } })
    // Nobody else's.
    const theirs = AccountActivityResponseSchema.parse((await app.inject({ method: 'GET', url: '/api/account/activity', headers: bystander.headers })).json())
    expect(theirs.events).toEqual([])
    expect((await app.inject({ method: 'GET', url: '/api/account/activity' })).statusCode).toBe(401)
  })
})
