/**
 * The reconciliation sweep (every 5 minutes): a lost webhook never leaves a call in progress for
 * ever. It applies stored webhook messages whose job was lost (not those parked after failing
 * every try), asks Vapi about every call that is not final five minutes past its longest possible
 * end (finishing it here when Vapi has no record of it, or still calls it live fifteen minutes past
 * that end), and settles claims whose dial was never confirmed once the tick has stopped retrying them.
 */
import { and, asc, eq, inArray, isNotNull, isNull, lt, or, sql } from 'drizzle-orm'
import { isFinalCallStatus } from '#common/domain'
import type { DbExecutor } from '#server/db/client'
import { coachingCalls, type CoachingCall } from '#server/db/schema'
import type { VapiCallRecord } from '#server/integrations/vapi-calls'
import type { CallsContext } from './context'
import type { Observations } from './observations'
import { addCallEvent, applyObservation, type Applied, type CallObservation } from './record'
import { TICK_LOOKBACK_MS } from './tick'
import { failureText, observationOfRecord, pendingVapiEvents } from './webhooks'

/**
 * A live call is asked about once it is this far past its maximum duration after its dial (Vapi
 * ends a call at its maximum duration; the grace covers the ringing and the end's webhooks).
 */
const SWEEP_GRACE_MS = 5 * 60_000
/** Vapi still says a call is live this far past its maximum duration after its dial: the call is finished here (docs/decisions/071). */
const GIVE_UP_MS = 15 * 60_000
/** The maximum duration of a call placed without one (what the dialler sends Vapi then). */
const DEFAULT_MAX_DURATION_SECONDS = 300
/** Calls asked about per sweep. */
const SWEEP_BATCH = 200
/** Why a call Vapi never ended is finished by the sweep. */
const NEVER_ENDED_REASON = 'call-never-ended'

/** When a placed call must have ended by: its dial plus its maximum duration. */
const longestEndOf = (call: CoachingCall) => (call.dialledAt ?? call.callDate).getTime() + (call.maxDurationSeconds ?? DEFAULT_MAX_DURATION_SECONDS) * 1000

/** Placed calls not final although they must have ended by now. */
async function overdueCalls(db: DbExecutor, now: Date): Promise<CoachingCall[]> {
  return db
    .select()
    .from(coachingCalls)
    .where(
      and(
        inArray(coachingCalls.completionStatus, ['queued', 'ringing', 'in_progress']),
        isNotNull(coachingCalls.vapiCallId),
        sql`coalesce(${coachingCalls.dialledAt}, ${coachingCalls.callDate})
              + make_interval(secs => coalesce(${coachingCalls.maxDurationSeconds}, ${DEFAULT_MAX_DURATION_SECONDS}) + ${SWEEP_GRACE_MS / 1000})
            < ${now.toISOString()}::timestamptz`,
      ),
    )
    .orderBy(asc(coachingCalls.callDate))
    .limit(SWEEP_BATCH)
}

/** How long after a call ended the sweep keeps asking Vapi for a report that never came. */
const REPORT_WAIT_MS = 60 * 60_000

/**
 * Calls that ended (their status came) but whose end-of-call report did not, 5 minutes to an hour
 * after they ended: the report's webhook may have been lost (a call that never connected may have
 * none; the sweep stops asking after the hour).
 */
async function callsMissingReport(db: DbExecutor, now: Date): Promise<CoachingCall[]> {
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
async function abandonedClaims(db: DbExecutor, now: Date): Promise<CoachingCall[]> {
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

/** Stored webhook messages older than this with no job that applied them are applied by the sweep. */
const LOST_EVENT_AGE_MS = 60_000
/** Stored webhook messages applied per sweep. */
const LOST_EVENT_BATCH = 500

type SweepRun = { events: number; asked: number; finished: number; settled: number }

/** Whether a call not final is past the point where the sweep stops waiting for Vapi to end it. */
const isPastGivingUp = (call: CoachingCall, now: Date) => !isFinalCallStatus(call.completionStatus) && now.getTime() > longestEndOf(call) + GIVE_UP_MS

export function createSweep(ctx: CallsContext, observations: Observations) {
  const { db, clock, log, eligibleAt } = ctx
  const { afterApply, processEvent } = observations

  /**
   * What Vapi says of a call past its end, applied. A call Vapi does not know ends
   * (`call-not-found`); one Vapi still calls live GIVE_UP_MS past its longest end is finished here
   * as failed (`call-never-ended`), ending no later than its start plus its maximum duration.
   */
  async function askAbout(call: CoachingCall, now: Date): Promise<Applied> {
    const record = await ctx.vapi!.get(call.vapiCallId!)
    let observation: CallObservation
    let givenUp = false
    if (!record) {
      observation = { vapiCallId: call.vapiCallId!, callId: call.id, status: 'ended', endedReason: 'call-not-found', at: now, startedAt: null, endedAt: now, report: null, source: 'sweep' }
    } else if (record.status !== 'ended' && isPastGivingUp(call, now)) {
      const seen = observationOfRecord(record, call.id, now)
      const startedAt = seen.startedAt ?? call.startedAt
      const endedAt = startedAt ? new Date(Math.min(now.getTime(), startedAt.getTime() + (call.maxDurationSeconds ?? DEFAULT_MAX_DURATION_SECONDS) * 1000)) : now
      observation = { ...seen, status: 'ended', endedReason: NEVER_ENDED_REASON, endedAt, report: null }
      givenUp = true
    } else {
      observation = observationOfRecord(record, call.id, now)
    }
    const applied = await db.transaction((tx) => applyObservation(tx, observation, { now, eligibleAt }))
    if (givenUp && applied.ended) {
      log.error({ callId: call.id, vapiCallId: call.vapiCallId, vapiStatus: record?.status ?? null }, 'calls: Vapi still calls this call live long past its maximum duration; finished here as failed')
    }
    return applied
  }

  /** An abandoned claim: Vapi's call when its dial did reach Vapi (reconciled), else failed. Returns whether the call ended. */
  async function settle(call: CoachingCall, now: Date): Promise<boolean> {
    const found = call.dialledAt ? await ctx.vapi!.findPlaced(call.id, new Date(call.dialledAt.getTime() - 5_000), new Date(call.dialledAt.getTime() + 60_000)) : null
    return db.transaction(async (tx) => (found ? reconcileClaim(tx, call, found, now, eligibleAt) : failAbandonedClaim(tx, call, now)))
  }

  /** The sweep: lost webhook jobs, calls past their end, abandoned claims. */
  return async function sweep(): Promise<SweepRun> {
    const now = clock.now()
    const pending = await pendingVapiEvents(db, new Date(now.getTime() - LOST_EVENT_AGE_MS), LOST_EVENT_BATCH)
    // A failure is counted on the message (its error's text only: a failed query's message quotes its parameters).
    for (const id of pending) await processEvent(id).catch((error: unknown) => log.warn({ error: failureText(error), eventId: id }, 'calls: a stored webhook message could not be applied'))
    let asked = 0
    let finished = 0
    let settled = 0
    if (!ctx.vapi) return { events: pending.length, asked, finished, settled }
    for (const call of [...(await overdueCalls(db, now)), ...(await callsMissingReport(db, now))]) {
      asked++
      try {
        const applied = await askAbout(call, now)
        if (applied.ended) finished++
        await afterApply(applied)
      } catch (error) {
        log.warn({ err: error, callId: call.id }, 'calls: could not ask Vapi about a call; the next sweep tries again')
      }
    }
    for (const call of await abandonedClaims(db, now)) {
      try {
        if (await settle(call, now)) finished++
        settled++
      } catch (error) {
        log.warn({ err: error, callId: call.id }, 'calls: could not settle an abandoned claim')
      }
    }
    return { events: pending.length, asked, finished, settled }
  }
}

/** In the caller's transaction: a claim whose dial reached Vapi after all gets its call id and what Vapi says of it. */
async function reconcileClaim(tx: DbExecutor, call: CoachingCall, found: VapiCallRecord, now: Date, eligibleAt: CallsContext['eligibleAt']): Promise<boolean> {
  await tx.update(coachingCalls).set({ vapiCallId: found.id, completionStatus: 'queued', updatedAt: now }).where(and(eq(coachingCalls.id, call.id), isNull(coachingCalls.vapiCallId)))
  await addCallEvent(tx, call, 'reconciled', now, { vapiCallId: found.id })
  const applied = await applyObservation(tx, observationOfRecord(found, call.id, now), { now, eligibleAt })
  return applied.ended !== null
}

/** In the caller's transaction: a claim Vapi has no call for fails (`dial-abandoned`), if it is still dialling. */
async function failAbandonedClaim(tx: DbExecutor, call: CoachingCall, now: Date): Promise<boolean> {
  const [failed] = await tx
    .update(coachingCalls)
    .set({ completionStatus: 'failed', endedReason: 'dial-abandoned', endedAt: now, updatedAt: now })
    .where(and(eq(coachingCalls.id, call.id), eq(coachingCalls.completionStatus, 'dialling'), isNull(coachingCalls.vapiCallId)))
    .returning({ id: coachingCalls.id })
  if (failed) await addCallEvent(tx, call, 'dial_failed', now, { reason: 'dial-abandoned' })
  return false
}
