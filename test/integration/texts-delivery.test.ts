/**
 * What becomes of a text after Twilio accepted it: POST /api/webhooks/sms/status against real
 * PostgreSQL, the texts sent through the official twilio SDK to the Twilio fake, whose status
 * callbacks are signed and posted to the StatusCallback the app gave, as Twilio does. The final
 * status once; 21610 a revocation; a number that cannot take texts gets none until it changes or
 * a START comes from it.
 */
import { and, asc, eq } from 'drizzle-orm'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { ConsentResponseSchema } from '#common/consent'
import { createSession } from '#server/auth/session'
import { consentEvents, consentStates, phoneProofs, profiles, textMessages, textSuppressions } from '#server/db/schema'
import { SEND_LEASE_MS } from '#server/services/texts'
import { buildTestApp } from '../helpers/app'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { freePort, startTextsHarness, type Harness } from '../helpers/texts-harness'

const at = (iso: string) => new Date(iso)

let database: TestDatabase
let port: number
let h: Harness | undefined

beforeAll(async () => {
  database = await createTestDatabase()
  port = await freePort()
})

afterAll(async () => {
  await database?.destroy()
})

afterEach(async () => {
  await h?.close()
  h = undefined
})

/** Monday 15 June 2026, 13:50 UTC = 9:50 AM in New York (EDT): inside the texting window. */
async function start(): Promise<Harness> {
  h = await startTextsHarness(database, { start: at('2026-06-15T13:50:00Z'), port })
  return h
}

const textsOf = (userId: string) => database.db.select().from(textMessages).where(eq(textMessages.userId, userId)).orderBy(asc(textMessages.createdAt), asc(textMessages.dedupeKey))
const suppressionsOf = (userId: string) => database.db.select().from(textSuppressions).where(eq(textSuppressions.userId, userId))

/** Asks for one text to the person and runs its sending; returns the sid Twilio gave it. */
async function textTo(harness: Harness, userId: string, phone: string, key: string): Promise<string> {
  await harness.app.services.texts.sendText({ userId, kind: 'weekly_report', dedupeKey: `${key}:${userId}`, content: `Text ${key}` })
  await harness.settle()
  const sent = harness.twilio.sentTo(phone).find((message) => message.body.includes(`Text ${key}`))
  if (!sent) throw new Error(`no text ${key} reached the fake`)
  return sent.sid
}

/**
 * Asks for one text whose creation Twilio holds: resolves with its sid once Twilio has it (its
 * callbacks can be sent), and `answer()` lets Twilio's answer reach the sender and waits for it.
 */
async function sendHeld(harness: Harness, userId: string, key: string): Promise<{ sid: string; answer: () => Promise<void> }> {
  const held = harness.twilio.holdNextCreate()
  await harness.app.services.texts.sendText({ userId, kind: 'weekly_report', dedupeKey: `${key}:${userId}`, content: `Text ${key}` })
  const sending = harness.settle()
  const sid = await held.created
  return {
    sid,
    answer: async () => {
      held.release()
      await sending
    },
  }
}

/** The claim's lease runs out and the release run gives up on its answer (as when its sender died). */
async function giveUp(harness: Harness): Promise<void> {
  harness.clock.set(new Date(harness.clock.now().getTime() + SEND_LEASE_MS + 1_000))
  await harness.app.services.texts.release()
}

async function consentView(harness: Harness, userId: string) {
  const { token } = await createSession(harness.app.db, harness.clock, userId)
  const response = await harness.app.inject({ method: 'GET', url: '/api/consent', headers: { cookie: `session=${token}` } })
  expect(response.statusCode).toBe(200)
  return ConsentResponseSchema.parse(response.json())
}

describe('the status callback', () => {
  it('is asked for on every text, and records its final status once: a repeat, a late "sent" or a second verdict change nothing', async () => {
    const harness = await start()
    const { user, phone } = await harness.person()
    const sid = await textTo(harness, user.id, phone, 'a')
    const [message] = harness.twilio.sentTo(phone)
    const [text] = await textsOf(user.id)
    expect(message!.statusCallback).toBe(`${harness.app.config.appUrl}/api/webhooks/sms/status?text=${text!.id}`)
    expect(text).toMatchObject({ status: 'sent', providerSid: sid })

    // On the way: still 'sent'.
    expect((await harness.twilio.status(sid, 'sending')).status).toBe(204)
    expect(await textsOf(user.id)).toMatchObject([{ status: 'sent' }])

    expect((await harness.twilio.status(sid, 'delivered')).status).toBe(204)
    expect(await textsOf(user.id)).toMatchObject([{ status: 'delivered', errorCode: null }])

    for (const late of ['delivered', 'sent', 'undelivered'] as const) {
      expect((await harness.twilio.status(sid, late, late === 'undelivered' ? { errorCode: 30006 } : {})).status).toBe(204)
    }
    expect(await textsOf(user.id)).toMatchObject([{ status: 'delivered', errorCode: null }])
    expect(await suppressionsOf(user.id)).toEqual([])
  })

  it('answers 403 to a forged, missing or re-aimed signature, and changes nothing', async () => {
    const harness = await start()
    const { user, phone } = await harness.person()
    const sid = await textTo(harness, user.id, phone, 'a')
    const forged = await harness.twilio.status(sid, 'undelivered', { errorCode: 30006, signature: harness.twilio.sign(`${harness.app.config.appUrl}/api/webhooks/sms/status`, { MessageSid: sid }, 'a-different-auth-token-000000000') })
    const missing = await harness.twilio.status(sid, 'undelivered', { errorCode: 30006, signature: null })
    // Signed for the inbound webhook's URL, posted to the status one.
    const params = { MessageSid: sid, SmsSid: sid, AccountSid: harness.twilio.accountSid, MessageStatus: 'undelivered', ErrorCode: '30006' }
    const reaimed = await harness.app.inject({
      method: 'POST',
      url: '/api/webhooks/sms/status',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': harness.twilio.sign(`${harness.app.config.appUrl}/api/webhooks/sms`, params) },
      payload: new URLSearchParams(params).toString(),
    })
    for (const response of [forged, missing, { status: reaimed.statusCode, body: reaimed.body }]) {
      expect(response.status).toBe(403)
      expect(JSON.parse(response.body)).toMatchObject({ error: { code: 'FORBIDDEN' } })
    }
    expect(await textsOf(user.id)).toMatchObject([{ status: 'sent' }])
    expect(await suppressionsOf(user.id)).toEqual([])
  })

  it('names the field a signed callback lacks or gets wrong (400), and takes one for a text it does not know without acting', async () => {
    const harness = await start()
    const { user, phone } = await harness.person()
    const sid = await textTo(harness, user.id, phone, 'a')
    const url = `${harness.app.config.appUrl}/api/webhooks/sms/status`
    const post = (params: Record<string, string>) =>
      harness.app.inject({
        method: 'POST',
        url: '/api/webhooks/sms/status',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': harness.twilio.sign(url, params) },
        payload: new URLSearchParams(params).toString(),
      })
    const noStatus = await post({ MessageSid: sid, AccountSid: harness.twilio.accountSid })
    expect(noStatus.statusCode).toBe(400)
    expect(noStatus.json()).toMatchObject({ error: { code: 'VALIDATION_FAILED', field: 'MessageStatus' } })
    const badCode = await post({ MessageSid: sid, MessageStatus: 'undelivered', ErrorCode: 'landline' })
    expect(badCode.statusCode).toBe(400)
    expect(badCode.json()).toMatchObject({ error: { code: 'VALIDATION_FAILED', field: 'ErrorCode' } })
    const noSid = await post({ MessageStatus: 'delivered' })
    expect(noSid.statusCode).toBe(400)
    expect(noSid.json()).toMatchObject({ error: { code: 'VALIDATION_FAILED', field: 'MessageSid' } })
    const badText = await harness.app.inject({
      method: 'POST',
      url: '/api/webhooks/sms/status?text=42',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': harness.twilio.sign(`${url}?text=42`, { MessageSid: sid, MessageStatus: 'delivered' }) },
      payload: new URLSearchParams({ MessageSid: sid, MessageStatus: 'delivered' }).toString(),
    })
    expect(badText.statusCode).toBe(400)
    expect(badText.json()).toMatchObject({ error: { code: 'VALIDATION_FAILED', field: 'text' } })

    const unknown = await post({ MessageSid: `SM${'f'.repeat(32)}`, MessageStatus: 'undelivered', ErrorCode: '30006' })
    expect(unknown.statusCode).toBe(204)
    expect(await textsOf(user.id)).toMatchObject([{ status: 'sent' }])
    expect(await database.db.select().from(textSuppressions)).toEqual([])
  })

  it('that overtakes Twilio\'s answer finds its text by the id in its URL; the answer then keeps the verdict', async () => {
    const harness = await start()
    const { user, phone } = await harness.person()
    const { sid, answer } = await sendHeld(harness, user.id, 'overtaken')
    expect(await textsOf(user.id)).toMatchObject([{ status: 'sending', providerSid: null }])

    // Twilio's callbacks come before its answer: "sent" names the text, "undelivered" is its verdict.
    expect((await harness.twilio.status(sid, 'sent')).status).toBe(204)
    expect(await textsOf(user.id)).toMatchObject([{ status: 'sending', providerSid: sid }])
    expect((await harness.twilio.status(sid, 'undelivered', { errorCode: 30006 })).status).toBe(204)
    expect(await textsOf(user.id)).toMatchObject([{ status: 'undelivered', errorCode: 30006, providerSid: sid }])
    expect(await suppressionsOf(user.id)).toMatchObject([{ toNumber: phone, errorCode: 30006 }])

    await answer()
    expect(await textsOf(user.id)).toMatchObject([{ status: 'undelivered', errorCode: 30006, providerSid: sid, sentAt: harness.clock.now() }])
  })

  it("tells what became of a text whose answer from Twilio never came (marked failed, 'unknown')", async () => {
    const harness = await start()
    const { user, phone } = await harness.person()
    const { sid, answer } = await sendHeld(harness, user.id, 'unanswered')
    await giveUp(harness)
    expect(await textsOf(user.id)).toMatchObject([{ status: 'failed', skipReason: expect.stringMatching(/^unknown:/) }])
    expect((await harness.twilio.status(sid, 'delivered')).status).toBe(204)
    expect(await textsOf(user.id)).toMatchObject([{ status: 'delivered', providerSid: sid, skipReason: null, toNumber: phone }])
    await answer()
    expect(await textsOf(user.id)).toMatchObject([{ status: 'delivered', providerSid: sid }])
  })

  it('an answer from Twilio that comes after the sweep gave up on it makes the text sent after all', async () => {
    const harness = await start()
    const { user } = await harness.person()
    const { sid, answer } = await sendHeld(harness, user.id, 'slow')
    await giveUp(harness)
    await answer()
    expect(await textsOf(user.id)).toMatchObject([{ status: 'sent', skipReason: null, providerSid: sid }])
  })

  it('refuses every callback when Twilio is not configured (nothing could be verified)', async () => {
    const app = await buildTestApp({ database })
    try {
      const response = await app.inject({
        method: 'POST',
        url: '/api/webhooks/sms/status',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': 'abc' },
        payload: `MessageSid=SM${'0'.repeat(32)}&MessageStatus=delivered`,
      })
      expect(response.statusCode).toBe(403)
      expect(response.json()).toMatchObject({ error: { code: 'FORBIDDEN' } })
    } finally {
      await app.close()
    }
  })
})

describe('what a delivery error says', () => {
  it('21610 after Twilio accepted the text: the person opted out with the carrier, recorded as a revocation of texts', async () => {
    const harness = await start()
    const { user, phone } = await harness.person()
    const sid = await textTo(harness, user.id, phone, 'a')
    await harness.twilio.status(sid, 'undelivered', { errorCode: 21610 })
    expect(await textsOf(user.id)).toMatchObject([{ status: 'undelivered', errorCode: 21610 }])
    const revoked = await database.db.select().from(consentEvents).where(and(eq(consentEvents.userId, user.id), eq(consentEvents.source, 'carrier_opt_out')))
    expect(revoked).toMatchObject([{ channel: 'texts', action: 'revoked', detail: { errorCode: 21610 } }])
    const [state] = await database.db.select().from(consentStates).where(and(eq(consentStates.userId, user.id), eq(consentStates.channel, 'texts')))
    expect(state!.granted).toBe(false)
    // Nothing more goes out.
    await harness.app.services.texts.sendText({ userId: user.id, kind: 'weekly_report', dedupeKey: `b:${user.id}`, content: 'Text b' })
    await harness.settle()
    expect(harness.twilio.sentTo(phone)).toHaveLength(1)
  })

  it('a landline (30006): no more texts to that number, the consent page says why; a START from it, or a new number, texts again', async () => {
    const harness = await start()
    const { user, phone } = await harness.person()
    const sid = await textTo(harness, user.id, phone, 'a')
    await harness.twilio.status(sid, 'undelivered', { errorCode: 30006 })
    expect(await textsOf(user.id)).toMatchObject([{ status: 'undelivered', errorCode: 30006 }])
    expect(await suppressionsOf(user.id)).toMatchObject([{ toNumber: phone, errorCode: 30006, textId: (await textsOf(user.id))[0]!.id }])
    // Consent is the person's, untouched: it is the number that cannot take texts.
    const [state] = await database.db.select().from(consentStates).where(and(eq(consentStates.userId, user.id), eq(consentStates.channel, 'texts')))
    expect(state!.granted).toBe(true)

    await harness.app.services.texts.sendText({ userId: user.id, kind: 'weekly_report', dedupeKey: `b:${user.id}`, content: 'Text b' })
    await harness.settle()
    expect(harness.twilio.sentTo(phone)).toHaveLength(1)
    expect((await textsOf(user.id)).map((text) => [text.content, text.status, text.skipReason])).toEqual([
      ['Text a', 'undelivered', null],
      ['Text b', 'skipped', 'undeliverable'],
    ])
    const digits = phone.slice(2)
    expect((await consentView(harness, user.id)).texts_undeliverable).toEqual({
      display_number: `(${digits.slice(0, 3)}) ${digits.slice(3, 6)}-${digits.slice(6)}`,
      error_code: 30006,
      reason: 'it is a landline, or its carrier cannot take texts',
      since: '2026-06-15T13:50:00.000Z',
    })

    // A START from the number: it takes texts after all.
    expect((await harness.twilio.inbound({ from: phone, body: 'START' })).status).toBe(200)
    expect(await suppressionsOf(user.id)).toEqual([])
    expect((await consentView(harness, user.id)).texts_undeliverable).toBeNull()
    await textTo(harness, user.id, phone, 'c')

    // Another landline verdict, then the person moves to a new number: the new one gets texts.
    const again = harness.twilio.sentTo(phone).at(-1)!.sid
    await harness.twilio.status(again, 'undelivered', { errorCode: 30006 })
    expect((await consentView(harness, user.id)).texts_undeliverable).not.toBeNull()
    await database.db.update(profiles).set({ phoneNumber: '2025009876' }).where(eq(profiles.id, user.id))
    // Proven the person's, as the phone change's code proves it (an unproven number gets nothing).
    await database.db.update(phoneProofs).set({ phoneNumber: '2025009876' }).where(eq(phoneProofs.userId, user.id))
    expect((await consentView(harness, user.id)).texts_undeliverable).toBeNull()
    await textTo(harness, user.id, '+12025009876', 'd')
  })

  it('a number Twilio refuses at once as not a mobile number (21614) gets no more texts either', async () => {
    const harness = await start()
    // Twilio answers the send with "not a valid mobile number" (a landline, a number that cannot get texts).
    const { user } = await harness.person()
    harness.twilio.failNext(1, { status: 400, code: 21614, message: "'To' number is not a valid mobile number" })
    await harness.app.services.texts.sendText({ userId: user.id, kind: 'weekly_report', dedupeKey: `a:${user.id}`, content: 'Text a' })
    await harness.settle()
    await harness.app.services.texts.sendText({ userId: user.id, kind: 'weekly_report', dedupeKey: `b:${user.id}`, content: 'Text b' })
    await harness.settle()
    expect((await textsOf(user.id)).map((text) => [text.status, text.errorCode, text.skipReason?.slice(0, 13) ?? null])).toEqual([
      ['failed', 21614, "'To' number i"],
      ['skipped', null, 'undeliverable'],
    ])
    expect(harness.twilio.requests.filter((request) => request.method === 'POST')).toHaveLength(1)
    expect((await consentView(harness, user.id)).texts_undeliverable).toMatchObject({ error_code: 21614, reason: 'it is not a mobile number' })
  })

  it('a late "delivered" after "undelivered" wins: the text was delivered, its number texted again', async () => {
    const harness = await start()
    const { user, phone } = await harness.person()
    const sid = await textTo(harness, user.id, phone, 'a')
    await harness.twilio.status(sid, 'undelivered', { errorCode: 30005 })
    expect(await suppressionsOf(user.id)).toHaveLength(1)
    await harness.twilio.status(sid, 'delivered')
    expect(await textsOf(user.id)).toMatchObject([{ status: 'delivered', errorCode: null }])
    expect(await suppressionsOf(user.id)).toEqual([])
    await textTo(harness, user.id, phone, 'b')
  })

  it('a transient error (30003, the handset unreachable) is recorded and changes nothing else', async () => {
    const harness = await start()
    const { user, phone } = await harness.person()
    const sid = await textTo(harness, user.id, phone, 'a')
    await harness.twilio.status(sid, 'undelivered', { errorCode: 30003 })
    expect(await textsOf(user.id)).toMatchObject([{ status: 'undelivered', errorCode: 30003 }])
    expect(await suppressionsOf(user.id)).toEqual([])
    await textTo(harness, user.id, phone, 'b')
  })
})
