/**
 * The consent ledger (migration 0007): append-only, its current state kept in the same
 * transaction, the consents given before it existed migrated into it, and sign-up's grant.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { asc, eq, sql } from 'drizzle-orm'
import { drizzle } from 'drizzle-orm/pglite'
import { migrate } from 'drizzle-orm/pglite/migrator'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CONSENT_TEXT } from '#common/auth'
import { ConsentResponseSchema } from '#common/consent'
import { MIGRATIONS_FOLDER, PGLITE_OPTIONS } from '#server/db/client'
import { consentEvents, consentStates, users } from '#server/db/schema'
import { getConsentState, hasConsent, listConsentHistory, recordConsent } from '#server/services/consent'
import { buildTestApp } from '../helpers/app'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { insertUser } from '../helpers/factories'
import { signedInUser } from '../helpers/users'

let database: TestDatabase

beforeAll(async () => {
  database = await createTestDatabase()
})

afterAll(async () => {
  await database?.destroy()
})

const at = (iso: string) => new Date(iso)

describe('the ledger', () => {
  it('keeps the latest row per channel as the current state, in append order whatever the clock said', async () => {
    const user = await insertUser(database.db)
    expect(await getConsentState(database.db, user.id)).toMatchObject({ calls: { granted: true }, texts: { granted: false, at: null }, report_emails: { granted: true, at: null } })
    await database.db.transaction(async (tx) => {
      await recordConsent(tx, [
        { userId: user.id, channel: 'texts', action: 'granted', source: 'opt_in_screen', text: 'shown', at: at('2026-06-15T10:00:00Z'), ip: '10.0.0.1', userAgent: 'UA' },
        { userId: user.id, channel: 'report_emails', action: 'revoked', source: 'email_unsubscribe', text: 'List-Unsubscribe', at: at('2026-06-15T10:00:00Z') },
      ])
    })
    // A row written later with an earlier time (another server's clock) still decides.
    await recordConsent(database.db, { userId: user.id, channel: 'texts', action: 'revoked', source: 'inbound_text', text: 'STOP', at: at('2026-06-15T09:00:00Z'), messageSid: 'SM1' })
    expect(await hasConsent(database.db, user.id, 'texts')).toBe(false)
    expect(await hasConsent(database.db, user.id, 'report_emails')).toBe(false)
    expect(await hasConsent(database.db, user.id, 'calls')).toBe(true)
    const history = await listConsentHistory(database.db, user.id)
    expect(history.map((row) => [row.channel, row.action, row.source])).toEqual([
      ['texts', 'revoked', 'inbound_text'],
      ['report_emails', 'revoked', 'email_unsubscribe'],
      ['texts', 'granted', 'opt_in_screen'],
      ['calls', 'granted', 'sign_up'],
    ])
    expect(history[2]).toMatchObject({ ip: '10.0.0.1', userAgent: 'UA', text: 'shown' })
  })

  it('refuses to change or remove a row, but goes with its account', async () => {
    const user = await insertUser(database.db)
    await expect(database.db.update(consentEvents).set({ action: 'revoked' }).where(eq(consentEvents.userId, user.id))).rejects.toMatchObject({ cause: { message: expect.stringMatching(/append-only/) } })
    await expect(database.db.delete(consentEvents).where(eq(consentEvents.userId, user.id))).rejects.toMatchObject({ cause: { message: expect.stringMatching(/append-only/) } })
    // A keyword row must name its message.
    await expect(
      database.db.insert(consentEvents).values({ userId: user.id, channel: 'texts', action: 'revoked', source: 'inbound_text', text: 'STOP', at: new Date() }),
    ).rejects.toThrow()
    await database.db.delete(users).where(eq(users.id, user.id))
    expect(await database.db.select().from(consentEvents).where(eq(consentEvents.userId, user.id))).toHaveLength(0)
    expect(await database.db.select().from(consentStates).where(eq(consentStates.userId, user.id))).toHaveLength(0)
  })

  it('a rolled-back transaction leaves neither the row nor the state', async () => {
    const user = await insertUser(database.db)
    await expect(
      database.db.transaction(async (tx) => {
        await recordConsent(tx, { userId: user.id, channel: 'calls', action: 'revoked', source: 'settings', text: 'off', at: new Date() })
        throw new Error('the caller failed after')
      }),
    ).rejects.toThrow('the caller failed after')
    expect(await hasConsent(database.db, user.id, 'calls')).toBe(true)
  })

  it('sign-up records the grant of calls with the checkbox’s text, the client address and user agent', async () => {
    const app = await buildTestApp({ database })
    try {
      const response = await app.inject({
        method: 'POST',
        url: '/api/auth/signup',
        headers: { origin: app.config.appOrigin, 'user-agent': 'ConsentTest/1.0', 'x-forwarded-for': '203.0.113.7' },
        payload: { fullName: 'Ada Lovelace', email: `ada-${Date.now()}@example.com`, phoneNumber: '(202) 523-4567', password: 'velvet-harbor-lantern', confirmPassword: 'velvet-harbor-lantern', communicationConsent: true, termsAccepted: true },
      })
      expect(response.statusCode, response.body).toBe(201)
      const userId = response.json().user.id as string
      const rows = await database.db.select().from(consentEvents).where(eq(consentEvents.userId, userId))
      expect(rows).toEqual([expect.objectContaining({ channel: 'calls', action: 'granted', source: 'sign_up', text: CONSENT_TEXT, ip: '203.0.113.7', userAgent: 'ConsentTest/1.0' })])
      expect(await getConsentState(database.db, userId)).toMatchObject({ calls: { granted: true }, texts: { granted: false } })
    } finally {
      await app.close()
    }
  })
})

describe('/api/consent', () => {
  it('shows the person’s channels and ledger, turns texts off (back on only by START) and report emails off and on', async () => {
    const app = await buildTestApp({ database, env: { SMS_OPT_IN_NUMBER: '+15557654321' } })
    try {
      expect((await app.inject({ method: 'GET', url: '/api/consent' })).statusCode).toBe(401)
      const { user, headers } = await signedInUser(app, { paid: 'basic' })
      const someoneElse = await signedInUser(app, { paid: 'basic' })
      await recordConsent(database.db, { userId: someoneElse.user.id, channel: 'texts', action: 'granted', source: 'opt_in_screen', text: 'theirs', at: new Date() })
      await recordConsent(database.db, { userId: user.id, channel: 'texts', action: 'granted', source: 'opt_in_screen', text: 'mine', at: new Date() })
      const view = ConsentResponseSchema.parse((await app.inject({ method: 'GET', url: '/api/consent', headers })).json())
      expect(view.channels).toMatchObject({ calls: { granted: true }, texts: { granted: true }, report_emails: { granted: true, at: null } })
      expect(view.history.map((row) => [row.channel, row.action, row.source, row.text])).toEqual([
        ['texts', 'granted', 'opt_in_screen', 'mine'],
        ['calls', 'granted', 'sign_up', CONSENT_TEXT],
      ])
      expect(view).toMatchObject({ sms_number: '+15557654321', display_number: '(555) 765-4321' })

      const put = (channel: string, payload: unknown) =>
        app.inject({ method: 'PUT', url: `/api/consent/${channel}`, headers: { ...headers, 'user-agent': 'Settings/1.0' }, payload: payload as object })
      const off = ConsentResponseSchema.parse((await put('texts', { enabled: false })).json())
      expect(off.channels.texts.granted).toBe(false)
      expect(off.history[0]).toMatchObject({ channel: 'texts', action: 'revoked', source: 'settings', text: 'Coaching texts: Off' })
      const [row] = await database.db.select().from(consentEvents).where(eq(consentEvents.id, off.history[0]!.id))
      expect(row).toMatchObject({ userAgent: 'Settings/1.0', ip: expect.any(String) })
      // The same again is no new decision.
      expect(ConsentResponseSchema.parse((await put('texts', { enabled: false })).json()).history).toHaveLength(off.history.length)

      const on = await put('texts', { enabled: true })
      expect(on.statusCode).toBe(400)
      expect(on.json().error).toMatchObject({ field: 'enabled', message: 'To get texts again, text START to (555) 765-4321.' })
      expect((await put('calls', { enabled: false })).json().error).toMatchObject({ code: 'VALIDATION_FAILED', field: 'channel' })
      expect((await put('report_emails', {})).json().error).toMatchObject({ field: 'enabled' })

      expect(ConsentResponseSchema.parse((await put('report_emails', { enabled: false })).json()).channels.report_emails.granted).toBe(false)
      const back = ConsentResponseSchema.parse((await put('report_emails', { enabled: true })).json())
      expect(back.channels.report_emails.granted).toBe(true)
      expect(back.history.slice(0, 2).map((entry) => entry.text)).toEqual(['Weekly report emails: On', 'Weekly report emails: Off'])
      // Nothing of anyone else's.
      expect(back.history.some((entry) => entry.text === 'theirs')).toBe(false)
      // Cross-site changes are refused.
      expect((await app.inject({ method: 'PUT', url: '/api/consent/texts', headers: { cookie: headers.cookie, origin: 'https://evil.example.com' }, payload: { enabled: false } })).statusCode).toBe(403)
    } finally {
      await app.close()
    }
  })
})

describe('migration 0007', () => {
  it('moves the consents given before the ledger into it', async () => {
    // The migrations up to 0006, as a database had them before this one.
    const before = mkdtempSync(join(tmpdir(), 'mc-migrations-'))
    const client = new PGlite(PGLITE_OPTIONS)
    try {
      cpSync(MIGRATIONS_FOLDER, before, { recursive: true })
      const journal = JSON.parse(readFileSync(join(before, 'meta/_journal.json'), 'utf8')) as { entries: Array<{ tag: string }> }
      const index = journal.entries.findIndex((entry) => entry.tag.startsWith('0007_'))
      journal.entries = journal.entries.slice(0, index)
      writeFileSync(join(before, 'meta/_journal.json'), JSON.stringify(journal))
      const db = drizzle({ client, casing: 'snake_case' })
      await migrate(db, { migrationsFolder: before })

      await client.exec(`
        insert into users (id, email, password_hash, full_name, phone_number, communication_consent_version, communication_consent_at, terms_accepted_at) values
          ('00000000-0000-4000-8000-000000000001', 'a@example.com', 'x', 'A', '2025000001', '2026-11-01', '2026-11-02T10:00:00Z', '2026-11-02T10:00:00Z'),
          ('00000000-0000-4000-8000-000000000002', 'b@example.com', 'x', 'B', '2025000002', '2026-11-01', '2026-11-03T10:00:00Z', '2026-11-03T10:00:00Z');
        insert into profiles (id, sms_opted_in_at, sms_opt_in_consent_text, calls_consent_revoked_at) values
          ('00000000-0000-4000-8000-000000000001', '2026-11-02T10:05:00Z', 'Text START to (555) 555-0123 ...', null),
          ('00000000-0000-4000-8000-000000000002', null, null, '2026-11-04T08:00:00Z');`)

      await migrate(db, { migrationsFolder: MIGRATIONS_FOLDER })
      const rows = await db.select().from(consentEvents).orderBy(asc(consentEvents.id))
      const shown = rows.map((row) => [row.userId.slice(-1), row.channel, row.action, row.source, row.at.toISOString(), row.detail?.backfilled])
      expect(shown).toEqual([
        ['1', 'calls', 'granted', 'sign_up', '2026-11-02T10:00:00.000Z', true],
        ['2', 'calls', 'granted', 'sign_up', '2026-11-03T10:00:00.000Z', true],
        ['1', 'texts', 'granted', 'opt_in_screen', '2026-11-02T10:05:00.000Z', true],
        ['2', 'calls', 'revoked', 'settings', '2026-11-04T08:00:00.000Z', true],
      ])
      expect(rows[0]!.text).toBe(CONSENT_TEXT)
      expect(rows[2]!.text).toBe('Text START to (555) 555-0123 ...')
      const states = await db.select().from(consentStates).orderBy(asc(consentStates.userId), asc(consentStates.channel))
      expect(states.map((state) => [state.userId.slice(-1), state.channel, state.granted])).toEqual([
        ['1', 'calls', true],
        ['1', 'texts', true],
        ['2', 'calls', false],
      ])
      // The column the ledger replaced is gone.
      const columns = await db.execute(sql`select column_name from information_schema.columns where table_name = 'profiles' and column_name = 'calls_consent_revoked_at'`)
      expect(columns.rows).toHaveLength(0)
    } finally {
      await client.close()
      rmSync(before, { recursive: true, force: true })
    }
  })
})
