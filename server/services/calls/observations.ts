/**
 * What follows an observation of a call (a webhook message, the dialler's answer, the sweep's
 * question to Vapi) once it is applied to the record: the live card hears a moved status, a
 * failure on our side is logged loudly, a retry is enqueued, and a final call is told to whoever
 * listens (the texts). And the processing of one stored webhook message.
 */
import { isFinalCallStatus, NOT_REACHED_STATUSES, type FinalCallStatus } from '#common/domain'
import type { EndedReasonClass } from '#server/observability/metrics'
import type { CallJobs } from './call-jobs'
import type { CallsContext, FinalCall } from './context'
import { phoneCallEvent } from './call-watch'
import { applyObservation, isOurSideFailure, type Applied } from './record'
import { failureText, forgetVapiEvent, markVapiEvent, observationOf, recordVapiEventFailure, takeVapiEvent, type VapiMessage } from './webhooks'

/** After Vapi ended a call for want of a line, no line is granted for this long. */
const LINE_REFUSED_BACK_OFF_MS = 5_000

type ObservationsDeps = {
  enqueueCall: CallJobs['enqueueCall']
  /** Enqueues the dial of a call again (Vapi had no line for it). */
  redial: CallJobs['redial']
  /** Told after the commit of every observation that leaves a call final (`ended` when this one ended it). */
  onFinal: ((final: FinalCall) => Promise<void>) | undefined
}

export type Observations = ReturnType<typeof createObservations>

export function createObservations(ctx: CallsContext, deps: ObservationsDeps) {
  const { db, clock, log, eligibleAt } = ctx

  /** After an observation's commit: the live card, the loud log, the retry, the final call's followers. */
  async function afterApply(applied: Applied): Promise<void> {
    const { call, ended, retry } = applied
    // A call that is over gives its line back: when its final status is applied, or its report
    // before it (the messages that come after ask nothing of Redis).
    if (call && (ended !== null || (call.reportAt !== null && !isFinalCallStatus(call.completionStatus)))) {
      await ctx.lines.release(call.id).catch((error: unknown) => log.warn({ err: error, callId: call.id }, 'calls: could not give a line back now; its lease lapses by itself'))
    }
    // A phone call's status moved: an open dashboard of the person's shows it.
    const event = call && applied.moved ? phoneCallEvent(call) : null
    if (event && ctx.live) await ctx.live.publish(call!.userId, event)
    if (ended && call) ctx.metrics.calls.ended(reasonClassOf(ended, call.endedReason))
    if (ended && call && isOurSideFailure(call.endedReason)) {
      log.error({ callId: call.id, vapiCallId: call.vapiCallId, endedReason: call.endedReason }, 'calls: Vapi could not start the call (check the account, its credits and concurrency, and the assistant)')
    }
    if (applied.redial && call) {
      // Vapi had no line for it: its line is given back, nobody gets one for a moment, and it is dialled again.
      await ctx.lines.release(call.id).catch(() => {})
      await ctx.lines.backOff(LINE_REFUSED_BACK_OFF_MS).catch(() => {})
      await deps.redial(call, applied.redial.refusedVapiCallId).catch((error: unknown) => log.warn({ err: error, callId: call.id }, 'calls: could not enqueue the dial again now; the tick will'))
    }
    if (retry) {
      // If this enqueue is lost, the tick enqueues the retry from the call's retry_at.
      await deps.enqueueCall(retry, clock.now()).catch((error: unknown) => log.warn({ err: error, userId: retry.userId }, 'calls: could not enqueue a retry now; the tick will'))
    }
    if (call && deps.onFinal && isFinalCallStatus(call.completionStatus)) {
      await deps.onFinal({ call, ended, retry }).catch((error: unknown) => log.warn({ err: error, callId: call.id }, 'calls: what follows a final call (texts) failed'))
    }
  }

  /**
   * Counts a failed application of a stored message (docs/decisions/071), and says so loudly, once,
   * when this failure parked it.
   */
  async function countFailure(id: number, error: unknown): Promise<'parked' | 'failed'> {
    const failure = await recordVapiEventFailure(db, id, clock.now(), error).catch((recordError: unknown) => {
      log.warn({ err: recordError, eventId: id }, 'calls: could not count a failed webhook message')
      return null
    })
    if (!failure?.parked) return 'failed'
    log.error(
      { eventId: id, type: failure.type, vapiCallId: failure.vapiCallId, attempts: failure.attempts, error: failureText(error) },
      'calls: a stored webhook message failed every time and is parked: no job or sweep applies it again (see the diagnostics page)',
    )
    return 'parked'
  }

  /**
   * Applies one stored webhook message (a job, or the sweep for a lost job). A failure is counted
   * and thrown (the job tries again), except the one that parks the message: 'parked'.
   */
  async function processEvent(id: number): Promise<'applied' | 'done' | 'unknown_call' | 'parked'> {
    const now = clock.now()
    let result: Applied | null
    try {
      result = await db.transaction(async (tx) => {
        const event = await takeVapiEvent(tx, id)
        if (!event) return null
        const applied = await applyObservation(tx, observationOf(event.payload as VapiMessage, event.receivedAt), { now, eligibleAt })
        // A message about a call we have no row for (a deleted account's, another app's on the same
        // Vapi account) is not kept: it would hold that person's words and ids with nothing to apply them to.
        if (applied.call) await markVapiEvent(tx, id, now)
        else await forgetVapiEvent(tx, id)
        return applied
      })
    } catch (error) {
      if ((await countFailure(id, error)) === 'parked') return 'parked'
      throw error
    }
    if (!result) return 'done'
    await afterApply(result)
    return result.call ? 'applied' : 'unknown_call'
  }

  return { afterApply, processEvent }
}

/** A final status as counted: the person reached or not, our side's failure or Vapi's (or the carrier's), or cancelled. */
function reasonClassOf(status: FinalCallStatus, endedReason: string | null): EndedReasonClass {
  if (status === 'completed') return 'reached'
  if ((NOT_REACHED_STATUSES as readonly string[]).includes(status)) return 'not_reached'
  if (status === 'cancelled' || status === 'skipped') return 'cancelled'
  return isOurSideFailure(endedReason) ? 'our_fault' : 'vendor_fault'
}
