/**
 * Deleting an account stops what was still to come for the person: on the embedded runner and a
 * test clock, with the Vapi fake placing the daily calls and the Twilio fake taking the texts. A
 * call ringing at Vapi is deleted there, a call the scheduler had already queued is never dialled,
 * a held text never leaves, and what Vapi sends about the deleted calls afterwards is not kept.
 */
import { eq } from 'drizzle-orm'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { hashPassword } from '#server/auth/password'
import { createSession } from '#server/auth/session'
import { textMessages, users, type User } from '#server/db/schema'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { placesHolding } from '../helpers/person-data'
import { freePort, startTextsHarness, type Harness } from '../helpers/texts-harness'

const at = (iso: string) => new Date(iso)
const PASSWORD = 'amber-canyon-lighthouse-7'

let database: TestDatabase
let port: number
let h: Harness
let passwordHash: string

beforeAll(async () => {
  database = await createTestDatabase()
  port = await freePort()
  passwordHash = await hashPassword(PASSWORD)
})

afterAll(async () => {
  await database?.destroy()
})

beforeEach(async () => {
  // Monday 15 June 2026, 13:50 UTC = 9:50 AM in New York (EDT).
  h = await startTextsHarness(database, { start: at('2026-06-15T13:50:00Z'), port })
})

afterEach(async () => {
  await h.close()
})

const dialsTo = (number: string) => h.vapi.calls.list().filter((call) => call.customer?.number === number)

/** Deletes the person's account through the API, as the account page does. */
async function deleteAccount(user: User): Promise<void> {
  await database.db.update(users).set({ passwordHash }).where(eq(users.id, user.id))
  const session = await createSession(database.db, h.clock, user.id)
  const response = await h.app.inject({
    method: 'POST',
    url: '/api/account/delete',
    remoteAddress: '127.0.0.1',
    headers: { origin: h.app.config.appOrigin, cookie: `session=${session.token}` },
    payload: { password: PASSWORD, email: user.email },
  })
  expect(response.statusCode, response.body).toBe(204)
}

describe('deleting an account with calls and texts still to come', () => {
  it('deletes at Vapi the call ringing now; a call already queued is never dialled; nothing of either is kept', async () => {
    const ringing = await h.person({ time: '09:52', scenario: 'no-answer' })
    const queued = await h.person({ time: '10:00' })
    // The fake plays the call step by step: queued, then ringing.
    h.vapi.calls.pacing = 'manual'
    await h.advanceTo(at('2026-06-15T13:52:02Z'))
    const [dial] = dialsTo(ringing.phone)
    await h.vapi.calls.advance()
    await h.vapi.calls.advance()
    await h.settle()
    expect(dial?.status).toBe('ringing')

    // 9:56: the tick (9:55:30) has queued the 10:00 call's job for 9:59:15.
    await h.advanceTo(at('2026-06-15T13:56:00Z'))
    await deleteAccount(ringing.user)
    await deleteAccount(queued.user)
    h.vapi.calls.pacing = 'auto'
    await h.advanceTo(at('2026-06-15T14:10:00Z'))

    expect(h.vapi.calls.isDeleted(dial!.id)).toBe(true)
    expect(dialsTo(queued.phone)).toHaveLength(0)
    // Vapi's messages about the deleted call (its end) found no row and were not kept.
    expect(await placesHolding(database.db, [ringing.user.id, ringing.user.email, queued.user.id, queued.user.email])).toEqual([])
  })

  it('a text held for the next morning never leaves', async () => {
    const { user, phone } = await h.person()
    // Three texts today reach the daily cap: a fourth is held for the next morning.
    for (const index of [1, 2, 3, 4]) await h.app.services.texts.sendText({ userId: user.id, kind: 'weekly_report', dedupeKey: `weekly_report:${user.id}:${index}`, content: `Report ${index}` })
    await h.settle()
    expect(h.twilio.sentTo(phone)).toHaveLength(3)
    expect((await database.db.select({ status: textMessages.status }).from(textMessages).where(eq(textMessages.userId, user.id))).map((text) => text.status)).toContain('held')
    await deleteAccount(user)
    // Through the evening, then the next morning's 8:00 AM (12:00 UTC) minute by minute.
    await h.advanceTo(at('2026-06-15T15:00:00Z'))
    await h.jumpTo(at('2026-06-16T11:55:00Z'))
    await h.advanceTo(at('2026-06-16T12:30:00Z'))
    expect(h.twilio.sentTo(phone)).toHaveLength(3)
    expect(await placesHolding(database.db, [user.id, user.email])).toEqual([])
  })
})
