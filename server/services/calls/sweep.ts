/**
 * The reconciliation sweep (every 5 minutes): a lost webhook never leaves a call in progress for
 * ever. It applies stored webhook messages whose job was lost, asks Vapi about every call that is
 * not final five minutes past its longest possible end, and settles claims whose dial was never
 * confirmed once the tick has stopped retrying them.
 */
import { and, asc, eq, inArray, isNotNull, isNull, lt, or, sql } from 'drizzle-orm'
import type { DbExecutor } from '#server/db/client'
import { coachingCalls, type CoachingCall } from '#server/db/schema'
import { TICK_LOOKBACK_MS } from './tick'

/** A call is asked about once it is this far past its maximum duration (and its ringing). */
export const SWEEP_GRACE_MS = 5 * 60_000
/** How long a call may ring before it starts (Vapi gives up on an unanswered call within about a minute). */
export const RING_ALLOWANCE_MS = 2 * 60_000
/** Calls asked about per sweep. */
export const SWEEP_BATCH = 200

/** Placed calls not final although they must have ended by now. */
export async function overdueCalls(db: DbExecutor, now: Date): Promise<CoachingCall[]> {
  return db
    .select()
    .from(coachingCalls)
    .where(
      and(
        inArray(coachingCalls.completionStatus, ['queued', 'ringing', 'in_progress']),
        isNotNull(coachingCalls.vapiCallId),
        sql`coalesce(${coachingCalls.startedAt}, ${coachingCalls.dialledAt}, ${coachingCalls.callDate})
              + make_interval(secs => coalesce(${coachingCalls.maxDurationSeconds}, 900) + ${(SWEEP_GRACE_MS + RING_ALLOWANCE_MS) / 1000})
            < ${now.toISOString()}::timestamptz`,
      ),
    )
    .orderBy(asc(coachingCalls.callDate))
    .limit(SWEEP_BATCH)
}

/** How long after a call ended the sweep keeps asking Vapi for a report that never came. */
export const REPORT_WAIT_MS = 60 * 60_000

/**
 * Calls that ended (their status came) but whose end-of-call report did not, 5 minutes to an hour
 * after they ended: the report's webhook may have been lost (a call that never connected may have
 * none; the sweep stops asking after the hour).
 */
export async function callsMissingReport(db: DbExecutor, now: Date): Promise<CoachingCall[]> {
  return db
    .select()
    .from(coachingCalls)
    .where(
      and(
        inArray(coachingCalls.completionStatus, ['completed', 'no_answer', 'busy', 'voicemail', 'failed']),
        isNotNull(coachingCalls.vapiCallId),
        isNull(coachingCalls.reportAt),
        lt(coachingCalls.endedAt, new Date(now.getTime() - SWEEP_GRACE_MS)),
        sql`${coachingCalls.endedAt} > ${new Date(now.getTime() - REPORT_WAIT_MS).toISOString()}::timestamptz`,
      ),
    )
    .orderBy(asc(coachingCalls.endedAt))
    .limit(SWEEP_BATCH)
}

/** Claims left dialling with no call id, no holder, and older than the tick's catch-up window. */
export async function abandonedClaims(db: DbExecutor, now: Date): Promise<CoachingCall[]> {
  const before = new Date(now.getTime() - TICK_LOOKBACK_MS - SWEEP_GRACE_MS)
  return db
    .select()
    .from(coachingCalls)
    .where(
      and(
        eq(coachingCalls.completionStatus, 'dialling'),
        isNull(coachingCalls.vapiCallId),
        or(isNull(coachingCalls.dialLeaseUntil), lt(coachingCalls.dialLeaseUntil, now)),
        lt(coachingCalls.callDate, before),
      ),
    )
    .orderBy(asc(coachingCalls.callDate))
    .limit(SWEEP_BATCH)
}
