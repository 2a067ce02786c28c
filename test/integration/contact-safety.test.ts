/**
 * Contact safety (issue 31, docs/decisions/060): only a person's own phone is ever called or
 * texted. The real app on a test clock with the Vapi and Twilio fakes (texts-harness): a number is
 * proven (a START from it, or the code texted to it) before anything reaches it; a STOP belongs to
 * the phone (the do-not-contact list), whatever account holds the number now or later; the texts a
 * number sent belong to the accounts they reached; code texts cannot be pumped.
 */
import { randomBytes } from 'node:crypto'
import { asc, eq } from 'drizzle-orm'
import type { InjectOptions } from 'fastify'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { AccountResponseSchema } from '#common/account'
import { SessionUserResponseSchema } from '#common/auth'
import { NextCallResponseSchema } from '#common/calls'
import type { UpdateCallSchedule } from '#common/calls'
import { ErrorBodySchema } from '#common/errors'
import { CRISIS_REPLY } from '#common/texts'
import { hashPassword } from '#server/auth/password'
import { createSession } from '#server/auth/session'
import { coachingCalls, doNotContact, inboundTextAccounts, inboundTexts, inboundTextSweeps, phoneProofs, profiles, textMessages, users } from '#server/db/schema'
import { activateTestingPlan } from '#server/services/billing'
import { numberDigest } from '#server/services/phones'
import { sessionCookieFrom } from '../helpers/app'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { insertUser } from '../helpers/factories'
import { freePort, startTextsHarness, type Harness } from '../helpers/texts-harness'
import { readZip } from '../helpers/zip'

const at = (iso: string) => new Date(iso)
const PASSWORD = 'amber-lantern-orchard-7'

let database: TestDatabase
let port: number
let h: Harness
let passwordHash: string
let ipCounter = 0

beforeAll(async () => {
  database = await createTestDatabase()
  port = await freePort()
  passwordHash = await hashPassword(PASSWORD)
})

afterAll(async () => {
  await database?.destroy()
})

beforeEach(async () => {
  // Each test's clock starts again at the same morning: the last test's sweep of Twilio's log is
  // forgotten (in real time it is always behind the clock).
  await database.db.delete(inboundTextSweeps)
  // Monday 15 June 2026, 13:50 UTC = 9:50 AM in New York (EDT).
  h = await startTextsHarness(database, { start: at('2026-06-15T13:50:00Z'), port })
})

afterEach(async () => {
  await h.close()
})

const errorOf = (response: { json(): unknown }) => ErrorBodySchema.parse(response.json()).error
const dialsTo = (number: string) => h.vapi.calls.list().filter((call) => call.customer?.number === number)
const callsOf = (userId: string) => database.db.select().from(coachingCalls).where(eq(coachingCalls.userId, userId)).orderBy(asc(coachingCalls.callDate))

async function call(options: InjectOptions & { cookie?: string }) {
  const { cookie, ...rest } = options
  return h.app.inject({
    ...rest,
    remoteAddress: '127.0.0.1',
    headers: { origin: h.app.config.appUrl, 'x-forwarded-for': `10.31.${Math.floor(++ipCounter / 250)}.${ipCounter % 250}`, ...(cookie ? { cookie } : {}), ...(rest.headers ?? {}) },
  })
}

/** Signs up through the API with `phone` (ten digits), as anyone could: consent to calls at sign-up, no proof of the number. */
async function signUp(phone: string) {
  const email = `person-${randomBytes(4).toString('hex')}@example.com`
  const response = await call({
    method: 'POST',
    url: '/api/auth/signup',
    payload: { fullName: 'Pat Stranger', email, phoneNumber: phone, password: PASSWORD, confirmPassword: PASSWORD, communicationConsent: true, termsAccepted: true },
  })
  expect(response.statusCode, response.body).toBe(201)
  const user = SessionUserResponseSchema.parse(response.json()).user
  return { userId: user.id, email, cookie: sessionCookieFrom(response) }
}

/** What a paying, onboarded member has: a plan, a call time at 10:00 New York, texts on. */
async function readyForCalls(userId: string, time = '10:00') {
  await database.db.update(profiles).set({ onboardingCompleted: true, dailyCallTime: time, timezone: 'America/New_York' }).where(eq(profiles.id, userId))
  await activateTestingPlan(database.db, userId, 'basic', h.clock.now())
}

/** A member signed in with a known password and a confirmed email; `proven: false` leaves the number unproven. */
async function member(phone: string, options: { proven?: boolean; confirmed?: boolean } = {}) {
  const user = await insertUser(database.db, { phoneNumber: phone, passwordHash, emailConfirmedAt: options.confirmed === false ? null : h.clock.now() }, { proven: options.proven ?? true })
  const session = await createSession(database.db, h.clock, user.id)
  return { user, cookie: `session=${session.token}` }
}

const nextCall = async (cookie: string) => NextCallResponseSchema.parse((await call({ method: 'GET', url: '/api/calls/next', cookie })).json())
const account = async (cookie: string) => AccountResponseSchema.parse((await call({ method: 'GET', url: '/api/account', cookie })).json())
const isListed = async (e164: string) => (await database.db.select().from(doNotContact).where(eq(doNotContact.numberDigest, numberDigest(e164)))).length > 0

async function setCalls(cookie: string, callsEnabled: boolean) {
  const schedule: UpdateCallSchedule = { dailyCallTime: '10:00', timeZone: 'America/New_York', eveningCallTime: null, pausedUntil: null, callsEnabled }
  return call({ method: 'PUT', url: '/api/calls/schedule', cookie, payload: schedule })
}

/** The last code texted to `e164` through the Twilio fake. */
function codeTextedTo(e164: string): string {
  const text = h.twilio.sentTo(e164).at(-1)
  const code = text && /(\d{6}) is your code/.exec(text.body)?.[1]
  if (!code) throw new Error(`no code texted to ${e164}`)
  return code
}

describe('a number is proven before anything reaches it', () => {
  it("a stranger's number typed at sign-up is never called or texted: no daily call, no 'Call me now', no recap; the card says why", async () => {
    const victim = '+12025550171'
    const stranger = await signUp('2025550171')
    await readyForCalls(stranger.userId)
    // The sign-up's consent is in the ledger, but it waits for the proof.
    await h.advanceTo(at('2026-06-15T14:30:00Z'))
    expect(dialsTo(victim)).toHaveLength(0)
    expect(await callsOf(stranger.userId)).toEqual([])
    expect(await nextCall(stranger.cookie)).toMatchObject({ next: null, reason: 'unverified' })
    const now = await call({ method: 'POST', url: '/api/calls/test', cookie: stranger.cookie })
    expect(now.statusCode).toBe(409)
    expect(errorOf(now).code).toBe('NUMBER_NOT_VERIFIED')
    // A text asked for (a weekly report's link) is skipped, not sent.
    await h.app.services.texts.sendText({ userId: stranger.userId, kind: 'weekly_report', dedupeKey: `weekly_report:${stranger.userId}:x`, content: 'Your report' })
    await h.settle()
    expect(h.twilio.sentTo(victim)).toEqual([])
    expect(await account(stranger.cookie)).toMatchObject({ phoneVerified: false, phoneStopped: false })
  })

  it('a START from the number proves it (the only account with it): the next day is called', async () => {
    const { userId, cookie } = await signUp('2025550172')
    await readyForCalls(userId)
    expect((await h.twilio.inbound({ from: '+12025550172', body: 'START' })).status).toBe(200)
    const [proof] = await database.db.select().from(phoneProofs).where(eq(phoneProofs.userId, userId))
    expect(proof).toMatchObject({ phoneNumber: '2025550172', method: 'inbound_text' })
    expect((await account(cookie)).phoneVerified).toBe(true)
    await h.advanceTo(at('2026-06-15T14:30:00Z'))
    expect(dialsTo('+12025550172')).toHaveLength(1)
  })

  it('a START from a number two accounts use proves neither: each proves it with the code', async () => {
    const first = await signUp('2025550173')
    const second = await signUp('2025550173')
    await h.twilio.inbound({ from: '+12025550173', body: 'START' })
    expect(await database.db.select().from(phoneProofs).where(eq(phoneProofs.phoneNumber, '2025550173'))).toEqual([])
    expect((await account(first.cookie)).phoneVerified).toBe(false)
    expect((await account(second.cookie)).phoneVerified).toBe(false)
  })

  it('the code texted to the number, typed in the app, proves it; a wrong code does not', async () => {
    const { user, cookie } = await member('2025550174', { proven: false })
    await readyForCalls(user.id)
    const asked = await call({ method: 'POST', url: '/api/account/phone/verification', cookie })
    expect(asked.statusCode, asked.body).toBe(202)
    expect(AccountResponseSchema.parse(asked.json())).toMatchObject({ phoneVerified: false, pendingVerification: { expiresAt: expect.any(String) } })
    const code = codeTextedTo('+12025550174')
    expect(h.twilio.sentTo('+12025550174')[0]!.body).toMatch(/verify this number/)
    const wrong = await call({ method: 'POST', url: '/api/account/phone/verification/confirm', cookie, payload: { code: code === '000000' ? '111111' : '000000' } })
    expect(wrong.statusCode).toBe(400)
    expect(errorOf(wrong)).toMatchObject({ code: 'INVALID_CODE', field: 'code' })
    const confirmed = await call({ method: 'POST', url: '/api/account/phone/verification/confirm', cookie, payload: { code } })
    expect(confirmed.statusCode).toBe(200)
    expect(AccountResponseSchema.parse(confirmed.json())).toMatchObject({ phoneVerified: true, pendingVerification: null })
    await h.advanceTo(at('2026-06-15T14:30:00Z'))
    expect(dialsTo('+12025550174')).toHaveLength(1)
  })

  it('changing the number proves the new one by its code, and a number changed any other way is not proven', async () => {
    const { user, cookie } = await member('2025550175')
    await readyForCalls(user.id)
    const asked = await call({ method: 'POST', url: '/api/account/phone', cookie, payload: { phoneNumber: '2025550176', currentPassword: PASSWORD } })
    expect(asked.statusCode, asked.body).toBe(202)
    const changed = await call({ method: 'POST', url: '/api/account/phone/confirm', cookie, payload: { code: codeTextedTo('+12025550176') } })
    expect(AccountResponseSchema.parse(changed.json())).toMatchObject({ phoneNumber: '2025550176', phoneVerified: true })
    // The number moved without its code (as a hand edit would): not proven, not called.
    await database.db.update(profiles).set({ phoneNumber: '2025550177' }).where(eq(profiles.id, user.id))
    await database.db.update(users).set({ phoneNumber: '2025550177' }).where(eq(users.id, user.id))
    expect(await nextCall(cookie)).toMatchObject({ reason: 'unverified' })
    await h.advanceTo(at('2026-06-15T14:30:00Z'))
    expect(dialsTo('+12025550177')).toHaveLength(0)
  })

  it.each([
    ['8765551234', 'Jamaica (+1 876)'],
    ['8095551234', 'the Dominican Republic (+1 809)'],
    ['2845551234', 'the British Virgin Islands (+1 284)'],
    ['8005551234', 'a toll-free number'],
    ['9005551234', 'a premium-rate number'],
    ['5005551234', 'a personal (5XX) number'],
    ['5551234567', 'no area code at all (555)'],
  ])('refuses %s (%s) at sign-up and as a new number, naming phoneNumber', async (digits) => {
    const response = await call({
      method: 'POST',
      url: '/api/auth/signup',
      payload: { fullName: 'Pat', email: `p-${randomBytes(4).toString('hex')}@example.com`, phoneNumber: digits, password: PASSWORD, confirmPassword: PASSWORD, communicationConsent: true, termsAccepted: true },
    })
    expect(response.statusCode).toBe(400)
    expect(errorOf(response)).toMatchObject({ code: 'VALIDATION_FAILED', field: 'phoneNumber', message: expect.stringMatching(/US or Canadian/) })
    const { cookie } = await member('2025550178')
    const change = await call({ method: 'POST', url: '/api/account/phone', cookie, payload: { phoneNumber: digits, currentPassword: PASSWORD } })
    expect(change.statusCode).toBe(400)
    expect(errorOf(change)).toMatchObject({ code: 'VALIDATION_FAILED', field: 'phoneNumber' })
    expect(h.twilio.sentTo(`+1${digits}`)).toEqual([])
  })

  it('YES and UNSTOP opt back in to texts but prove nothing: a stranger answering "yes?" to a code text cannot prove the account that asked', async () => {
    for (const [digits, body] of [
      ['2025550179', 'yes?'],
      ['2025550180', 'UNSTOP'],
    ] as const) {
      const { userId, cookie } = await signUp(digits)
      await readyForCalls(userId)
      expect((await h.twilio.inbound({ from: `+1${digits}`, body })).status).toBe(200)
      expect(await database.db.select().from(phoneProofs).where(eq(phoneProofs.userId, userId))).toEqual([])
      expect((await account(cookie)).phoneVerified).toBe(false)
    }
    await h.advanceTo(at('2026-06-15T14:30:00Z'))
    expect([...dialsTo('+12025550179'), ...dialsTo('+12025550180')]).toEqual([])
  })

  it('an older account proven on a number outside the US and Canada is never dialled nor texted', async () => {
    // Accounts made before the rule (and proofs the migration carried over) may hold such a number.
    const { user } = await member('8765550142')
    await readyForCalls(user.id)
    await h.advanceTo(at('2026-06-15T14:30:00Z'))
    expect(dialsTo('+18765550142')).toEqual([])
    await h.app.services.texts.sendText({ userId: user.id, kind: 'weekly_report', dedupeKey: `weekly_report:${user.id}:x`, content: 'Your report' })
    await h.settle()
    expect(h.twilio.sentTo('+18765550142')).toEqual([])
  })

  it('a call prepared ahead rings the number the account holds at the instant, not the one it held at the claim', async () => {
    const { user } = await member('2025550183')
    await readyForCalls(user.id)
    // 9:59:30: the 10:00 call is claimed (45 s ahead) and parked with the number held then.
    await h.advanceTo(at('2026-06-15T13:59:30Z'))
    expect((await callsOf(user.id)).map((row) => row.completionStatus)).toEqual(['dialling'])
    // The person moves to a new number (proved by its code) before the instant.
    await database.db.update(profiles).set({ phoneNumber: '2025550184' }).where(eq(profiles.id, user.id))
    await database.db.update(users).set({ phoneNumber: '2025550184' }).where(eq(users.id, user.id))
    await database.db.update(phoneProofs).set({ phoneNumber: '2025550184' }).where(eq(phoneProofs.userId, user.id))
    await h.advanceTo(at('2026-06-15T14:01:00Z'))
    expect(dialsTo('+12025550183')).toEqual([])
    expect(dialsTo('+12025550184')).toHaveLength(1)
  })

  it('takes US and Canadian numbers', async () => {
    await signUp('4165550123')
    await signUp('6045550123')
    await signUp('3125550123')
  })
})

describe('STOP belongs to the phone', () => {
  it('a STOP from a number no account uses lists it: an account made with it later is never called, and no switch of its turns calls on', async () => {
    expect((await h.twilio.inbound({ from: '+12025550181', body: 'STOP' })).status).toBe(200)
    expect(await isListed('+12025550181')).toBe(true)
    // The list keeps a digest of the number, nothing that names it.
    expect(JSON.stringify(await database.db.select().from(doNotContact))).not.toContain('2025550181')

    const { userId, email, cookie } = await signUp('2025550181')
    await readyForCalls(userId)
    // No code goes to it.
    await database.db.update(users).set({ emailConfirmedAt: h.clock.now() }).where(eq(users.email, email))
    const code = await call({ method: 'POST', url: '/api/account/phone/verification', cookie })
    expect(code.statusCode).toBe(409)
    expect(errorOf(code)).toMatchObject({ code: 'NUMBER_STOPPED' })
    // Proven by a code typed (as if the person had it): the STOP still wins.
    await database.db.insert(phoneProofs).values({ userId, phoneNumber: '2025550181', method: 'code', provenAt: h.clock.now() })
    expect(await nextCall(cookie)).toMatchObject({ next: null, reason: 'stopped', startNumber: '(555) 555-0123' })
    const now = await call({ method: 'POST', url: '/api/calls/test', cookie })
    expect(errorOf(now)).toMatchObject({ code: 'NUMBER_STOPPED', message: 'This number texted STOP. Text START to (555) 555-0123 to turn calls and texts back on.' })
    // The calls switch: off, then on again, cannot act.
    expect((await setCalls(cookie, false)).statusCode).toBe(200)
    const on = await setCalls(cookie, true)
    expect(on.statusCode).toBe(409)
    expect(errorOf(on)).toMatchObject({ code: 'NUMBER_STOPPED', field: 'callsEnabled', message: expect.stringContaining('Text START to (555) 555-0123') })
    // Nor does the opt-in screen's button.
    const optIn = await call({ method: 'GET', url: '/api/opt-in', cookie })
    const consentText = (optIn.json() as { consent_text: string }).consent_text
    const optedIn = await call({ method: 'POST', url: '/api/opt-in', cookie, payload: { consentText } })
    expect(optedIn.statusCode).toBe(409)
    expect(errorOf(optedIn)).toMatchObject({ code: 'NUMBER_STOPPED', message: 'This number texted STOP. Text START to (555) 555-0123 to turn calls and texts back on.' })
    expect(await isListed('+12025550181')).toBe(true)
    await h.advanceTo(at('2026-06-15T14:30:00Z'))
    expect(dialsTo('+12025550181')).toHaveLength(0)
    expect((await account(cookie)).phoneStopped).toBe(true)
    expect(h.twilio.sentTo('+12025550181').filter((text) => !text.autoReply)).toEqual([])
  })

  it('deleting the account and signing up again with the number does not lift it; a START from the handset does', async () => {
    const first = await member('2025550182')
    await h.twilio.inbound({ from: '+12025550182', body: 'please stop texting me' })
    expect(await isListed('+12025550182')).toBe(true)
    const deleted = await call({ method: 'POST', url: '/api/account/delete', cookie: first.cookie, payload: { email: first.user.email, password: PASSWORD } })
    expect(deleted.statusCode, deleted.body).toBe(204)
    expect(await isListed('+12025550182')).toBe(true)

    const again = await signUp('2025550182')
    await readyForCalls(again.userId)
    expect(await nextCall(again.cookie)).toMatchObject({ reason: 'stopped' })
    // Only the handset brings it back: its START lifts the number and proves it (one account).
    await h.twilio.inbound({ from: '+12025550182', body: 'START' })
    expect(await isListed('+12025550182')).toBe(false)
    expect(await nextCall(again.cookie)).toMatchObject({ reason: null })
    await h.advanceTo(at('2026-06-15T14:30:00Z'))
    expect(dialsTo('+12025550182')).toHaveLength(1)
  })

  it('reaches every account that uses the number, however many (past 50)', { timeout: 120_000 }, async () => {
    const accounts: string[] = []
    for (let i = 0; i < 55; i++) accounts.push((await h.person({ phone: '2025550183' })).user.id)
    expect((await h.twilio.inbound({ from: '+12025550183', body: 'STOP' })).status).toBe(200)
    await h.advanceTo(at('2026-06-15T14:30:00Z'))
    expect(dialsTo('+12025550183')).toHaveLength(0)
    const held = await database.db.select().from(inboundTextAccounts)
    expect(held.filter((row) => accounts.includes(row.userId))).toHaveLength(55)
  })

  it("Twilio's 21610 on a text (a STOP our webhook never heard) lists the number too", async () => {
    const { user, phone } = await h.person()
    h.twilio.block(phone)
    await h.app.services.texts.sendText({ userId: user.id, kind: 'weekly_report', dedupeKey: `weekly_report:${user.id}:y`, content: 'Your report' })
    await h.settle()
    expect(await isListed(phone)).toBe(true)
    const [text] = await database.db.select().from(textMessages).where(eq(textMessages.userId, user.id))
    expect(text).toMatchObject({ status: 'failed', errorCode: 21610 })
  })
})

describe('texts belong to the accounts they reached', () => {
  it("an account made later with someone's number gets none of the texts that number sent before, in its export; deleting it leaves the other account's", async () => {
    const owner = await member('2025550191')
    await h.twilio.inbound({ from: '+12025550191', body: 'I want to end it all' })
    await h.twilio.inbound({ from: '+12025550191', body: 'HELP' })
    const stranger = await member('2025550191', { proven: false })
    await h.twilio.inbound({ from: '+12025550191', body: 'thanks for the call' })

    const exportOf = async (cookie: string) => {
      const response = await call({ method: 'POST', url: '/api/account/export', cookie })
      expect(response.statusCode).toBe(200)
      const texts = JSON.parse((await readZip(response.rawPayload)).get('texts.json')!) as { received: Array<{ body: string }> }
      return texts.received.map((text) => text.body)
    }
    expect((await exportOf(owner.cookie)).sort()).toEqual(['HELP', 'I want to end it all', 'thanks for the call'])
    expect(await exportOf(stranger.cookie)).toEqual(['thanks for the call'])

    // The stranger goes: the text both hold stays (the owner's), the rest was never the stranger's.
    const gone = await call({ method: 'POST', url: '/api/account/delete', cookie: stranger.cookie, payload: { email: stranger.user.email, password: PASSWORD } })
    expect(gone.statusCode, gone.body).toBe(204)
    const fromOwner = async () => (await database.db.select().from(inboundTexts).where(eq(inboundTexts.fromNumber, '+12025550191'))).map((row) => row.body).sort()
    expect(await fromOwner()).toEqual(['HELP', 'I want to end it all', 'thanks for the call'])
    // The owner goes: a text no account holds any more goes with the last one.
    const ownerGone = await call({ method: 'POST', url: '/api/account/delete', cookie: owner.cookie, payload: { email: owner.user.email, password: PASSWORD } })
    expect(ownerGone.statusCode, ownerGone.body).toBe(204)
    expect(await fromOwner()).toEqual([])
    expect(await database.db.select().from(inboundTextAccounts).where(eq(inboundTextAccounts.userId, owner.user.id))).toEqual([])
  })
})

describe('codes cannot be pumped', () => {
  it('needs a confirmed email', async () => {
    const { cookie } = await member('2025550201', { proven: false, confirmed: false })
    const asked = await call({ method: 'POST', url: '/api/account/phone/verification', cookie })
    expect(asked.statusCode).toBe(403)
    expect(errorOf(asked)).toMatchObject({ code: 'EMAIL_NOT_CONFIRMED' })
    expect(h.twilio.sentTo('+12025550201')).toEqual([])
  })

  it('texts one number at most 3 codes an hour and 10 a day, whoever asks', async () => {
    const target = '2025550202'
    const ask = async () => {
      const { cookie } = await member('2025550203')
      return call({ method: 'POST', url: '/api/account/phone', cookie, payload: { phoneNumber: target, currentPassword: PASSWORD } })
    }
    const hour: number[] = []
    for (let i = 0; i < 4; i++) hour.push((await ask()).statusCode)
    expect(hour).toEqual([202, 202, 202, 429])
    const day = [...hour]
    for (let i = 0; i < 8; i++) {
      h.clock.advance(61 * 60_000)
      day.push((await ask()).statusCode)
    }
    // 3 in the first hour, then one an hour: the 11th of the day is refused.
    expect(day.filter((status) => status === 202)).toHaveLength(10)
    expect(day.at(-1)).toBe(429)
    expect(h.twilio.sentTo(`+1${target}`)).toHaveLength(10)
  })

  it("a request the asker's own limit refuses uses up no number's cap", async () => {
    const target = '2025550206'
    const { cookie } = await member('2025550207')
    const ask = (who: string) => call({ method: 'POST', url: '/api/account/phone', cookie: who, payload: { phoneNumber: target, currentPassword: PASSWORD } })
    expect((await ask(cookie)).statusCode).toBe(202)
    // The same person again within the minute: refused by their own limit, before the number's.
    for (let i = 0; i < 3; i++) expect((await ask(cookie)).statusCode).toBe(429)
    // So the number still has two codes this hour for whoever asks.
    expect((await ask((await member('2025550208')).cookie)).statusCode).toBe(202)
    expect((await ask((await member('2025550209')).cookie)).statusCode).toBe(202)
    expect((await ask((await member('2025550210')).cookie)).statusCode).toBe(429)
    expect(h.twilio.sentTo(`+1${target}`)).toHaveLength(3)
  })

  it('texts no code to a number on the do-not-contact list', async () => {
    await h.twilio.inbound({ from: '+12025550204', body: 'STOP' })
    const { cookie } = await member('2025550205')
    const asked = await call({ method: 'POST', url: '/api/account/phone', cookie, payload: { phoneNumber: '2025550204', currentPassword: PASSWORD } })
    expect(asked.statusCode).toBe(409)
    expect(errorOf(asked)).toMatchObject({ code: 'NUMBER_STOPPED', field: 'phoneNumber' })
    expect(h.twilio.sentTo('+12025550204').filter((text) => !text.autoReply)).toEqual([])
  })
})

describe("the sweep of Twilio's log", () => {
  it('a STOP that never reached the webhook (it was down) still stops the calls within 10 minutes', async () => {
    const { user, phone } = await h.person({ time: '10:00' })
    // 9:50 AM: the STOP reaches Twilio (which blocks its texts) but not us.
    const lost = await h.twilio.inbound({ from: phone, body: 'STOP', lost: true })
    expect(lost.status).toBe(0)
    expect(await isListed(phone)).toBe(false)
    // The sweep at 9:57:45 reads it from Twilio's log: the number is listed, the 10:00 call not made.
    await h.advanceTo(at('2026-06-15T14:30:00Z'))
    expect(await isListed(phone)).toBe(true)
    expect(dialsTo(phone)).toHaveLength(0)
    const [stored] = await database.db.select().from(inboundTexts).where(eq(inboundTexts.messageSid, lost.messageSid))
    expect(stored).toMatchObject({ keyword: 'stop', fromNumber: phone })
    expect(await database.db.select().from(inboundTextAccounts).where(eq(inboundTextAccounts.messageSid, lost.messageSid))).toEqual([{ messageSid: lost.messageSid, userId: user.id }])
  })

  it('reads each text once: a text the webhook took is not taken again, and a crisis text found late still gets the resources', async () => {
    const { phone } = await h.person()
    await h.twilio.inbound({ from: phone, body: 'hello coach' })
    const crisis = await h.twilio.inbound({ from: phone, body: 'I want to end it all', lost: true })
    await h.advanceTo(at('2026-06-15T14:20:00Z'))
    // The resources themselves (a recap's link may hold the digits 988 by chance: its call id, its port).
    const replies = h.twilio.sentTo(phone).filter((text) => text.body === CRISIS_REPLY)
    expect(replies).toHaveLength(1)
    expect((await database.db.select().from(inboundTexts).where(eq(inboundTexts.fromNumber, phone))).map((row) => row.messageSid)).toContain(crisis.messageSid)
    // Later sweeps (their overlap reads the same texts) send nothing more.
    await h.advanceTo(at('2026-06-15T15:00:00Z'))
    expect(h.twilio.sentTo(phone).filter((text) => text.body === CRISIS_REPLY)).toHaveLength(1)
  })
})

describe('the SMS webhook', () => {
  it('refuses a text to a number that is not ours, and stores nothing', async () => {
    const { phone } = await h.person()
    const delivered = await h.twilio.inbound({ from: phone, body: 'STOP', to: '+15557654321' })
    expect(delivered.status).toBe(403)
    expect(JSON.parse(delivered.body)).toMatchObject({ error: { field: 'To' } })
    expect(await database.db.select().from(inboundTexts).where(eq(inboundTexts.fromNumber, phone))).toEqual([])
    expect(await isListed(phone)).toBe(false)
  })

  it('counts only posts that fail the signature: forged ones cannot have Twilio’s real STOP refused', async () => {
    const { phone } = await h.person()
    const params = h.twilio.inboundParams({ from: phone, body: 'hello' })
    const forged: number[] = []
    for (let i = 0; i < 61; i++) forged.push((await h.twilio.deliver(params, { signature: 'forged' })).status)
    expect(forged.slice(0, 60).every((status) => status === 403)).toBe(true)
    expect(forged[60]).toBe(429)
    // From the same address (the fake), Twilio's signed STOP goes through.
    expect((await h.twilio.inbound({ from: phone, body: 'STOP' })).status).toBe(200)
    expect(await isListed(phone)).toBe(true)
  })

  it('an authentic delivery is never counted, however many', async () => {
    const { phone } = await h.person()
    const statuses: number[] = []
    for (let i = 0; i < 70; i++) statuses.push((await h.twilio.inbound({ from: phone, body: `note ${i}` })).status)
    expect(statuses.every((status) => status === 200)).toBe(true)
  })
})

