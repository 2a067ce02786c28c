/**
 * The scheduler's tick (every minute): finds the calls that fall in the next few minutes, and the
 * ones of the last few minutes that were never claimed (a tick or a worker was down, Redis lost its
 * delayed jobs), and enqueues one place-call job for each, delayed to the exact instant, its job id
 * derived from the claim key. Retries that come due are enqueued the same way. Enqueuing twice is
 * harmless: the job id dedupes in the queue and the claim dedupes in the database.
 */
import { and, eq, gte, inArray, isNotNull, lt, not, or, sql } from 'drizzle-orm'
import type { DbExecutor } from '#server/db/client'
import { coachingCalls, consentStates, profiles, subscribers, users } from '#server/db/schema'
import { paidUserCondition } from '#server/services/billing'
import { provenSql, stoppedSql } from '#server/services/phones'
import type { CallsContext } from './context'
import type { CallSlot } from './entitlements'
import { callsBetween } from './planner'
import { eligibilityOf, loadCallPeople } from './person'

/** How far ahead the tick enqueues (delayed jobs), and how far back it catches up. */
const TICK_LOOKAHEAD_MS = 5 * 60_000
export const TICK_LOOKBACK_MS = 15 * 60_000
/** Slack for the SQL prefilter: a DST jump moves a local time by up to an hour. */
const PREFILTER_SLACK_S = 3600
/** How many enqueues the tick runs at once. */
const ENQUEUE_CONCURRENCY = 50

export type DueCall = { userId: string; slot: CallSlot; localDate: string; attempt: number; dueAt: Date }

/** The place-call job id of a claim key (BullMQ ids may not contain ':'). */
export const placeCallJobId = (call: Pick<DueCall, 'userId' | 'slot' | 'localDate' | 'attempt'>) => `call-${call.userId}-${call.slot}-${call.localDate}-${call.attempt}`
/** The place-call job id of a test call ("Call me now"). */
export const testCallJobId = (callId: string) => `call-test-${callId}`

/**
 * People with a call time that may fall in [now − lookback, now + lookahead], by a coarse SQL
 * filter on the local time of day (the exact instants are computed per zone afterwards).
 */
async function candidateUserIds(db: DbExecutor, now: Date): Promise<string[]> {
  const localNow = sql`(${now.toISOString()}::timestamptz at time zone ${profiles.timezone})::time`
  const ahead = (time: unknown) => sql`mod((extract(epoch from (${time} - ${localNow}))::int + 86400), 86400)`
  const near = (time: unknown) =>
    sql`(${ahead(time)} <= ${Math.ceil(TICK_LOOKAHEAD_MS / 1000) + PREFILTER_SLACK_S} or ${ahead(time)} >= ${86400 - Math.ceil(TICK_LOOKBACK_MS / 1000) - PREFILTER_SLACK_S})`
  const evening = sql`coalesce(${profiles.eveningCallTime}, '19:00'::time)`
  const phone = sql`coalesce(${profiles.phoneNumber}, ${users.phoneNumber})`
  const rows = await db
    .select({ id: profiles.id })
    .from(profiles)
    .innerJoin(users, eq(users.id, profiles.id))
    // Only people whose latest consent-ledger row for calls is a grant.
    .innerJoin(consentStates, and(eq(consentStates.userId, profiles.id), eq(consentStates.channel, 'calls'), eq(consentStates.granted, true)))
    .leftJoin(subscribers, eq(subscribers.userId, profiles.id))
    .where(
      and(
        isNotNull(profiles.dailyCallTime),
        eq(profiles.onboardingCompleted, true),
        // A number the person proved theirs, that did not text STOP (docs/decisions/060).
        provenSql(profiles.id, phone),
        not(stoppedSql(phone)),
        paidUserCondition(now),
        or(near(profiles.dailyCallTime), and(inArray(subscribers.tier, ['premium', 'elite']), near(evening))),
      ),
    )
  return rows.map((row) => row.id)
}

/** The daily calls due in the tick's window that have no claim yet, or whose claim was left undialled. */
export async function dueCalls(db: DbExecutor, now: Date): Promise<DueCall[]> {
  const from = new Date(now.getTime() - TICK_LOOKBACK_MS)
  const to = new Date(now.getTime() + TICK_LOOKAHEAD_MS)
  const ids = await candidateUserIds(db, now)
  if (ids.length === 0) return []
  const planned: DueCall[] = []
  for (let i = 0; i < ids.length; i += 1000) {
    const people = await loadCallPeople(db, ids.slice(i, i + 1000), now)
    for (const person of people) {
      for (const call of callsBetween(person, from, to)) {
        // Eligibility is decided again at dial time; a pause that is on at the call's instant skips it here.
        if (!eligibilityOf(person, call.at).eligible) continue
        planned.push({ userId: person.userId, slot: call.slot, localDate: call.localDate, attempt: 0, dueAt: call.at })
      }
    }
  }
  if (planned.length === 0) return []
  // Drop the ones already claimed, unless the claim is a dial that was never made and no one holds it.
  const dates = [...new Set(planned.map((call) => call.localDate))]
  const claimed = new Set<string>()
  const userIds = [...new Set(planned.map((call) => call.userId))]
  for (let i = 0; i < userIds.length; i += 1000) {
    const rows = await db
      .select({ userId: coachingCalls.userId, slot: coachingCalls.slot, localDate: coachingCalls.localDate })
      .from(coachingCalls)
      .where(
        and(
          inArray(coachingCalls.userId, userIds.slice(i, i + 1000)),
          inArray(coachingCalls.localDate, dates),
          eq(coachingCalls.attempt, 0),
          or(
            sql`${coachingCalls.completionStatus} <> 'dialling'`,
            isNotNull(coachingCalls.vapiCallId),
            and(isNotNull(coachingCalls.dialLeaseUntil), gte(coachingCalls.dialLeaseUntil, now)),
          ),
        ),
      )
    for (const row of rows) claimed.add(`${row.userId}|${row.slot}|${row.localDate}`)
  }
  return planned.filter((call) => !claimed.has(`${call.userId}|${call.slot}|${call.localDate}`))
}

/** Retries that come due in the tick's window and have not been claimed yet. */
async function dueRetries(db: DbExecutor, now: Date): Promise<DueCall[]> {
  const from = new Date(now.getTime() - TICK_LOOKBACK_MS)
  const to = new Date(now.getTime() + TICK_LOOKAHEAD_MS)
  const rows = await db
    .select({ userId: coachingCalls.userId, slot: coachingCalls.slot, localDate: coachingCalls.localDate, attempt: coachingCalls.attempt, retryAt: coachingCalls.retryAt })
    .from(coachingCalls)
    .where(and(isNotNull(coachingCalls.retryAt), gte(coachingCalls.retryAt, from), lt(coachingCalls.retryAt, to)))
  return rows
    .filter((row): row is typeof row & { localDate: string; retryAt: Date } => row.localDate !== null && row.retryAt !== null && row.slot !== 'test')
    .map((row) => ({ userId: row.userId, slot: row.slot as CallSlot, localDate: row.localDate, attempt: row.attempt + 1, dueAt: row.retryAt }))
}

type TickRun = { calls: number; retries: number; failed: number }

/** The tick: enqueues the calls and retries due soon (or missed); nothing when calls cannot be placed. */
export function createTick(ctx: Pick<CallsContext, 'db' | 'clock' | 'log' | 'dialler'>, enqueueCall: (call: DueCall, now: Date) => Promise<void>) {
  const { db, clock, log } = ctx
  return async function tick(): Promise<TickRun> {
    if (!ctx.dialler) return { calls: 0, retries: 0, failed: 0 }
    const now = clock.now()
    const calls = await dueCalls(db, now)
    const retries = await dueRetries(db, now)
    const failed = await runAll([...calls, ...retries], (call) => enqueueCall(call, now))
    if (failed > 0) log.warn({ failed }, 'calls: some calls could not be enqueued; the next tick tries again')
    return { calls: calls.length, retries: retries.length, failed }
  }
}

/** Runs `fn` over the items, ENQUEUE_CONCURRENCY at a time; returns how many failed. */
async function runAll<T>(items: readonly T[], fn: (item: T) => Promise<void>): Promise<number> {
  let failed = 0
  for (let i = 0; i < items.length; i += ENQUEUE_CONCURRENCY) {
    const results = await Promise.allSettled(items.slice(i, i + ENQUEUE_CONCURRENCY).map(fn))
    failed += results.filter((result) => result.status === 'rejected').length
  }
  return failed
}
