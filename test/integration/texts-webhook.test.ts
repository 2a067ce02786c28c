/**
 * POST /api/webhooks/sms against real PostgreSQL, with the Twilio fake signing and delivering the
 * inbound texts as Twilio does, the Vapi fake placing the daily calls, and a test clock.
 */
import { and, asc, eq, inArray } from 'drizzle-orm'
import { Agent, request } from 'undici'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { UpdateCallSchedule } from '#common/calls'
import { CRISIS_REPLY, helpReply, OPT_OUT_QUESTION, START_REPLY, STOP_REPLY } from '#common/texts'
import { createSession } from '#server/auth/session'
import { coachingCallEvents, coachingCalls, consentEvents, consentStates, inboundTexts, memoryEpisodes, profiles, textMessages } from '#server/db/schema'
import { OPT_IN_STREAMS_PER_USER } from '#server/routes/opt-in'
import { buildTestApp } from '../helpers/app'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { freePort, startTextsHarness, type Harness } from '../helpers/texts-harness'

const at = (iso: string) => new Date(iso)

let database: TestDatabase
let port: number
let h: Harness

beforeAll(async () => {
  database = await createTestDatabase()
  port = await freePort()
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

const ledgerOf = async (userId: string) =>
  (await database.db.select().from(consentEvents).where(eq(consentEvents.userId, userId)).orderBy(asc(consentEvents.id))).map((row) => ({
    channel: row.channel,
    action: row.action,
    source: row.source,
    text: row.text,
    messageSid: row.messageSid,
  }))
const stateOf = async (userId: string) =>
  Object.fromEntries((await database.db.select().from(consentStates).where(eq(consentStates.userId, userId))).map((row) => [row.channel, row.granted]))
const callsOf = (userId: string) => database.db.select().from(coachingCalls).where(eq(coachingCalls.userId, userId)).orderBy(asc(coachingCalls.callDate), asc(coachingCalls.attempt))
const dialsTo = (number: string) => h.vapi.calls.list().filter((call) => call.customer?.number === number)

describe('the signature', () => {
  it('answers 403 to a forged signature, a signature for another URL, a missing one, and a body changed after signing', async () => {
    const { user, phone } = await h.person()
    const params = h.twilio.inboundParams({ from: phone, body: 'STOP' })
    const url = h.twilio.webhookUrl!
    const forged = await h.twilio.deliver(params, { signature: h.twilio.sign(url, params, 'a-different-auth-token-000000000') })
    const otherUrl = await h.twilio.deliver(params, { signature: h.twilio.sign('https://elsewhere.example.com/api/webhooks/sms', params) })
    const missing = await h.twilio.deliver(params, { signature: null })
    const changed = await h.twilio.deliver({ ...params, Body: 'START' }, { signature: h.twilio.sign(url, params) })
    for (const response of [forged, otherUrl, missing, changed]) {
      expect(response.status).toBe(403)
      expect(JSON.parse(response.body)).toMatchObject({ error: { code: 'FORBIDDEN' } })
    }
    // Nothing happened: no message stored, consent untouched.
    expect(await database.db.select().from(inboundTexts)).toHaveLength(0)
    expect(await stateOf(user.id)).toEqual({ calls: true, texts: true })
    // The same message, signed as Twilio signs it, is taken.
    expect((await h.twilio.deliver(params)).status).toBe(200)
  })

  it('refuses everything when Twilio is not configured (nothing could be verified)', async () => {
    const app = await buildTestApp({ database })
    try {
      const response = await app.inject({
        method: 'POST',
        url: '/api/webhooks/sms',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': 'abc' },
        payload: 'MessageSid=SM0123&From=%2B15551234567&Body=STOP',
      })
      expect(response.statusCode).toBe(403)
    } finally {
      await app.close()
    }
  })

  it('answers 403 to an unsigned JSON body, and 400 naming the field when a signed message has no MessageSid', async () => {
    const json = await h.app.inject({ method: 'POST', url: '/api/webhooks/sms', headers: { 'content-type': 'application/json' }, payload: '{}' })
    expect(json.statusCode).toBe(403)
    const { phone } = await h.person()
    const { MessageSid: _sid, SmsSid: _smsSid, ...params } = h.twilio.inboundParams({ from: phone, body: 'hi' })
    const response = await h.twilio.deliver(params)
    expect(response.status).toBe(400)
    expect(JSON.parse(response.body)).toMatchObject({ error: { code: 'VALIDATION_FAILED', field: 'MessageSid' } })
  })
})

describe('keywords', () => {
  it('STOP revokes texts and calls in the ledger (with the text and its sid), answers once with what stopped and how to restart', async () => {
    const { user, phone } = await h.person()
    const first = await h.twilio.inbound({ from: phone, body: 'STOP' })
    expect(first.status).toBe(200)
    expect(first.body).toContain('<Response><Message>')
    expect(first.reply).toBe(STOP_REPLY)
    expect(first.reply).toContain('START')
    expect(first.reply).toMatch(/texts or coaching calls/)
    expect(await stateOf(user.id)).toEqual({ calls: false, texts: false })
    const ledger = await ledgerOf(user.id)
    expect(ledger.slice(-2)).toEqual([
      { channel: 'texts', action: 'revoked', source: 'inbound_text', text: 'STOP', messageSid: first.messageSid },
      { channel: 'calls', action: 'revoked', source: 'inbound_text', text: 'STOP', messageSid: first.messageSid },
    ])
    // Twilio's own handling blocked the pair too.
    expect(h.twilio.isBlocked(phone)).toBe(true)

    // Another STOP changes nothing and is not answered again.
    const second = await h.twilio.inbound({ from: phone, body: 'stop' })
    expect(second.status).toBe(200)
    expect(second.reply).toBeNull()
    expect(second.body).toContain('<Response/>')
    expect(await ledgerOf(user.id)).toHaveLength(ledger.length)
    expect(h.twilio.repliesTo(phone).map((message) => message.body)).toEqual([STOP_REPLY])
  })

  it.each(['STOP', 'stopall', ' Unsubscribe ', 'CANCEL', 'end', 'Quit', 'REVOKE', 'optout', 'Opt Out', 'Stop.', 'S T O P'])('"%s" is a STOP', async (body) => {
    const { user, phone } = await h.person()
    const delivery = await h.twilio.inbound({ from: phone, body })
    expect(delivery.reply).toBe(STOP_REPLY)
    expect(await stateOf(user.id)).toEqual({ calls: false, texts: false })
  })

  it('an opt-out in words ("Please stop texting me") revokes texts and calls as STOP does, answered once', async () => {
    const { user, phone } = await h.person()
    const delivery = await h.twilio.inbound({ from: phone, body: 'Please stop texting me' })
    expect(delivery.status).toBe(200)
    expect(delivery.reply).toBe(STOP_REPLY)
    expect(await stateOf(user.id)).toEqual({ calls: false, texts: false })
    expect((await ledgerOf(user.id)).slice(-2)).toEqual([
      { channel: 'texts', action: 'revoked', source: 'inbound_text', text: 'Please stop texting me', messageSid: delivery.messageSid },
      { channel: 'calls', action: 'revoked', source: 'inbound_text', text: 'Please stop texting me', messageSid: delivery.messageSid },
    ])
    const [stored] = await database.db.select().from(inboundTexts).where(eq(inboundTexts.messageSid, delivery.messageSid))
    expect(stored).toMatchObject({ keyword: 'stop', body: 'Please stop texting me', matchedUsers: 1, reply: STOP_REPLY })
    // Twilio blocks only its keywords: the pair is not on its list, our ledger is what stops the texts.
    await h.app.services.texts.sendText({ userId: user.id, kind: 'weekly_report', dedupeKey: `words-${user.id}`, content: 'Hello' })
    await h.settle()
    expect(h.twilio.sentTo(phone)).toHaveLength(0)
    expect((await h.twilio.inbound({ from: phone, body: 'stop please' })).reply).toBeNull()
  })

  it('words that may mean stop ("I can’t stop snacking") get one question back and change nothing; anything else gets nothing', async () => {
    const { user, phone } = await h.person()
    const unclear = await h.twilio.inbound({ from: phone, body: 'I can’t stop snacking at night' })
    expect(unclear.reply).toBe(OPT_OUT_QUESTION)
    expect(await stateOf(user.id)).toEqual({ calls: true, texts: true })
    const [stored] = await database.db.select().from(inboundTexts).where(eq(inboundTexts.messageSid, unclear.messageSid))
    expect(stored).toMatchObject({ keyword: null, reply: OPT_OUT_QUESTION })
    const chat = await h.twilio.inbound({ from: phone, body: 'Had a great run today' })
    expect(chat.reply).toBeNull()
    // Asked once a day at most.
    expect((await h.twilio.inbound({ from: phone, body: 'I want to quit sugar' })).reply).toBeNull()
    await h.jumpTo(new Date(h.clock.now().getTime() + 24 * 3_600_000 + 60_000))
    expect((await h.twilio.inbound({ from: phone, body: 'I want to quit sugar' })).reply).toBe(OPT_OUT_QUESTION)
    expect(await stateOf(user.id)).toEqual({ calls: true, texts: true })
    // The answer to the question.
    expect((await h.twilio.inbound({ from: phone, body: 'STOP' })).reply).toBe(STOP_REPLY)
    expect(await stateOf(user.id)).toEqual({ calls: false, texts: false })
    // Nothing left to stop: no question either.
    expect((await h.twilio.inbound({ from: phone, body: 'I quit sugar this week' })).reply).toBeNull()
  })

  it('words about suicide or self-harm get the crisis resources (at most hourly), before any opt-out question, and change nothing', async () => {
    const { user, phone } = await h.person()
    const first = await h.twilio.inbound({ from: phone, body: 'I can’t stop thinking I want to end it all' })
    expect(first.reply).toBe(CRISIS_REPLY)
    expect(await stateOf(user.id)).toEqual({ calls: true, texts: true })
    const [stored] = await database.db.select().from(inboundTexts).where(eq(inboundTexts.messageSid, first.messageSid))
    expect(stored).toMatchObject({ keyword: null, reply: CRISIS_REPLY })
    // Within the hour: not again; past it: again.
    expect((await h.twilio.inbound({ from: phone, body: 'I feel suicidal' })).reply).toBeNull()
    await h.jumpTo(new Date(h.clock.now().getTime() + 3_600_000 + 60_000))
    expect((await h.twilio.inbound({ from: phone, body: 'I feel suicidal' })).reply).toBe(CRISIS_REPLY)
    // A STOP is still a STOP; after it (texts and calls off) the resources still come.
    expect((await h.twilio.inbound({ from: phone, body: 'STOP' })).reply).toBe(STOP_REPLY)
    await h.jumpTo(new Date(h.clock.now().getTime() + 3_600_000 + 60_000))
    expect((await h.twilio.inbound({ from: phone, body: 'I want to kill myself' })).reply).toBe(CRISIS_REPLY)
    expect(await stateOf(user.id)).toEqual({ calls: false, texts: false })
    // Words that only sound like it.
    expect((await h.twilio.inbound({ from: phone, body: 'This workout is killing me' })).reply).toBeNull()
  })

  it.each(['START', 'unstop', 'Yes'])('"%s" gives texts back, not calls, and answers once', async (body) => {
    const { user, phone } = await h.person()
    await h.twilio.inbound({ from: phone, body: 'STOP' })
    const delivery = await h.twilio.inbound({ from: phone, body })
    expect(delivery.reply).toBe(START_REPLY)
    expect(await stateOf(user.id)).toEqual({ calls: false, texts: true })
    expect((await ledgerOf(user.id)).at(-1)).toEqual({ channel: 'texts', action: 'granted', source: 'inbound_text', text: body, messageSid: delivery.messageSid })
    // Already on: nothing to change, nothing more to say.
    expect((await h.twilio.inbound({ from: phone, body })).reply).toBeNull()
  })

  it('START also completes the opt-in step of a person who has not done it', async () => {
    const { user, phone } = await h.person({ texts: false })
    await h.twilio.inbound({ from: phone, body: 'START' })
    const [profile] = await database.db.select().from(profiles).where(eq(profiles.id, user.id))
    expect(profile!.smsOptedInAt).toEqual(h.clock.now())
    expect(profile!.smsOptInConsentText).toContain('Text START to (555) 555-0123')
    expect(await stateOf(user.id)).toMatchObject({ texts: true })
  })

  it.each(['HELP', 'info', ' Help! '])('"%s" is answered with what the service is and where to get help, and changes nothing', async (body) => {
    const { user, phone } = await h.person()
    const before = await ledgerOf(user.id)
    const delivery = await h.twilio.inbound({ from: phone, body })
    expect(delivery.reply).toBe(helpReply(`http://127.0.0.1:${port}`))
    expect(delivery.reply).toContain('Reply STOP to opt out')
    expect(await ledgerOf(user.id)).toEqual(before)
  })

  it('a text from a number no account uses gets a 200 and nothing else: no answer, nothing stored', async () => {
    for (const body of ['STOP', 'HELP', 'START', 'hello']) {
      const delivery = await h.twilio.inbound({ from: '+12025990000', body })
      expect(delivery.status).toBe(200)
      expect(delivery.body).toBe('<?xml version="1.0" encoding="UTF-8"?><Response/>')
    }
    const foreign = await h.twilio.inbound({ from: '+447700900123', body: 'STOP' })
    expect(foreign.status).toBe(200)
    expect(foreign.reply).toBeNull()
    expect(await database.db.select().from(inboundTexts).where(inArray(inboundTexts.fromNumber, ['+12025990000', '+447700900123']))).toHaveLength(0)
  })

  it('a redelivered message (same MessageSid) is acted on once', async () => {
    const { user, phone } = await h.person()
    const params = h.twilio.inboundParams({ from: phone, body: 'STOP' })
    const first = await h.twilio.deliver(params)
    const again = await h.twilio.deliver(params)
    expect(first.reply).toBe(STOP_REPLY)
    expect(again.status).toBe(200)
    expect(again.reply).toBeNull()
    expect((await ledgerOf(user.id)).filter((row) => row.messageSid === params.MessageSid)).toHaveLength(2)
    expect(await database.db.select().from(inboundTexts).where(eq(inboundTexts.messageSid, params.MessageSid!))).toHaveLength(1)
    // START redelivered after a second START changes nothing either.
    const start = h.twilio.inboundParams({ from: phone, body: 'START' })
    await h.twilio.deliver(start)
    await h.twilio.inbound({ from: phone, body: 'STOP' })
    expect((await h.twilio.deliver(start)).reply).toBeNull()
    expect(await stateOf(user.id)).toEqual({ calls: false, texts: false })
  })

  it('acts for every account that uses the number', async () => {
    const a = await h.person({ phone: '2025770001' })
    const b = await h.person({ phone: '2025770001' })
    await h.twilio.inbound({ from: a.phone, body: 'STOP' })
    expect(await stateOf(a.user.id)).toEqual({ calls: false, texts: false })
    expect(await stateOf(b.user.id)).toEqual({ calls: false, texts: false })
  })
})

/** The person turns calls off (or on again) on the schedule page, the rest of the schedule as it was. */
async function setCallsSwitch(userId: string, callsEnabled: boolean): Promise<void> {
  const { token } = await createSession(h.app.db, h.clock, userId)
  const schedule: UpdateCallSchedule = { dailyCallTime: '10:00', timeZone: 'America/New_York', eveningCallTime: null, pausedUntil: null, callsEnabled }
  const response = await h.app.inject({ method: 'PUT', url: '/api/calls/schedule', headers: { cookie: `session=${token}`, origin: h.app.config.appUrl }, payload: schedule })
  expect(response.statusCode, response.body).toBe(200)
}

/** The two ways consent to calls is revoked: a STOP text, and the schedule page's calls switch. */
const REVOCATIONS = [
  {
    by: 'a STOP text',
    source: 'inbound_text',
    revoke: (person: { phone: string }) => h.twilio.inbound({ from: person.phone, body: 'STOP' }),
    // The number is on the do-not-contact list: a START from it first, then the switch.
    restore: async (person: { phone: string; user: { id: string } }) => {
      await h.twilio.inbound({ from: person.phone, body: 'START' })
      await setCallsSwitch(person.user.id, true)
    },
  },
  {
    by: 'the calls switch turned off',
    source: 'settings',
    revoke: (person: { user: { id: string } }) => setCallsSwitch(person.user.id, false),
    restore: (person: { user: { id: string } }) => setCallsSwitch(person.user.id, true),
  },
] as const

describe.each(REVOCATIONS)('calls stop within a minute after $by', ({ source, revoke, restore }) => {
  it('a call claimed and waiting for its instant is skipped at once: nobody is dialled, and the ledger says why', async () => {
    const person = await h.person({ time: '10:00' })
    const { user, phone } = person
    // 45 s before 10:00 the place-call job has claimed the call and waits for its instant.
    await h.advanceTo(at('2026-06-15T13:59:20Z'))
    expect((await callsOf(user.id)).map((call) => call.completionStatus)).toEqual(['dialling'])
    await revoke(person)
    // Stopped in the revoking transaction, before the instant comes.
    expect(await callsOf(user.id)).toMatchObject([{ completionStatus: 'skipped', skipReason: 'consent', vapiCallId: null }])
    await h.advanceTo(at('2026-06-15T14:30:00Z'))
    expect(dialsTo(phone)).toHaveLength(0)
    // The next day: no call either (the clock jumps to the morning; the due jobs run there).
    await h.jumpTo(at('2026-06-16T13:50:00Z'))
    await h.advanceTo(at('2026-06-16T14:30:00Z'))
    expect(dialsTo(phone)).toHaveLength(0)
    expect((await ledgerOf(user.id)).filter((row) => row.channel === 'calls').at(-1)).toMatchObject({ action: 'revoked', source })
  })

  it('a call ringing at Vapi is deleted there, and a scheduled retry is dropped', async () => {
    const ringing = await h.person({ time: '10:00', scenario: 'no-answer' })
    // The fake plays the call step by step: queued, then ringing (no answer would come 30 s later).
    h.vapi.calls.pacing = 'manual'
    await h.advanceTo(at('2026-06-15T14:00:02Z'))
    const [dial] = dialsTo(ringing.phone)
    await h.vapi.calls.advance()
    await h.vapi.calls.advance()
    await h.settle()
    expect(dial?.status).toBe('ringing')
    expect((await callsOf(ringing.user.id))[0]!.completionStatus).toBe('ringing')
    await revoke(ringing)
    await h.advanceTo(at('2026-06-15T14:01:00Z'))
    expect(h.vapi.calls.isDeleted(dial!.id)).toBe(true)
    const [call] = await callsOf(ringing.user.id)
    expect(call!.completionStatus).toBe('cancelled')
    const events = await database.db.select().from(coachingCallEvents).where(and(eq(coachingCallEvents.callId, call!.id), eq(coachingCallEvents.type, 'cancelled')))
    expect(events[0]!.detail).toMatchObject({ reason: 'consent' })

    // Another person: the call was not answered, its retry is due at 10:40:31; revoked at 10:31.
    h.vapi.calls.pacing = 'auto'
    const missed = await h.person({ time: '10:30', scenario: 'no-answer' })
    await h.advanceTo(at('2026-06-15T14:31:00Z'))
    const [first] = await callsOf(missed.user.id)
    expect(first!.retryAt).not.toBeNull()
    await revoke(missed)
    await h.advanceTo(at('2026-06-15T16:00:00Z'))
    expect(dialsTo(missed.phone)).toHaveLength(1)
    expect((await callsOf(missed.user.id))[0]!.retryAt).toBeNull()
  })

  it('calls on again before the cancellation ran: the call ringing now is left to ring', async () => {
    const person = await h.person({ time: '10:00', scenario: 'no-answer' })
    h.vapi.calls.pacing = 'manual'
    await h.advanceTo(at('2026-06-15T14:00:02Z'))
    const [dial] = dialsTo(person.phone)
    await h.vapi.calls.advance()
    await h.vapi.calls.advance()
    await h.settle()
    expect(dial?.status).toBe('ringing')
    // Revoked, then on again a moment later, before the queued cancellations run.
    await revoke(person)
    await restore(person)
    await h.advanceTo(at('2026-06-15T14:01:00Z'))
    expect(h.vapi.calls.isDeleted(dial!.id)).toBe(false)
    expect((await callsOf(person.user.id))[0]!.completionStatus).toBe('ringing')
  })
})

describe('STOP stops what is on its way', () => {
  it('held texts of the person are dropped', async () => {
    const { user, phone } = await h.person()
    // 9:50 PM in New York: a text now is held to the morning.
    await h.jumpTo(at('2026-06-16T01:50:00Z'))
    await h.app.services.texts.sendText({ userId: user.id, kind: 'weekly_report', dedupeKey: `weekly_report:${user.id}:2026-06-15`, content: 'Your report: x' })
    await h.settle()
    await h.twilio.inbound({ from: phone, body: 'STOP' })
    await h.advanceTo(at('2026-06-16T13:00:00Z'))
    const [text] = await database.db.select().from(textMessages).where(eq(textMessages.userId, user.id))
    expect(text).toMatchObject({ status: 'skipped', skipReason: 'no_consent' })
    expect(h.twilio.sentTo(phone)).toHaveLength(0)
  })
})

describe('the acceptance line: STOP → 0 calls and 0 texts from one minute after the text', () => {
  it('a call in progress at the STOP ends without a recap; nothing asked for later is sent; no call on the next days; the ledger says why', async () => {
    const { user, phone } = await h.person({ time: '10:00', scenario: { name: 'answered', summary: 'We talked about sleep.', result: { commitments: ['Bed by 10:30 PM'] } } })
    // Texts go out before the STOP (the weekly report's link at 9:50 AM).
    await h.app.services.texts.sendWeeklyReportLink({ userId: user.id, weekStart: '2026-06-08', link: `${h.app.config.appUrl}/reports/2026-06-08` })
    await h.settle()
    expect(h.twilio.sentTo(phone)).toHaveLength(1)
    // The 10:00 call is answered and still going when the STOP arrives.
    h.vapi.calls.pacing = 'manual'
    await h.advanceTo(at('2026-06-15T14:00:02Z'))
    const [dial] = dialsTo(phone)
    for (let step = 0; step < 10 && (await callsOf(user.id))[0]!.completionStatus !== 'in_progress'; step++) {
      await h.vapi.calls.advance()
      await h.settle()
    }
    expect((await callsOf(user.id)).map((call) => call.completionStatus)).toEqual(['in_progress'])
    const stop = await h.twilio.inbound({ from: phone, body: 'STOP' })
    expect(stop.reply).toBe(STOP_REPLY)
    const quietFrom = h.clock.now().getTime() + 60_000
    // The call ends and its report comes in (an answered call is left alone): no recap.
    h.vapi.calls.pacing = 'auto'
    await h.vapi.calls.play(dial!.id)
    await h.advanceTo(at('2026-06-15T14:10:00Z'))
    const [call] = await callsOf(user.id)
    expect(call).toMatchObject({ completionStatus: 'completed' })
    expect(call!.reportAt).not.toBeNull()
    // Texts asked for later (the next weekly report, a missed call) are not even written.
    expect(await h.app.services.texts.sendWeeklyReportLink({ userId: user.id, weekStart: '2026-06-15', link: `${h.app.config.appUrl}/reports/2026-06-15` })).toEqual({ id: null, created: false })
    // The next two days, across the call's time and the texts' morning release: nothing.
    for (const day of ['2026-06-16', '2026-06-17']) {
      await h.jumpTo(at(`${day}T11:55:00Z`))
      await h.advanceTo(at(`${day}T14:30:00Z`))
    }
    expect(dialsTo(phone)).toHaveLength(1)
    expect((await callsOf(user.id)).slice(1).every((later) => later.completionStatus === 'skipped' && later.skipReason === 'consent')).toBe(true)
    expect(h.twilio.sentTo(phone).filter((message) => new Date(message.date_created).getTime() >= quietFrom)).toEqual([])
    expect(h.twilio.sentTo(phone)).toHaveLength(1)
    expect((await database.db.select().from(textMessages).where(eq(textMessages.userId, user.id))).map((text) => text.kind)).toEqual(['weekly_report'])
    // Why: the ledger's last rows are the STOP's, with its words and its message.
    const ledger = await ledgerOf(user.id)
    expect(ledger.slice(-2)).toEqual([
      { channel: 'texts', action: 'revoked', source: 'inbound_text', text: 'STOP', messageSid: stop.messageSid },
      { channel: 'calls', action: 'revoked', source: 'inbound_text', text: 'STOP', messageSid: stop.messageSid },
    ])
    expect(await stateOf(user.id)).toEqual({ calls: false, texts: false })
  })
})

describe('the opt-in screen’s stream', () => {
  /** Opens GET /api/opt-in/events as the person (on its own connection), and reads its events one by one. */
  async function listen(userId: string | null) {
    const cookie = userId ? `session=${(await createSession(h.app.db, h.clock, userId)).token}` : undefined
    const agent = new Agent()
    const response = await request(`http://127.0.0.1:${port}/api/opt-in/events`, { headers: cookie ? { cookie } : {}, dispatcher: agent })
    response.body.setEncoding('utf8')
    const chunks = response.body[Symbol.asyncIterator]()
    let buffer = ''
    return {
      status: response.statusCode,
      contentType: String(response.headers['content-type'] ?? ''),
      /** The next event (comments skipped). */
      async next(): Promise<{ event: string; data: unknown }> {
        for (;;) {
          const end = buffer.indexOf('\n\n')
          if (end >= 0) {
            const block = buffer.slice(0, end)
            buffer = buffer.slice(end + 2)
            const lines = block.split('\n').filter((line) => !line.startsWith(':'))
            if (lines.length === 0) continue
            const event = lines.find((line) => line.startsWith('event: '))!.slice(7)
            const data = JSON.parse(lines.find((line) => line.startsWith('data: '))!.slice(6)) as unknown
            return { event, data }
          }
          const { value, done } = (await chunks.next()) as IteratorResult<string>
          if (done) throw new Error('the stream ended')
          buffer += value
        }
      },
      async close() {
        // Destroying a body undici still reads emits its abort as an 'error': expected here.
        response.body.on('error', () => {})
        response.body.destroy()
        await agent.destroy()
      },
    }
  }

  it('tells the person’s open screen when their START arrives, and only theirs', async () => {
    const me = await h.person({ texts: false })
    const other = await h.person({ texts: false })
    const stream = await listen(me.user.id)
    try {
      expect(stream.status).toBe(200)
      expect(stream.contentType).toContain('text/event-stream')
      expect(await stream.next()).toEqual({ event: 'ready', data: {} })
      await h.twilio.inbound({ from: other.phone, body: 'START' })
      h.clock.advance(1000)
      await h.twilio.inbound({ from: me.phone, body: 'hello' })
      await h.twilio.inbound({ from: me.phone, body: 'Start' })
      // The first event is my START's (the other person's and my other text are not mine to hear).
      expect(await stream.next()).toEqual({ event: 'text-opt-in', data: { type: 'text-opt-in', at: h.clock.now().toISOString() } })
    } finally {
      await stream.close()
    }
    const state = await h.app.inject({ method: 'GET', url: '/api/opt-in', headers: { cookie: `session=${(await createSession(h.app.db, h.clock, me.user.id)).token}` } })
    expect(state.json()).toMatchObject({ opted_in: true })
  })

  it('needs a paid session', async () => {
    const anonymous = await listen(null)
    expect(anonymous.status).toBe(401)
    await anonymous.close()
  })

  it('holds a few streams per person: one more is 429 with the error JSON, and a stream that closes gives its place back', async () => {
    const me = await h.person({ texts: false })
    const streams: Array<Awaited<ReturnType<typeof listen>>> = []
    try {
      for (let i = 0; i < OPT_IN_STREAMS_PER_USER; i++) {
        const stream = await listen(me.user.id)
        streams.push(stream)
        expect(stream.status).toBe(200)
        expect(await stream.next()).toEqual({ event: 'ready', data: {} })
      }
      const cookie = `session=${(await createSession(h.app.db, h.clock, me.user.id)).token}`
      const refused = await request(`http://127.0.0.1:${port}/api/opt-in/events`, { headers: { cookie } })
      expect(refused.statusCode).toBe(429)
      expect(refused.headers['content-type']).toMatch(/^application\/json/)
      expect(await refused.body.json()).toEqual({ error: { code: 'RATE_LIMITED', message: 'Too many live update streams are open for your account. Close a tab and try again.' } })
      // Someone else's streams are their own.
      const other = await listen((await h.person({ texts: false })).user.id)
      streams.push(other)
      expect(other.status).toBe(200)
      // One closes: another may open.
      await streams.shift()!.close()
      await expect.poll(async () => {
        const again = await listen(me.user.id)
        streams.push(again)
        return again.status
      }).toBe(200)
    } finally {
      for (const stream of streams) await stream.close()
    }
  })
})

describe("the coach's memory (docs/decisions/083)", () => {
  it('keeps a free-text text as an episode of the account, in the words sent; never a keyword, crisis words or an opt-out question', async () => {
    const { user, phone } = await h.person()
    const episodes = () => database.db.select().from(memoryEpisodes).where(eq(memoryEpisodes.userId, user.id))
    for (const body of ['HELP', 'I want to kill myself', 'how do I stop these texts']) expect((await h.twilio.deliver(h.twilio.inboundParams({ from: phone, body }))).status).toBe(200)
    expect(await episodes()).toEqual([])
    const params = h.twilio.inboundParams({ from: phone, body: 'Did the walk today, knee   feels better!' })
    expect((await h.twilio.deliver(params)).status).toBe(200)
    // Twilio's retry of the same message adds nothing.
    expect((await h.twilio.deliver(params)).status).toBe(200)
    expect((await episodes()).map((episode) => [episode.channel, episode.sourceId, episode.summary])).toEqual([['text', params.MessageSid, 'They texted: “Did the walk today, knee feels better!”']])
  })
})
