import { and, desc, eq, inArray, sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { DatabaseDriver } from '#server/db/client'
import { coachingCalls, goals, inboundTextAccounts, inboundTexts, partnerPrograms, profiles, sessions, users } from '#server/db/schema'
import { deleteExpiredRecords } from '#server/services/maintenance'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { insertUser } from '../helpers/factories'

/** The same data-access code against both drivers behind the one `db` handle. */
describe.each<DatabaseDriver>(['postgres', 'pglite'])('data layer on %s', (driver) => {
  let database: TestDatabase

  beforeAll(async () => {
    database = await createTestDatabase(driver)
  })
  afterAll(async () => {
    await database?.destroy()
  })

  it('reports its driver', () => {
    expect(database.driver).toBe(driver)
  })

  it('has the partner programs of the spec', async () => {
    const rows = await database.db.select().from(partnerPrograms).orderBy(partnerPrograms.code)
    expect(rows.map((row) => [row.code, row.companyName])).toEqual([
      ['GENERAL', 'General'],
      ['NORTHWIND', 'Northwind Traders'],
    ])
  })

  it('keeps one account per email and refuses an email that is not lower-case', async () => {
    const user = await insertUser(database.db)
    await expect(insertUser(database.db, { email: user.email })).rejects.toThrow()
    await expect(insertUser(database.db, { email: 'Mixed@Example.com' })).rejects.toThrow()
  })

  it('saves goals as an upsert on (user, life area): a second save updates, never duplicates', async () => {
    const user = await insertUser(database.db)
    const save = (score: number, options: string[]) =>
      database.db
        .insert(goals)
        .values({ userId: user.id, lifeArea: 'fitness', satisfactionScore: score, selectedOptions: options })
        .onConflictDoUpdate({
          target: [goals.userId, goals.lifeArea],
          set: { satisfactionScore: score, selectedOptions: options, updatedAt: new Date() },
        })
    await save(4, ['run a 5k'])
    await save(7, ['run a 5k', 'sleep 8 hours'])
    const rows = await database.db.select().from(goals).where(eq(goals.userId, user.id))
    expect(rows).toHaveLength(1)
    expect(rows[0]!.satisfactionScore).toBe(7)
    expect(rows[0]!.selectedOptions).toEqual(['run a 5k', 'sleep 8 hours'])
  })

  it('refuses satisfaction outside 1–10 and unknown life areas', async () => {
    const user = await insertUser(database.db)
    await expect(
      database.db.insert(goals).values({ userId: user.id, lifeArea: 'faith', satisfactionScore: 11 }),
    ).rejects.toThrow()
    await expect(
      database.db.insert(goals).values({ userId: user.id, lifeArea: 'family', satisfactionScore: 0 }),
    ).rejects.toThrow()
    await expect(
      database.db.execute(sql`insert into goals (user_id, life_area) values (${user.id}, 'hobbies')`),
    ).rejects.toThrow()
  })

  it('rolls a failed transaction back whole', async () => {
    const user = await insertUser(database.db)
    await expect(
      database.db.transaction(async (tx) => {
        await tx.insert(goals).values({ userId: user.id, lifeArea: 'finance', satisfactionScore: 3 })
        await tx.insert(goals).values({ userId: user.id, lifeArea: 'fun', satisfactionScore: 42 })
      }),
    ).rejects.toThrow()
    const rows = await database.db.select().from(goals).where(eq(goals.userId, user.id))
    expect(rows).toEqual([])
  })

  it('reads a user’s last five calls, newest first, and never another user’s', async () => {
    const user = await insertUser(database.db)
    const other = await insertUser(database.db)
    const day = (n: number) => new Date(Date.UTC(2026, 10, n, 14))
    await database.db.insert(coachingCalls).values([
      ...[1, 2, 3, 4, 5, 6, 7].map((n) => ({
        userId: user.id,
        callDate: day(n),
        callDuration: 60 * n,
        areasDiscussed: ['fitness'],
        completionStatus: 'completed' as const,
      })),
      { userId: other.id, callDate: day(20), callDuration: 30 },
    ])
    const recent = await database.db
      .select()
      .from(coachingCalls)
      .where(eq(coachingCalls.userId, user.id))
      .orderBy(desc(coachingCalls.callDate))
      .limit(5)
    expect(recent.map((call) => call.callDate.toISOString())).toEqual([7, 6, 5, 4, 3].map((n) => day(n).toISOString()))
    expect(recent.every((call) => call.userId === user.id)).toBe(true)
  })

  it('stores session secret hashes as bytes and deletes a user’s rows with the user', async () => {
    const user = await insertUser(database.db)
    const hash = new Uint8Array(32).map((_, i) => i)
    await database.db.insert(sessions).values({
      id: `s${user.id.slice(0, 8)}`,
      userId: user.id,
      secretHash: hash,
      expiresAt: new Date(Date.now() + 86_400_000),
    })
    const [stored] = await database.db.select().from(sessions).where(eq(sessions.userId, user.id))
    expect(Array.from(stored!.secretHash)).toEqual(Array.from(hash))

    await database.db.insert(goals).values({ userId: user.id, lifeArea: 'faith', satisfactionScore: 5 })
    await database.db.delete(users).where(eq(users.id, user.id))
    expect(await database.db.select().from(sessions).where(eq(sessions.userId, user.id))).toEqual([])
    expect(await database.db.select().from(goals).where(eq(goals.userId, user.id))).toEqual([])
    expect(await database.db.select().from(profiles).where(eq(profiles.id, user.id))).toEqual([])
  })

  it('deletes an inbound text no account holds any more, and keeps one an account holds', async () => {
    const user = await insertUser(database.db)
    const at = new Date('2026-11-21T12:00:00Z')
    const text = (sid: string) => ({ messageSid: sid, fromNumber: '+12025550190', toNumber: '+15555550123', body: 'hello coach', keyword: null, matchedUsers: 1, receivedAt: at })
    const held = `SMheld${user.id.slice(0, 8)}`
    const unheld = `SMunheld${user.id.slice(0, 8)}`
    await database.db.insert(inboundTexts).values([text(held), text(unheld)])
    await database.db.insert(inboundTextAccounts).values({ messageSid: held, userId: user.id })
    const result = await deleteExpiredRecords(database.db, at)
    expect(result.unheldInboundTexts).toBeGreaterThanOrEqual(1)
    const left = await database.db.select({ sid: inboundTexts.messageSid }).from(inboundTexts).where(inArray(inboundTexts.messageSid, [held, unheld]))
    expect(left).toEqual([{ sid: held }])
  })

  it('deletes expired sessions and keeps live ones', async () => {
    const user = await insertUser(database.db)
    const now = new Date('2026-11-21T12:00:00Z')
    const day = 86_400_000
    await database.db.insert(sessions).values([
      { id: `live-${user.id}`, userId: user.id, secretHash: new Uint8Array(32), lastVerifiedAt: now, expiresAt: new Date(now.getTime() + day) },
      { id: `capped-${user.id}`, userId: user.id, secretHash: new Uint8Array(32), lastVerifiedAt: now, expiresAt: new Date(now.getTime() - 1) },
      { id: `idle-${user.id}`, userId: user.id, secretHash: new Uint8Array(32), lastVerifiedAt: new Date(now.getTime() - 31 * day), expiresAt: new Date(now.getTime() + 30 * day) },
    ])
    const result = await deleteExpiredRecords(database.db, now)
    expect(result.sessions).toBeGreaterThanOrEqual(2)
    const left = await database.db.select({ id: sessions.id }).from(sessions).where(and(eq(sessions.userId, user.id)))
    expect(left.map((row) => row.id)).toEqual([`live-${user.id}`])
  })
})
