/**
 * Outbound texts on a test clock, against real PostgreSQL, through the official twilio SDK pointed
 * at the Twilio fake: the recap and the missed-call text from the Vapi webhook flow, the local
 * 8 AM-9 PM window, the cap of 3 a day, the weekly footer, consent, Twilio's refusals.
 */
import { and, asc, eq } from 'drizzle-orm'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { WEEKLY_FOOTER } from '#common/texts'
import { coachingCalls, consentEvents, consentStates, textMessages } from '#server/db/schema'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { setConsent } from '../helpers/factories'
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

/** Monday 15 June 2026, 13:50 UTC = 9:50 AM in New York (EDT). */
async function start(options: { start?: Date; twilio?: boolean } = {}): Promise<Harness> {
  h = await startTextsHarness(database, { start: options.start ?? at('2026-06-15T13:50:00Z'), port, twilio: options.twilio })
  return h
}

const textsOf = (userId: string) => database.db.select().from(textMessages).where(eq(textMessages.userId, userId)).orderBy(asc(textMessages.createdAt), asc(textMessages.dedupeKey))
const callsOf = (userId: string) => database.db.select().from(coachingCalls).where(eq(coachingCalls.userId, userId)).orderBy(asc(coachingCalls.callDate), asc(coachingCalls.attempt))
/** The New York wall-clock hour of an RFC 2822 date the fake wrote. */
const newYorkHour = (rfc2822: string) => Number(new Intl.DateTimeFormat('en-US', { timeZone: 'America/New_York', hour: 'numeric', hourCycle: 'h23' }).format(new Date(rfc2822)))

describe('after a call', () => {
  it('texts the recap of a completed call within 2 minutes of its report: the summary, the commitments, the link to the call', async () => {
    const { app, twilio } = await start()
    const { user, phone } = await h!.person({
      time: '10:00',
      scenario: { name: 'answered', summary: 'We talked about your running plan and sleep.', result: { commitments: ['Run 3 km on Wednesday', 'Be in bed by 10:30 PM'] } },
    })
    await h!.advanceTo(at('2026-06-15T14:10:00Z'))
    const [call] = await callsOf(user.id)
    expect(call).toMatchObject({ completionStatus: 'completed' })
    const [sent] = twilio.sentTo(phone)
    expect(twilio.sentTo(phone)).toHaveLength(1)
    expect(sent!.from).toBe('+15555550123')
    expect(sent!.body).toBe(
      `Momentum Coach: Call recap: We talked about your running plan and sleep. You committed to: Run 3 km on Wednesday. Be in bed by 10:30 PM. Details: ${app.config.appUrl}/calls/${call!.id} ${WEEKLY_FOOTER}`,
    )
    // Within 2 minutes of the report (the fake dates the message with the test clock).
    const delay = new Date(sent!.date_created).getTime() - call!.reportAt!.getTime()
    expect(delay).toBeGreaterThanOrEqual(0)
    expect(delay).toBeLessThanOrEqual(120_000)
    const [text] = await textsOf(user.id)
    expect(text).toMatchObject({ kind: 'recap', status: 'sent', providerSid: sent!.sid, callId: call!.id, toNumber: phone, segments: 2 })
  })

  it('texts once when a call is not answered, saying when the retry is; no recap after a missed call', async () => {
    const { twilio } = await start()
    const { user, phone } = await h!.person({ time: '10:00', scenario: 'no-answer' })
    await h!.advanceTo(at('2026-06-15T15:00:00Z'))
    // Three attempts, none answered: one missed-call text, for the first, naming the retry at 10:10.
    expect((await callsOf(user.id)).map((call) => call.completionStatus)).toEqual(['no_answer', 'no_answer', 'no_answer'])
    const sent = twilio.sentTo(phone)
    expect(sent.map((message) => message.body)).toEqual([
      `Momentum Coach: Your coach tried to reach you for your daily check-in but could not get through. We will call again at 10:10 AM. ${WEEKLY_FOOTER}`,
    ])
    expect((await textsOf(user.id)).map((text) => text.kind)).toEqual(['missed_call'])
  })

  it('names the next call when no retry is left in the day', async () => {
    const { twilio } = await start({ start: at('2026-06-16T00:40:00Z') })
    // 8:55 PM: a retry would fall after 9 PM; the next call is tomorrow at 8:55 PM.
    const { phone } = await h!.person({ time: '20:55', scenario: 'busy' })
    await h!.advanceTo(at('2026-06-16T01:00:00Z'))
    expect(twilio.sentTo(phone).map((message) => message.body)).toEqual([
      `Momentum Coach: Your coach tried to reach you for your daily check-in but could not get through. Your next call is tomorrow at 8:55 PM. ${WEEKLY_FOOTER}`,
    ])
  })

  it('sends nothing to a person whose texts are off', async () => {
    const { twilio } = await start()
    const { user, phone } = await h!.person({ time: '10:00', texts: false })
    await h!.advanceTo(at('2026-06-15T14:10:00Z'))
    expect((await callsOf(user.id))[0]!.completionStatus).toBe('completed')
    expect(twilio.sentTo(phone)).toHaveLength(0)
    // Not even asked for: a person without texts costs one lookup.
    expect(await textsOf(user.id)).toEqual([])
  })
})

describe('when texts go out', () => {
  it('holds a text asked for at night to 8:00 AM local, and sends it then', async () => {
    // 9:30 PM in New York.
    const { app, twilio } = await start({ start: at('2026-06-16T01:30:00Z') })
    const { user, phone } = await h!.person()
    await app.services.texts.sendWeeklyReportLink({ userId: user.id, weekStart: '2026-06-15', link: `${app.config.appUrl}/reports/2026-06-15` })
    await h!.settle()
    const [held] = await textsOf(user.id)
    expect(held).toMatchObject({ status: 'held', skipReason: 'quiet_hours', holdUntil: at('2026-06-16T12:00:00Z') })
    await h!.jumpTo(at('2026-06-16T11:55:00Z'))
    await h!.advanceTo(at('2026-06-16T11:59:59Z'))
    expect(twilio.sentTo(phone)).toHaveLength(0)
    await h!.advanceTo(at('2026-06-16T12:01:00Z'))
    const [sent] = twilio.sentTo(phone)
    expect(sent!.body).toBe(`Momentum Coach: Your weekly progress report is ready: ${app.config.appUrl}/reports/2026-06-15 ${WEEKLY_FOOTER}`)
    expect(newYorkHour(sent!.date_created)).toBe(8)
    expect((await textsOf(user.id))[0]).toMatchObject({ status: 'sent', localDate: '2026-06-16' })
    // Asked for again (the report job ran twice): one text.
    await app.services.texts.sendWeeklyReportLink({ userId: user.id, weekStart: '2026-06-15', link: `${app.config.appUrl}/reports/2026-06-15` })
    await h!.settle()
    expect(twilio.sentTo(phone)).toHaveLength(1)
  })

  it('sends at most 3 a day (the 4th the next morning), with the footer on the first text of each week only', async () => {
    const { app, twilio } = await start()
    const { user, phone } = await h!.person()
    const ask = (key: string) => app.services.texts.sendText({ userId: user.id, kind: 'weekly_report', dedupeKey: key, content: `Text ${key}` })
    // Five asked for at once on Monday 9:50 AM: two senders race for each person's cap.
    await Promise.all(['a', 'b', 'c', 'd', 'e'].map(ask))
    await h!.settle()
    await app.services.texts.release()
    const monday = twilio.sentTo(phone).map((message) => message.body)
    expect(monday).toHaveLength(3)
    expect(monday.filter((body) => body.endsWith(WEEKLY_FOOTER))).toHaveLength(1)
    expect(monday[0]).toMatch(/^Momentum Coach: Text [a-e] Reply STOP to opt out\.$/)
    const held = (await textsOf(user.id)).filter((text) => text.status === 'held')
    expect(held.map((text) => [text.skipReason, text.holdUntil])).toEqual([
      ['daily_cap', at('2026-06-16T12:00:00Z')],
      ['daily_cap', at('2026-06-16T12:00:00Z')],
    ])
    // Tuesday 8:00 AM: the other two, without the footer (not the week's first).
    await h!.jumpTo(at('2026-06-16T11:58:00Z'))
    await h!.advanceTo(at('2026-06-16T12:01:00Z'))
    const tuesday = twilio.sentTo(phone).slice(3)
    expect(tuesday).toHaveLength(2)
    for (const message of tuesday) {
      expect(message.body).not.toContain(WEEKLY_FOOTER)
      expect(newYorkHour(message.date_created)).toBe(8)
    }
    // The next Monday: the footer again on the week's first text.
    await h!.jumpTo(at('2026-06-22T13:00:00Z'))
    await ask('f')
    await h!.settle()
    expect(twilio.sentTo(phone).at(-1)!.body).toBe(`Momentum Coach: Text f ${WEEKLY_FOOTER}`)
    // Five rows were written in the same instant: their order is not the test's concern.
    expect((await textsOf(user.id)).map((text) => text.localDate).sort()).toEqual(['2026-06-15', '2026-06-15', '2026-06-15', '2026-06-16', '2026-06-16', '2026-06-22'])
  })

  it('records Twilio’s 21610 as a revocation of texts (the person opted out with the carrier)', async () => {
    const { app, twilio } = await start()
    // The person texted STOP to Twilio itself (our webhook never heard it): Twilio refuses with 21610.
    const { user, phone } = await h!.person()
    twilio.block(phone)
    await app.services.texts.sendText({ userId: user.id, kind: 'weekly_report', dedupeKey: 'carrier-1', content: 'Hello' })
    await h!.settle()
    expect(await textsOf(user.id)).toMatchObject([{ status: 'failed', errorCode: 21610 }])
    const [revoked] = await database.db.select().from(consentEvents).where(and(eq(consentEvents.userId, user.id), eq(consentEvents.source, 'carrier_opt_out')))
    expect(revoked).toMatchObject({ channel: 'texts', action: 'revoked', detail: { errorCode: 21610 } })
    const [state] = await database.db.select().from(consentStates).where(and(eq(consentStates.userId, user.id), eq(consentStates.channel, 'texts')))
    expect(state!.granted).toBe(false)
    await app.services.texts.sendText({ userId: user.id, kind: 'weekly_report', dedupeKey: 'carrier-2', content: 'Hello again' })
    await h!.settle()
    expect((await textsOf(user.id)).map((text) => text.status)).toEqual(['failed'])
    expect(twilio.requests.filter((request) => request.method === 'POST')).toHaveLength(1)
  })

  it('tries a text again after Twilio’s 429 (nothing was created), once the minute is up', async () => {
    const { app, twilio } = await start()
    const { user, phone } = await h!.person()
    twilio.failNext(1)
    await app.services.texts.sendText({ userId: user.id, kind: 'weekly_report', dedupeKey: 'busy-1', content: 'Hello' })
    await h!.settle()
    expect(await textsOf(user.id)).toMatchObject([{ status: 'held' }])
    await h!.advanceTo(at('2026-06-15T13:52:00Z'))
    expect(twilio.sentTo(phone)).toHaveLength(1)
    expect(await textsOf(user.id)).toMatchObject([{ status: 'sent', attempts: 2 }])
  })

  it('stops texting a person who turns texts off, and writes every text to the log when Twilio is not configured', async () => {
    const { app, twilio } = await start({ twilio: false })
    const { user, phone } = await h!.person()
    await app.services.texts.sendText({ userId: user.id, kind: 'weekly_report', dedupeKey: 'log-1', content: 'Hello' })
    await h!.settle()
    expect(await textsOf(user.id)).toMatchObject([{ status: 'logged', toNumber: phone, body: `Momentum Coach: Hello ${WEEKLY_FOOTER}` }])
    expect(twilio.requests).toHaveLength(0)
    // Turned off while a text waits for the morning: the waiting text is not sent either.
    await h!.jumpTo(at('2026-06-16T02:00:00Z'))
    await app.services.texts.sendText({ userId: user.id, kind: 'weekly_report', dedupeKey: 'log-2', content: 'Hello again' })
    await h!.settle()
    await setConsent(database.db, user.id, 'texts', false, h!.clock.now())
    expect(await app.services.texts.sendText({ userId: user.id, kind: 'weekly_report', dedupeKey: 'log-3', content: 'And again' })).toEqual({ id: null, created: false })
    await h!.advanceTo(at('2026-06-16T12:01:00Z'))
    expect((await textsOf(user.id)).map((text) => [text.dedupeKey, text.status, text.skipReason])).toEqual([
      ['log-1', 'logged', null],
      ['log-2', 'skipped', 'no_consent'],
    ])
  })
})

describe('many calls at once', () => {
  it('texts every recap of 40 calls ending together within 2 minutes of its report', async () => {
    const { twilio } = await start()
    const people = await Promise.all(Array.from({ length: 40 }, () => h!.person({ time: '10:00' })))
    await h!.advanceTo(at('2026-06-15T14:10:00Z'))
    for (const { user, phone } of people) {
      const [call] = await callsOf(user.id)
      const sent = twilio.sentTo(phone)
      expect(sent).toHaveLength(1)
      const delay = new Date(sent[0]!.date_created).getTime() - call!.reportAt!.getTime()
      expect(delay).toBeLessThanOrEqual(120_000)
      expect(newYorkHour(sent[0]!.date_created)).toBeGreaterThanOrEqual(8)
    }
  })
})
