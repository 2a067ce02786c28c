/**
 * More people due than there are lines (docs/decisions/069), in the embedded mode on a test clock:
 * every due call waits for a line in the queue's order and is placed late, never lost; the pace
 * holds; a lost report's line comes back through the sweep; the app keeps its reserved lines; the
 * limit Vapi tells wins; an hour without a line skips the call, loudly.
 */
import { asc, eq, inArray } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { coachingCallEvents, coachingCalls } from '#server/db/schema'
import { useCallsHarness } from '../helpers/calls-harness'

const at = (iso: string) => new Date(iso)

// 7 lines (the account at the fake has 7 too), 2 of them the app's: 5 for phone calls. One new
// phone call a second (the default).
const h = useCallsHarness({ env: { VAPI_MAX_CONCURRENT_CALLS: '7', VAPI_LINES_RESERVED_FOR_APP: '2' }, vapiLines: 7 })

const rowsOf = (userIds: string[]) => h.database.db.select().from(coachingCalls).where(inArray(coachingCalls.userId, userIds)).orderBy(asc(coachingCalls.dialledAt))
const eventsOf = async (callId: string) => h.database.db.select().from(coachingCallEvents).where(eq(coachingCallEvents.callId, callId)).orderBy(asc(coachingCallEvents.at), asc(coachingCallEvents.id))

/** The fake's live phone calls, oldest first. */
const liveCalls = () =>
  h.fake.calls
    .list()
    .filter((call) => call.type === 'outboundPhoneCall' && call.status !== 'ended')
    .sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt))

describe('more people due than lines', () => {
  it('calls all 30 people due at once on 5 lines: none refused, at most 5 live, in due order (a goal session before a check-in of its minute), each late one saying why', async () => {
    const people = [
      ...(await Promise.all(Array.from({ length: 10 }, () => h.person({ time: '10:00', scenario: 'stuck' })))),
      ...(await Promise.all(Array.from({ length: 5 }, () => h.person({ time: '10:01', scenario: 'stuck' })))),
      // Premium's first call of the month is its goal session.
      ...(await Promise.all(Array.from({ length: 5 }, () => h.person({ time: '10:01', scenario: 'stuck', plan: 'premium' })))),
      ...(await Promise.all(Array.from({ length: 10 }, () => h.person({ time: '10:02', scenario: 'stuck' })))),
    ]
    const ids = people.map((person) => person.user.id)
    const ended = new Map<string, number>()
    await h.advanceTo(at('2026-06-15T14:00:30Z'))
    // One a second: five lines taken in the first five seconds.
    expect(liveCalls()).toHaveLength(5)
    // Each minute or so a call ends (the person hangs up); its line goes to the head of the queue.
    for (let round = 0; round < 40 && h.fake.calls.list().length < 30; round++) {
      const [oldest] = liveCalls()
      ended.set(oldest!.id, h.clock.now().getTime())
      h.fake.calls.endNow(oldest!.id, 'customer-ended-call')
      await h.advanceTo(new Date(h.clock.now().getTime() + 50_000))
      expect(liveCalls().length).toBeLessThanOrEqual(5)
    }
    const rows = await rowsOf(ids)
    expect(rows).toHaveLength(30)
    expect(h.fake.calls.list()).toHaveLength(30)
    // Never more than 5 live at once: at each dial, the calls dialled before it and not yet ended.
    for (const row of rows) {
      const live = rows.filter((other) => other.dialledAt! <= row.dialledAt! && (ended.get(other.vapiCallId!) ?? Infinity) > row.dialledAt!.getTime())
      expect(live.length).toBeLessThanOrEqual(5)
    }
    // Dialled in due order; in the 10:01 minute the goal sessions first.
    const order = rows.map((row) => `${row.callDate.toISOString().slice(11, 16)} ${row.kind}`)
    expect(order).toEqual([
      ...Array(10).fill('14:00 check_in'),
      ...Array(5).fill('14:01 goal_session'),
      ...Array(5).fill('14:01 check_in'),
      ...Array(10).fill('14:02 check_in'),
    ])
    // None was refused by Vapi, none retried, none skipped: late, not lost.
    expect(rows.every((row) => row.attempt === 0 && row.vapiCallId !== null)).toBe(true)
    for (const row of rows) expect((await eventsOf(row.id)).map((event) => event.type)).not.toContain('line_refused')
    // The late ones say how late, and why.
    const late = rows.filter((row) => row.dialWaitReason !== null)
    expect(late.length).toBeGreaterThan(20)
    const last = rows.at(-1)!
    expect(last.dialWaitReason).toBe('lines_busy')
    const wait = (await eventsOf(last.id)).find((event) => event.type === 'line_wait')
    expect(wait!.detail).toEqual({ lateSeconds: Math.round((last.dialledAt!.getTime() - last.callDate.getTime()) / 1000), reason: 'lines_busy' })
    expect((wait!.detail as { lateSeconds: number }).lateSeconds).toBeGreaterThan(15 * 60)
    // The first five were on time (their instant, one a second).
    expect(rows.slice(0, 5).every((row) => row.dialWaitReason === null && row.dialledAt!.getTime() - row.callDate.getTime() < 60_000)).toBe(true)
  })

  it('keeps the pace: calls due in the same minute go out one a second, each said to be paced only if it waited over a minute', async () => {
    const people = await Promise.all(Array.from({ length: 4 }, () => h.person({ time: '10:00' })))
    await h.advanceTo(at('2026-06-15T14:01:00Z'))
    const rows = await rowsOf(people.map((person) => person.user.id))
    const dialled = rows.map((row) => row.dialledAt!.getTime() - at('2026-06-15T14:00:00Z').getTime())
    expect(dialled).toEqual([0, 1000, 2000, 3000])
    expect(rows.map((row) => row.dialWaitReason)).toEqual([null, null, null, null])
  })

  it('believes the limit Vapi answers with over the setting: an account of 4 lines leaves phone calls 2', async () => {
    h.fake.calls.concurrencyLimit = 4
    const people = await Promise.all(Array.from({ length: 4 }, () => h.person({ time: '10:00', scenario: 'stuck' })))
    await h.advanceTo(at('2026-06-15T14:01:00Z'))
    // The first dial's answer said 4 (the setting says 7): with the app's 2, phone calls have 2.
    expect(liveCalls()).toHaveLength(2)
    const rows = await rowsOf(people.map((person) => person.user.id))
    expect(rows.filter((row) => row.completionStatus === 'dialling')).toHaveLength(2)
    expect((await h.app.services.calls.lineState()).limit).toBe(4)
  })

  it('keeps the reserved lines for calls in the app while phone calls wait, and refuses one past them in words', async () => {
    const phoneCalls = await Promise.all(Array.from({ length: 6 }, () => h.person({ time: '10:00', scenario: 'stuck' })))
    await h.advanceTo(at('2026-06-15T14:00:30Z'))
    expect(liveCalls()).toHaveLength(5)
    expect((await rowsOf(phoneCalls.map((person) => person.user.id))).filter((row) => row.vapiCallId === null)).toHaveLength(1)
    const inApp = await Promise.all(Array.from({ length: 3 }, () => h.person()))
    const opened = [await h.app.services.calls.webCalls.open(inApp[0]!.user.id, 300), await h.app.services.calls.webCalls.open(inApp[1]!.user.id, 300)]
    expect(opened.map((call) => call.callId)).toHaveLength(2)
    await expect(h.app.services.calls.webCalls.open(inApp[2]!.user.id, 300)).rejects.toMatchObject({ code: 'VOICE_LINES_BUSY', statusCode: 503 })
    // Nothing was written for the refused one.
    expect(await h.callsOf(inApp[2]!.user.id)).toEqual([])
    // A call in the app that could not be placed gives its line back: the next one gets it.
    await h.app.services.calls.webCalls.fail(opened[0]!.callId, 'failed', 'vapi-refused-400', {})
    await expect(h.app.services.calls.webCalls.open(inApp[2]!.user.id, 300)).resolves.toMatchObject({ maxDurationSeconds: 300 })
  })

  it('takes Vapi ending a call at its start for want of a line as no attempt: the call is dialled again at its place, and completes as attempt 0', async () => {
    const { user, phone } = await h.person({ time: '10:00', scenario: 'start-error' })
    // The first dial is ended by Vapi for want of a line; by the next one a line is free.
    void h.fake.calls.nextCreated().then(() => h.fake.calls.setScenario(phone, 'answered'))
    await h.advanceTo(at('2026-06-15T14:10:00Z'))
    const dials = h.dialsTo(phone)
    expect(dials.map((dial) => dial.endedReason).sort()).toEqual(['call.start.error-subscription-concurrency-limit-reached', 'customer-ended-call'])
    const calls = await h.callsOf(user.id)
    expect(calls).toHaveLength(1)
    const answered = dials.find((dial) => dial.endedReason === 'customer-ended-call')!
    expect(calls[0]).toMatchObject({ attempt: 0, completionStatus: 'completed', vapiCallId: answered.id, retryAt: null })
    const timeline = await h.timelineOf(calls[0]!.id)
    expect(timeline).toContain('line_refused')
    expect(timeline).not.toContain('retry_scheduled')
    expect(timeline.filter((type) => type === 'dialled')).toHaveLength(2)
  })

  it('gives the line of a call whose report and final status were lost back through the sweep, and the next call gets it', async () => {
    const first = await h.person({ time: '09:59' })
    const others = await Promise.all(Array.from({ length: 5 }, () => h.person({ time: '10:00', scenario: 'stuck' })))
    h.fake.calls.configureWebhooks({ dropRate: 1 })
    await h.advanceTo(at('2026-06-15T14:00:30Z'))
    // Five lines: the first call (a minute earlier) and four others; the fifth other waits.
    const waiting = async () => (await rowsOf(others.map((o) => o.user.id))).filter((row) => row.vapiCallId === null)
    expect(await waiting()).toHaveLength(1)
    // The first call ended at Vapi, but nothing of it arrived: the sweep asks Vapi (past its 5 minutes,
    // the ringing and the grace), finishes it, and its line goes to the waiting call.
    await h.advanceTo(at('2026-06-15T14:15:30Z'))
    const [done] = await h.callsOf(first.user.id)
    expect(done).toMatchObject({ completionStatus: 'completed' })
    expect(await waiting()).toHaveLength(0)
    const last = (await rowsOf(others.map((o) => o.user.id))).at(-1)!
    expect(last.dialWaitReason).toBe('lines_busy')
    expect(last.dialledAt!.getTime()).toBeGreaterThanOrEqual(at('2026-06-15T14:10:00Z').getTime())
  })

  it("skips a call that found no line for an hour, with why; Vapi's refusals meanwhile are not attempts, and come further and further apart", async () => {
    // Five goal sessions (30 minutes each) hold the five phone lines; at Vapi they never end.
    const holders = await Promise.all(Array.from({ length: 5 }, () => h.person({ time: '09:58', scenario: 'stuck', plan: 'premium' })))
    await h.advanceTo(at('2026-06-15T13:59:00Z'))
    // Meanwhile the account at Vapi has 5 lines, not 7: nothing tells the app until it dials again.
    h.fake.calls.concurrencyLimit = 5
    const late = await h.person({ time: '10:00' })
    await h.advanceTo(at('2026-06-15T14:30:00Z'))
    expect(h.dialsTo(late.phone)).toHaveLength(0)
    // At 10:38 the holders' leases lapse (their length and 10 minutes): the app dials, and Vapi,
    // still carrying the five calls, has no line. The call waits again, at its place.
    await h.advanceTo(at('2026-06-15T14:59:00Z'))
    const [waiting] = await h.callsOf(late.user.id)
    expect(waiting).toMatchObject({ completionStatus: 'dialling', attempt: 0, vapiCallId: null })
    await h.advanceTo(at('2026-06-15T15:01:00Z'))
    const [call] = await h.callsOf(late.user.id)
    expect(call).toMatchObject({ completionStatus: 'skipped', skipReason: 'no_line_free', vapiCallId: null, dialledAt: null, attempt: 0 })
    expect(await h.callsOf(late.user.id)).toHaveLength(1)
    const events = await eventsOf(call!.id)
    expect(events.map((event) => [event.type, event.detail])).toContainEqual(['skipped', { reason: 'no_line_free', waitedMinutes: 60 }])
    const refusals = events.filter((event) => event.type === 'line_refused').map((event) => event.at.getTime())
    expect(refusals.length).toBeGreaterThan(2)
    // Each wait after a refusal is longer than the one before, up to two minutes.
    const gaps = refusals.slice(1).map((t, i) => t - refusals[i]!)
    for (const [i, gap] of gaps.entries()) if (i > 0) expect(gap).toBeGreaterThanOrEqual(Math.min(gaps[i - 1]!, 120_000))
    expect(refusals.length).toBeLessThan(25)
    expect((await rowsOf(holders.map((holder) => holder.user.id))).every((row) => row.vapiCallId !== null)).toBe(true)
  })
})
