/**
 * The jobs the calls domain enqueues: one place-call job per call (delayed to just before its
 * instant), and the deletions at Vapi after a revocation of consent.
 */
import type { CoachingCall } from '#server/db/schema'
import type { CallsContext } from './context'
import { CALLS_REVOKED_JOB, PLACE_CALL_JOB, type PlaceCallPayload } from './jobs'
import type { RetryPlan } from './record'
import { REVOKED_RECHECK_MS } from './revoked'
import { placeCallJobId, type DueCall } from './tick'

/** How long before its instant a call is claimed and its dial built. */
const PREPARE_LEAD_MS = 45_000

export type CallJobs = ReturnType<typeof createCallJobs>

export function createCallJobs(ctx: Pick<CallsContext, 'jobs' | 'log'>) {
  const { jobs, log } = ctx

  /** Enqueues the place-call job of a due call or a retry. */
  async function enqueueCall(call: DueCall | RetryPlan, now: Date): Promise<void> {
    const dueAt = 'dueAt' in call ? call.dueAt : call.at
    const payload: PlaceCallPayload = { userId: call.userId, slot: call.slot as PlaceCallPayload['slot'], localDate: call.localDate, attempt: call.attempt, dueAt: dueAt.toISOString() }
    // The job runs a little before the instant: it claims the call and builds the dial then, and
    // parks until the instant, when only the request to Vapi is left (ADR 041).
    await jobs.enqueue(PLACE_CALL_JOB, payload, {
      delayMs: Math.max(0, dueAt.getTime() - PREPARE_LEAD_MS - now.getTime()),
      jobId: placeCallJobId({ userId: call.userId, slot: call.slot as DueCall['slot'], localDate: call.localDate, attempt: call.attempt }),
    })
  }

  /**
   * The dial of a call again, at its place in the queue (its due time), without counting an attempt:
   * Vapi ended it at its start for want of a line. Its own job id (the first run is done).
   */
  async function redial(call: CoachingCall, refusedVapiCallId: string): Promise<void> {
    const payload: PlaceCallPayload = {
      userId: call.userId,
      slot: call.slot as PlaceCallPayload['slot'],
      localDate: call.localDate,
      attempt: call.attempt,
      dueAt: call.callDate.toISOString(),
      ...(call.slot === 'test' ? { callId: call.id } : {}),
    }
    await jobs.enqueue(PLACE_CALL_JOB, payload, { jobId: `call-redial-${call.id}-${refusedVapiCallId}` })
  }

  /** Vapi's unanswered calls of the person deleted now, and again past any dial on its way (its id comes with Vapi's answer). */
  async function enqueueCallsRevoked(userId: string, cause: string): Promise<void> {
    for (const [index, delayMs] of [0, REVOKED_RECHECK_MS].entries()) {
      await jobs
        .enqueue(CALLS_REVOKED_JOB, { userId }, { delayMs, jobId: `calls-revoked-${userId}-${cause}-${index}` })
        .catch((error: unknown) => log.error({ err: error, userId }, 'calls: could not enqueue the cancellation of calls after consent was revoked'))
    }
  }

  return { enqueueCall, enqueueCallsRevoked, redial }
}
