/**
 * How the service stands now, for operators (`/ops`, `npm run calls:status`): the phone calls by
 * status in the last hour and today, the answer rate against the same hours a week ago, how late
 * the last hour's dials went out, Vapi's lines, the queues, parked webhook messages, calls stuck
 * past their end, and texts refused by code. Read from PostgreSQL (and Redis through the sources
 * given); no personal data (counts, codes, call ids).
 */
import { and, count, desc, gte, inArray, isNotNull, lte, ne, sql } from 'drizzle-orm'
import { NOT_REACHED_STATUSES, type CallStatus } from '#common/domain'
import type { OpsSnapshot } from '#common/ops'
import type { DbExecutor } from '#server/db/client'
import { coachingCalls, textMessages } from '#server/db/schema'
import { parkedEvents, type LineState } from '#server/services/calls'

const HOUR_MS = 60 * 60_000
const DAY_MS = 24 * HOUR_MS
const WEEK_MS = 7 * DAY_MS
/** Parked webhook messages listed (the count is of all of them). */
const PARKED_LISTED = 20
/** Stuck calls listed. */
const STUCK_LISTED = 50
/** A call is stuck this long past its longest end (dial + maximum duration): the sweep's grace. */
const STUCK_AFTER_MS = 5 * 60_000
/** A call placed without a maximum duration gets this one (the dialler's). */
const DEFAULT_MAX_DURATION_SECONDS = 300
const LIVE_STATUSES = ['dialling', 'queued', 'ringing', 'in_progress'] as const satisfies readonly CallStatus[]

type SnapshotSources = {
  db: DbExecutor
  now: Date
  /** Vapi's lines (Redis, or this process's count); a failure shows as null. */
  lines: () => Promise<LineState>
  /** The queues of whichever runs the jobs. */
  queues: () => Promise<Array<{ queue: string; waiting: number; oldestWaitingSeconds: number }>>
}

/** Phone calls (not the voice calls in the app) due in [from, to], by their status now. */
async function callsByStatus(db: DbExecutor, from: Date, to: Date) {
  const rows = await db
    .select({ status: coachingCalls.completionStatus, count: count() })
    .from(coachingCalls)
    .where(and(gte(coachingCalls.callDate, from), lte(coachingCalls.callDate, to), ne(coachingCalls.slot, 'web')))
    .groupBy(coachingCalls.completionStatus)
    .orderBy(desc(count()))
  return rows.map((row) => ({ status: row.status, count: Number(row.count) }))
}

/** Reached ÷ (reached + not reached) of the phone calls that ended in [from, to]. */
async function answerRate(db: DbExecutor, from: Date, to: Date) {
  const rows = await db
    .select({ status: coachingCalls.completionStatus, count: count() })
    .from(coachingCalls)
    .where(
      and(
        gte(coachingCalls.endedAt, from),
        lte(coachingCalls.endedAt, to),
        ne(coachingCalls.slot, 'web'),
        inArray(coachingCalls.completionStatus, ['completed', ...NOT_REACHED_STATUSES]),
      ),
    )
    .groupBy(coachingCalls.completionStatus)
  const reached = Number(rows.find((row) => row.status === 'completed')?.count ?? 0)
  const notReached = rows.filter((row) => row.status !== 'completed').reduce((sum, row) => sum + Number(row.count), 0)
  return { rate: reached + notReached === 0 ? null : reached / (reached + notReached), reached, notReached }
}

async function lateness(db: DbExecutor, now: Date) {
  const seconds = sql<number>`extract(epoch from (${coachingCalls.dialledAt} - ${coachingCalls.callDate}))`
  const [row] = await db
    .select({
      dialled: count(),
      p50: sql<string | null>`percentile_cont(0.5) within group (order by ${seconds})`,
      p99: sql<string | null>`percentile_cont(0.99) within group (order by ${seconds})`,
    })
    .from(coachingCalls)
    .where(and(gte(coachingCalls.dialledAt, new Date(now.getTime() - HOUR_MS)), lte(coachingCalls.dialledAt, now), ne(coachingCalls.slot, 'web')))
  const round = (value: string | null | undefined) => (value === null || value === undefined ? null : Math.max(0, Math.round(Number(value) * 10) / 10))
  return { dialled: Number(row?.dialled ?? 0), p50Seconds: round(row?.p50), p99Seconds: round(row?.p99) }
}

async function stuckCalls(db: DbExecutor, now: Date) {
  const longestEnd = sql`coalesce(${coachingCalls.dialledAt}, ${coachingCalls.callDate}) + make_interval(secs => coalesce(${coachingCalls.maxDurationSeconds}, ${DEFAULT_MAX_DURATION_SECONDS}))`
  const rows = await db
    .select({
      id: coachingCalls.id,
      status: coachingCalls.completionStatus,
      dialledAt: coachingCalls.dialledAt,
      minutesPastEnd: sql<number>`floor(extract(epoch from (${now.toISOString()}::timestamptz - (${longestEnd}))) / 60)::int`,
    })
    .from(coachingCalls)
    // The live calls' partial index (by call_date) keeps this to the calls not final.
    .where(and(inArray(coachingCalls.completionStatus, LIVE_STATUSES), sql`${longestEnd} < ${new Date(now.getTime() - STUCK_AFTER_MS).toISOString()}::timestamptz`))
    .orderBy(coachingCalls.callDate)
    .limit(STUCK_LISTED)
  return rows.map((row) => ({ id: row.id, status: row.status, dialledAt: row.dialledAt?.toISOString() ?? null, minutesPastEnd: Number(row.minutesPastEnd) }))
}

async function textsRefused(db: DbExecutor, now: Date) {
  const rows = await db
    .select({ code: textMessages.errorCode, count: count() })
    .from(textMessages)
    .where(and(isNotNull(textMessages.errorCode), gte(textMessages.updatedAt, new Date(now.getTime() - DAY_MS)), inArray(textMessages.status, ['failed', 'undelivered'])))
    .groupBy(textMessages.errorCode)
    .orderBy(desc(count()))
  return rows.map((row) => ({ code: row.code!, count: Number(row.count) }))
}

export async function operationsSnapshot(sources: SnapshotSources): Promise<OpsSnapshot> {
  const { db, now } = sources
  const dayStart = new Date(Math.floor(now.getTime() / DAY_MS) * DAY_MS)
  const [lastHour, today, rateToday, rateLastWeek, late, lines, queues, webhooks, stuck, refused] = await Promise.all([
    callsByStatus(db, new Date(now.getTime() - HOUR_MS), now),
    callsByStatus(db, dayStart, now),
    answerRate(db, dayStart, now),
    answerRate(db, new Date(dayStart.getTime() - WEEK_MS), new Date(now.getTime() - WEEK_MS)),
    lateness(db, now),
    sources.lines().then(
      (state) => ({ inUse: state.inUse, limit: state.limit, waiting: state.waiting }),
      () => null,
    ),
    sources.queues(),
    parkedEvents(db, PARKED_LISTED),
    stuckCalls(db, now),
    textsRefused(db, now),
  ])
  return {
    at: now.toISOString(),
    calls: { lastHour, today, answerRate: { today: rateToday, lastWeek: rateLastWeek } },
    lateness: late,
    lines,
    queues: queues.map((queue) => ({ ...queue, oldestWaitingSeconds: Math.round(queue.oldestWaitingSeconds * 10) / 10 })),
    webhooks: { parkedCount: webhooks.count, parked: webhooks.latest },
    stuckCalls: stuck,
    textsRefused: refused,
  }
}
