/**
 * Issue 15's acceptance line: recap texts for 1,000 completed calls all leave within 2 minutes of
 * their reports (test clock), none outside the local window, none beyond the daily cap. Real
 * PostgreSQL, the real Vapi webhook route (each end-of-call report posted as Vapi posts it), the
 * jobs the app runs, and the official twilio SDK sending to the Twilio fake, all on a test clock.
 *
 * 1,000 people across the product's time zones (common/goals TIMEZONES), their calls ending in five
 * waves spread over a day and a half, so that some reports arrive inside 8:00 AM-9:00 PM local and
 * some at night or early in the morning; a tenth of them already had 3 texts that local day (at
 * the cap), another tenth 2 (the recap is their third). Expected, per person, computed here from
 * the rule (not from the outbox's code): inside the window and under the cap, sent within 2
 * minutes of the report; outside it, held and sent at the next local 8:00 AM; at the cap, at
 * tomorrow's 8:00 AM. Each recap exactly once; never outside the window; never a 4th text a day.
 */
import { randomUUID } from 'node:crypto'
import { inArray } from 'drizzle-orm'
import { Temporal } from 'temporal-polyfill'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CONSENT_TEXT } from '#common/auth'
import { TIMEZONES } from '#common/goals'
import { WEEKLY_FOOTER } from '#common/texts'
import { coachingCalls, consentEvents, phoneProofs, profiles, textMessages, users } from '#server/db/schema'
import { CALL_REPORT_OUTPUT } from '#server/services/calls'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { freePort, startTextsHarness, VAPI_SECRET, type Harness } from '../helpers/texts-harness'

const PEOPLE = 1000
const MINUTE = 60_000
/** The waves of end-of-call reports (UTC; June, so no DST change on the way). */
const WAVES = [
  // Mon 15 June: 9:00 AM New York, 7:00 AM Denver, 3:00 AM Honolulu, 10:30 AM St John's.
  '2026-06-15T13:00:00Z',
  // Mon: every zone's afternoon.
  '2026-06-15T20:00:00Z',
  // Mon 8:59 PM New York (the last minute of the window), 9:59 PM Halifax, 10:29 PM St John's.
  '2026-06-16T00:59:00Z',
  // Tue 0:00 AM New York, 9:00 PM Los Angeles (the window just closed), 8:00 PM Anchorage.
  '2026-06-16T04:00:00Z',
  // Tue 4:00 AM New York, 10:00 PM Honolulu, 0:00 AM Anchorage.
  '2026-06-16T08:00:00Z',
].map((iso) => new Date(iso))

type Person = {
  index: number
  userId: string
  callId: string
  vapiCallId: string
  phone: string
  zone: string
  reportAt: Date
  /** Texts already sent on `seededDate` (local) before the report: 0, 2 or 3. */
  seeded: number
  seededDate: string | null
  /** When the recap may leave at the earliest, by the rule. */
  expectedAt: Date
  footer: boolean
}

const local = (instant: Date, zone: string) => Temporal.Instant.fromEpochMilliseconds(instant.getTime()).toZonedDateTimeISO(zone)
const eightAm = (date: Temporal.PlainDate, zone: string) => new Date(date.toZonedDateTime({ timeZone: zone, plainTime: '08:00' }).epochMilliseconds)
const insideWindow = (instant: Date, zone: string) => {
  const hour = local(instant, zone).hour
  return hour >= 8 && hour < 21
}
const mondayOf = (date: Temporal.PlainDate) => date.subtract({ days: date.dayOfWeek - 1 })

/** Who each person is and what the rule says their recap does. */
function plan(): Person[] {
  return Array.from({ length: PEOPLE }, (_, index) => {
    const zone = TIMEZONES[index % TIMEZONES.length]!.iana
    const reportAt = WAVES[Math.floor(index / (PEOPLE / WAVES.length))]!
    const now = local(reportAt, zone)
    const today = now.toPlainDate()
    // A tenth at the cap, a tenth with two texts already (sent from 8:00 AM); before 9 AM, those were yesterday's.
    const seeded = index % 10 === 3 ? 3 : index % 10 === 7 ? 2 : 0
    const seededDate = seeded === 0 ? null : now.hour < 9 ? today.subtract({ days: 1 }) : today
    let expectedAt: Date
    if (insideWindow(reportAt, zone)) expectedAt = reportAt
    else expectedAt = eightAm(now.hour < 8 ? today : today.add({ days: 1 }), zone)
    // At the cap on the day the recap would go: the next morning.
    const goesOn = local(expectedAt, zone).toPlainDate()
    if (seeded === 3 && seededDate && Temporal.PlainDate.compare(seededDate, goesOn) === 0) expectedAt = eightAm(goesOn.add({ days: 1 }), zone)
    const sendDate = local(expectedAt, zone).toPlainDate()
    const footer = !(seededDate && Temporal.PlainDate.compare(mondayOf(seededDate), mondayOf(sendDate)) === 0)
    return {
      index,
      userId: randomUUID(),
      callId: randomUUID(),
      vapiCallId: randomUUID(),
      // Seattle numbers (206-230-0000 on): only US and Canadian geographic numbers get texts.
      phone: `+1206${2_300_000 + index}`,
      zone,
      reportAt,
      seeded,
      seededDate: seededDate?.toString() ?? null,
      expectedAt,
      footer,
    }
  })
}

let database: TestDatabase
let h: Harness

beforeAll(async () => {
  database = await createTestDatabase()
  h = await startTextsHarness(database, { start: new Date(WAVES[0]!.getTime() - 10 * MINUTE), port: await freePort() })
})

afterAll(async () => {
  await h?.close()
  await database?.destroy()
})

/** One wave's people, in bulk: accounts with proven numbers and consent to calls and texts, the texts they already had, their answered calls. */
async function seed(wave: Person[]): Promise<void> {
  const now = h.clock.now()
  await database.db.transaction(async (tx) => {
    await tx.insert(users).values(
      wave.map((person) => ({
        id: person.userId,
        email: `recap-${person.index}@example.com`,
        passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$placeholderplaceholder$placeholderplaceholderplaceholder',
        fullName: `Recap Person ${person.index}`,
        phoneNumber: person.phone.slice(2),
        communicationConsentVersion: '2026-11-01',
        communicationConsentAt: now,
        termsAcceptedAt: now,
      })),
    )
    await tx.insert(profiles).values(wave.map((person) => ({ id: person.userId, name: `Recap Person ${person.index}`, phoneNumber: person.phone.slice(2), timezone: person.zone, onboardingCompleted: true })))
    // Each proved their number with the code texted to it: nothing is sent to a number nobody proved.
    await tx.insert(phoneProofs).values(wave.map((person) => ({ userId: person.userId, phoneNumber: person.phone.slice(2), method: 'code' as const, provenAt: now })))
    await tx.insert(consentEvents).values(
      wave.flatMap((person) => [
        { userId: person.userId, channel: 'calls' as const, action: 'granted' as const, source: 'sign_up' as const, text: CONSENT_TEXT, at: now },
        { userId: person.userId, channel: 'texts' as const, action: 'granted' as const, source: 'opt_in_screen' as const, text: 'test opt-in', at: now },
      ]),
    )
    const earlier = wave.filter((person) => person.seeded > 0)
    if (earlier.length > 0) {
      await tx.insert(textMessages).values(
        earlier.flatMap((person) =>
          Array.from({ length: person.seeded }, (_, n) => {
            // Sent on their local date at 8:00, 8:05 and 8:10 AM (before the report).
            const sentAt = new Date(Temporal.PlainDate.from(person.seededDate!).toZonedDateTime({ timeZone: person.zone, plainTime: `08:${String(5 * n).padStart(2, '0')}` }).epochMilliseconds)
            expect(sentAt.getTime()).toBeLessThan(person.reportAt.getTime())
            return {
              userId: person.userId,
              kind: 'weekly_report' as const,
              dedupeKey: `earlier:${person.userId}:${n}`,
              content: `Earlier text ${n}`,
              body: `Momentum Coach: Earlier text ${n}`,
              toNumber: person.phone,
              status: 'sent' as const,
              localDate: person.seededDate,
              segments: 1,
              attempts: 1,
              createdAt: sentAt,
              sentAt,
              updatedAt: sentAt,
            }
          }),
        ),
      )
    }
    await tx.insert(coachingCalls).values(
      wave.map((person) => {
        const callDate = new Date(person.reportAt.getTime() - 15 * MINUTE)
        return {
          id: person.callId,
          userId: person.userId,
          callDate,
          completionStatus: 'in_progress' as const,
          vapiCallId: person.vapiCallId,
          slot: 'daily' as const,
          localDate: local(callDate, person.zone).toPlainDate().toString(),
          attempt: 0,
          timeZone: person.zone,
          maxDurationSeconds: 900,
          dialledAt: callDate,
          startedAt: new Date(callDate.getTime() + 20_000),
        }
      }),
    )
  })
}

/** Vapi's end-of-call report of a person's call, posted to the real webhook route as Vapi posts it. */
async function report(person: Person): Promise<void> {
  const endedAt = new Date(person.reportAt.getTime() - 5_000)
  const message = {
    type: 'end-of-call-report',
    timestamp: person.reportAt.getTime(),
    endedReason: 'customer-ended-call',
    startedAt: new Date(person.reportAt.getTime() - 14 * MINUTE).toISOString(),
    endedAt: endedAt.toISOString(),
    durationSeconds: 835,
    call: { id: person.vapiCallId, type: 'outboundPhoneCall', status: 'ended', assistantOverrides: { metadata: { callId: person.callId } } },
    analysis: { summary: `Call ${person.index}: we talked about your week.` },
    artifact: {
      transcript: 'AI: How did the week go?\nUser: Well.',
      structuredOutputs: { 'so-report': { name: CALL_REPORT_OUTPUT, result: { summary: `Call ${person.index}`, areasDiscussed: ['health'], commitments: [`Walk ${person.index} steps`] } } },
    },
  }
  const response = await h.app.inject({
    method: 'POST',
    url: '/api/webhooks/vapi',
    headers: { 'content-type': 'application/json', 'x-vapi-secret': VAPI_SECRET },
    payload: JSON.stringify({ message }),
  })
  expect(response.statusCode).toBe(200)
}

/** Jumps to a minute before `at` (nothing can be due in between), then runs minute by minute to `to`. */
async function runThrough(at: Date, to: Date): Promise<void> {
  const before = new Date(at.getTime() - MINUTE)
  if (h.clock.now().getTime() < before.getTime()) await h.jumpTo(before)
  await h.advanceTo(to)
}

describe('recaps for 1,000 completed calls', () => {
  it('each leaves once, within 2 minutes of its report or at the next local 8:00 AM, never outside 8 AM-9 PM local, never a 4th text a day', { timeout: 240_000 }, async () => {
    const people = plan()
    const byPhone = new Map(people.map((person) => [person.phone, person]))
    // The plan covers what the acceptance line is about (checked, so the test cannot pass by missing them).
    const held = people.filter((person) => person.expectedAt.getTime() !== person.reportAt.getTime())
    expect(people.filter((person) => !insideWindow(person.reportAt, person.zone)).length).toBeGreaterThanOrEqual(250)
    expect(people.filter((person) => person.seeded === 3 && insideWindow(person.reportAt, person.zone)).length).toBeGreaterThanOrEqual(50)
    expect(new Set(people.map((person) => person.zone)).size).toBe(TIMEZONES.length)
    // Most inside the window and under the cap: due at their report itself.
    expect(people.length - held.length).toBeGreaterThanOrEqual(400)

    // The reports' waves, and every instant a held recap is due (a local 8:00 AM), in order.
    const checkpoints = [...new Set([...WAVES, ...held.map((person) => person.expectedAt)].map((instant) => instant.getTime()))].sort((a, b) => a - b)
    for (const [i, instant] of checkpoints.entries()) {
      const at = new Date(instant)
      await runThrough(at, at)
      const wave = people.filter((person) => person.reportAt.getTime() === instant)
      if (wave.length > 0) {
        await seed(wave)
        for (let j = 0; j < wave.length; j += 50) await Promise.all(wave.slice(j, j + 50).map(report))
        await h.settle()
      }
      // Two minutes on (or up to the next checkpoint), minute by minute.
      const next = checkpoints[i + 1]
      await h.advanceTo(new Date(Math.min(instant + 2 * MINUTE, next ?? Infinity)))
    }

    // Every call was completed by its report.
    const calls = await database.db.select({ id: coachingCalls.id, status: coachingCalls.completionStatus, reportAt: coachingCalls.reportAt }).from(coachingCalls)
    expect(calls).toHaveLength(PEOPLE)
    const reportAtOf = new Map(calls.map((call) => [call.id, call.reportAt]))
    expect(calls.every((call) => call.status === 'completed' && call.reportAt !== null)).toBe(true)

    // What Twilio received: the recaps only (the earlier texts were seeded in the database).
    const messages = h.twilio.requests.filter((request) => request.method === 'POST')
    const sent = [...byPhone.keys()].flatMap((phone) => h.twilio.sentTo(phone).map((message) => ({ message, person: byPhone.get(phone)! })))
    expect(sent).toHaveLength(PEOPLE)
    expect(messages).toHaveLength(PEOPLE)
    const late: string[] = []
    for (const person of people) {
      const mine = h.twilio.sentTo(person.phone)
      // Exactly once.
      expect(mine, `person ${person.index}`).toHaveLength(1)
      const message = mine[0]!
      const sentAt = new Date(message.date_created)
      expect(message.body).toContain(`/calls/${person.callId}`)
      expect(message.body.endsWith(WEEKLY_FOOTER), `footer of person ${person.index}`).toBe(person.footer)
      // Never outside 8 AM-9 PM in the person's zone.
      expect(insideWindow(sentAt, person.zone), `person ${person.index} at ${sentAt.toISOString()} in ${person.zone}`).toBe(true)
      // Never before the report (as applied), never before its due instant, at most 2 minutes after it.
      const reportAt = reportAtOf.get(person.callId)!
      expect(reportAt.getTime()).toBe(person.reportAt.getTime())
      const delay = sentAt.getTime() - person.expectedAt.getTime()
      if (delay < 0 || delay > 2 * MINUTE) late.push(`person ${person.index} (${person.zone}, report ${person.reportAt.toISOString()}, ${person.seeded} earlier): expected ${person.expectedAt.toISOString()}, sent ${sentAt.toISOString()}`)
    }
    expect(late).toEqual([])

    // The outbox agrees: one recap row per call, sent, counted against the date it went; never more than 3 a local day.
    const rows = await database.db
      .select({ userId: textMessages.userId, kind: textMessages.kind, status: textMessages.status, localDate: textMessages.localDate, callId: textMessages.callId, sentAt: textMessages.sentAt })
      .from(textMessages)
      .where(inArray(textMessages.userId, people.map((person) => person.userId)))
    const recaps = rows.filter((row) => row.kind === 'recap')
    expect(recaps).toHaveLength(PEOPLE)
    expect(new Set(recaps.map((row) => row.callId)).size).toBe(PEOPLE)
    expect(recaps.every((row) => row.status === 'sent')).toBe(true)
    const perDay = new Map<string, number>()
    for (const row of rows) perDay.set(`${row.userId} ${row.localDate}`, (perDay.get(`${row.userId} ${row.localDate}`) ?? 0) + 1)
    expect(Math.max(...perDay.values())).toBe(3)
    for (const person of people) {
      const recap = recaps.find((row) => row.userId === person.userId)!
      expect(recap.localDate).toBe(local(recap.sentAt!, person.zone).toPlainDate().toString())
    }
  })
})
