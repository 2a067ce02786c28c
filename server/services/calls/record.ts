/**
 * The call record follows the call. Whatever reports a call's state (a webhook, the sweep's GET,
 * the dialler) goes through `applyObservation`, which only moves the status forward (a late
 * `ringing` never undoes `ended`), fills the end-of-call report once whether it comes before or
 * after the final status, writes every transition to the call's timeline, and decides the retry of
 * a call that did not reach the person.
 */
import { and, eq, or, sql } from 'drizzle-orm'
import { CALL_STATUSES, isFinalCallStatus, type CallStatus, type FinalCallStatus, type LifeArea } from '#common/domain'
import { isUuid } from '#common/uuid'
import type { DbExecutor } from '#server/db/client'
import { coachingCallEvents, coachingCalls, type CoachingCall } from '#server/db/schema'
import { applyReportCommitments, type ReviewedCommitment } from '#server/services/commitments'
import { applyRecord, type Extracted } from '#server/services/memory'
import { insideAllowedWindow, localDateOf } from './next-fire'

/** Live statuses in the order a call goes through them; every final status ranks above them. */
const RANK: Record<CallStatus, number> = Object.fromEntries(CALL_STATUSES.map((status) => [status, isFinalCallStatus(status) ? 10 : CALL_STATUSES.indexOf(status)])) as Record<CallStatus, number>

/** Vapi's call statuses (status-update, GET /call) as ours. */
const LIVE_FROM_VAPI: Record<string, CallStatus> = {
  scheduled: 'scheduled',
  queued: 'queued',
  ringing: 'ringing',
  'in-progress': 'in_progress',
  forwarding: 'in_progress',
}

/** Ended reasons where a conversation took place (Vapi's enum; brief §3.5). */
const CONVERSATION_REASONS = new Set([
  'customer-ended-call',
  'assistant-ended-call',
  'assistant-said-end-call-phrase',
  'assistant-ended-call-after-message-spoken',
  'assistant-ended-call-with-hangup-task',
  'assistant-forwarded-call',
  'exceeded-max-duration',
  'silence-timed-out',
])
const NO_ANSWER_REASONS = new Set([
  'customer-did-not-answer',
  'call.in-progress.error-providerfault-outbound-sip-480-temporarily-unavailable',
  'call.in-progress.error-providerfault-outbound-sip-408-request-timeout',
  'twilio-failed-to-connect-call',
  'twilio-reported-customer-misdialed',
  'vonage-rejected',
  'vonage-failed-to-connect-call',
  'telnyx-failed-to-connect-call',
])
const CANCELLED_REASONS = new Set(['manually-canceled', 'scheduled-call-deleted', 'call-deleted'])
/** Failures of our account that clear with time: the next attempt may succeed. */
/** Vapi's end of a call it had no line for (not an attempt: the call is dialled again, docs/decisions/069). */
const LINE_REFUSED_REASON = 'call.start.error-subscription-concurrency-limit-reached'
const RETRYABLE_START_ERRORS = new Set<string>([LINE_REFUSED_REASON])

/** How a call ended, by Vapi's `endedReason`. */
export function outcomeOf(endedReason: string | null | undefined): FinalCallStatus {
  const reason = endedReason ?? ''
  if (CONVERSATION_REASONS.has(reason)) return 'completed'
  if (reason === 'customer-busy') return 'busy'
  if (reason === 'voicemail') return 'voicemail'
  if (NO_ANSWER_REASONS.has(reason)) return 'no_answer'
  if (CANCELLED_REASONS.has(reason)) return 'cancelled'
  return 'failed'
}

/** Failures on our side (configuration, account): logged loudly, shown on the diagnostics page. */
export function isOurSideFailure(endedReason: string | null | undefined): boolean {
  const reason = endedReason ?? ''
  return reason.startsWith('call.start.error-') || reason === 'assistant-not-found' || reason === 'assistant-not-valid'
}

/** The retry ladder: minutes after the end of attempt 0 and attempt 1. */
const RETRY_AFTER_MINUTES = [10, 30] as const
const MAX_ATTEMPT = RETRY_AFTER_MINUTES.length

/** What an end-of-call report (or a GET of the ended call) tells of a call: how it ended, its transcript and times, and the structured call report. */
export type EndOfCallReport = {
  endedReason: string | null
  summary: string | null
  transcript: string | null
  durationSeconds: number | null
  startedAt: Date | null
  endedAt: Date | null
  areasDiscussed: LifeArea[]
  mood: number | null
  energy: number | null
  commitments: string[]
  /** The open commitments the call asked about: kept or missed (matched against `askedCommitmentIds`). */
  commitmentsReviewed: ReviewedCommitment[]
  /** The facts the call learned or changed, for the coach's memory (docs/decisions/083). */
  facts?: Extracted | undefined
}

/** What a webhook or a GET says about a call. */
export type CallObservation = {
  vapiCallId: string
  /** Our call id, from the metadata we sent. */
  callId: string | null
  /** Vapi's status ('queued', 'ringing', 'in-progress', 'ended', ...), when the message carries one. */
  status: string | null
  endedReason: string | null
  /** When it happened (the message's timestamp), else when we learned it. */
  at: Date
  startedAt: Date | null
  endedAt: Date | null
  report: EndOfCallReport | null
  source: 'webhook' | 'sweep' | 'dialler'
}

export type RetryPlan = { userId: string; slot: CoachingCall['slot']; localDate: string; attempt: number; at: Date }

export type Applied = {
  call: CoachingCall | null
  /** Set when this observation ended the call. */
  ended: FinalCallStatus | null
  /** Whether this observation moved the call's status (forward: the status never goes back). */
  moved: boolean
  /** Set when this observation scheduled a retry (the caller enqueues it after the commit). */
  retry: RetryPlan | null
  /**
   * Set when Vapi ended the call at its start for want of a line: the call is back to dialling, not
   * an attempt, and the caller enqueues its dial again (its place in the queue is its due time).
   */
  redial?: { refusedVapiCallId: string } | undefined
}

const EVENT_OF: Partial<Record<CallStatus, string>> = { scheduled: 'scheduled', queued: 'queued', ringing: 'ringing', in_progress: 'answered' }

/** The status an observation points to (a final one from the ended reason), or null. */
function statusOf(observation: CallObservation): CallStatus | null {
  if (observation.status === 'ended' || observation.report) return outcomeOf(observation.endedReason ?? observation.report?.endedReason)
  return observation.status ? (LIVE_FROM_VAPI[observation.status] ?? null) : null
}

type RetryDecision = { retry: true; at: Date } | { retry: false; reason: string }

/**
 * Whether a call that ended `status` is tried again: not reached (or refused by a limit that
 * clears) on a daily slot with attempts left, the retry inside 8 AM–9 PM local on the same local
 * date, and the person still eligible then (`eligibleAt`).
 */
export function retryDecision(
  call: Pick<CoachingCall, 'slot' | 'attempt' | 'localDate' | 'timeZone'>,
  status: FinalCallStatus,
  endedReason: string | null,
  endedAt: Date,
  eligibleAt: (at: Date) => boolean,
): RetryDecision | null {
  const notReached = status === 'no_answer' || status === 'busy' || status === 'voicemail'
  if (!notReached && !RETRYABLE_START_ERRORS.has(endedReason ?? '')) return null
  if (call.slot === 'test' || call.slot === 'web' || !call.localDate || !call.timeZone) return { retry: false, reason: 'not_a_daily_call' }
  if (call.attempt >= MAX_ATTEMPT) return { retry: false, reason: 'no_attempts_left' }
  const at = new Date(endedAt.getTime() + RETRY_AFTER_MINUTES[call.attempt]! * 60_000)
  if (!insideAllowedWindow(at, call.timeZone) || localDateOf(at, call.timeZone) !== call.localDate) return { retry: false, reason: 'outside_allowed_hours' }
  if (!eligibleAt(at)) return { retry: false, reason: 'not_eligible' }
  return { retry: true, at }
}

type ApplyDeps = {
  now: Date
  /**
   * Whether the person may be called at `at` (the retry's eligibility), read through `db`: the
   * caller's transaction (a second connection, asked for while the transaction holds one, never
   * comes on PGlite's single connection, nor from an exhausted pool).
   */
  eligibleAt(db: DbExecutor, userId: string, at: Date): Promise<boolean>
}

/** Applies one observation to its call, in the caller's transaction. */
/** Whether the dialler recorded Vapi's call `vapiCallId` as refused for lack of a line. */
async function refusedForLine(tx: DbExecutor, callId: string, vapiCallId: string): Promise<boolean> {
  const [row] = await tx
    .select({ id: coachingCallEvents.id })
    .from(coachingCallEvents)
    .where(and(eq(coachingCallEvents.callId, callId), eq(coachingCallEvents.type, 'line_refused'), sql`${coachingCallEvents.detail}->>'vapiCallId' = ${vapiCallId}`))
    .limit(1)
  return row !== undefined
}

export async function applyObservation(tx: DbExecutor, observation: CallObservation, deps: ApplyDeps): Promise<Applied> {
  const byOurId = observation.callId && isUuid(observation.callId) ? eq(coachingCalls.id, observation.callId) : undefined
  const [call] = await tx
    .select()
    .from(coachingCalls)
    .where(byOurId ? or(eq(coachingCalls.vapiCallId, observation.vapiCallId), byOurId) : eq(coachingCalls.vapiCallId, observation.vapiCallId))
    .limit(1)
    .for('update')
  if (!call) return { call: null, ended: null, moved: false, retry: null }
  // The provider's id is ours to keep once we know it; a message about another call is not.
  if (call.vapiCallId && call.vapiCallId !== observation.vapiCallId) return { call, ended: null, moved: false, retry: null }
  // Nor one about a call Vapi created with no line for it (the dialler recorded it refused, and the
  // call waits for a line again): it ends at once with a start error that is not this call's end.
  if (!call.vapiCallId && (await refusedForLine(tx, call.id, observation.vapiCallId))) return { call, ended: null, moved: false, retry: null }

  // Vapi ended a phone call at its start for want of a line (docs/decisions/069): not an attempt.
  // The call goes back to dialling, waits for a line again at its place, and is dialled once more.
  const endedReason = observation.endedReason ?? observation.report?.endedReason ?? null
  if (endedReason === LINE_REFUSED_REASON && call.slot !== 'web' && !call.startedAt && !isFinalCallStatus(call.completionStatus) && call.vapiCallId === observation.vapiCallId) {
    const [reopened] = await tx
      .update(coachingCalls)
      .set({ vapiCallId: null, completionStatus: 'dialling', dialledAt: null, dialLeaseUntil: null, dialWaitReason: null, updatedAt: deps.now })
      .where(eq(coachingCalls.id, call.id))
      .returning()
    await addCallEvent(tx, call, 'line_refused', observation.at, { vapiCallId: observation.vapiCallId, source: observation.source })
    return { call: reopened ?? call, ended: null, moved: true, retry: null, redial: { refusedVapiCallId: observation.vapiCallId } }
  }

  const events: Array<{ type: string; at: Date; detail: Record<string, unknown> | null }> = []
  const set: Partial<typeof coachingCalls.$inferInsert> = {}
  if (!call.vapiCallId) set.vapiCallId = observation.vapiCallId

  const target = statusOf(observation)
  const current = call.completionStatus
  let ended: FinalCallStatus | null = null
  if (target && RANK[target] > RANK[current]) {
    set.completionStatus = target
    set.dialLeaseUntil = null
    if (isFinalCallStatus(target)) {
      ended = target
      const endedReason = observation.endedReason ?? observation.report?.endedReason ?? null
      set.endedReason = endedReason
      set.endedAt = observation.endedAt ?? observation.report?.endedAt ?? observation.at
      events.push({ type: 'ended', at: set.endedAt, detail: { status: target, endedReason } })
    } else {
      if (target === 'in_progress' && !call.startedAt) set.startedAt = observation.startedAt ?? observation.at
      events.push({ type: EVENT_OF[target] ?? target, at: observation.at, detail: null })
    }
  }
  // A status that arrives late (ringing after answered), or that the dialler already recorded
  // (queued), moves nothing, but it happened: the timeline keeps it, once (the webhook inbox
  // applies each call's status once).
  if (target && !isFinalCallStatus(target) && RANK[target] <= RANK[current] && observation.source === 'webhook' && target !== 'dialling' && target !== 'scheduled') {
    events.push({ type: EVENT_OF[target] ?? target, at: observation.at, detail: RANK[target] < RANK[current] ? { late: true } : null })
  }
  if (observation.startedAt && !call.startedAt && !set.startedAt) set.startedAt = observation.startedAt

  const report = observation.report
  if (report && !call.reportAt) {
    set.reportAt = deps.now
    set.summary = report.summary
    set.transcript = report.transcript
    set.areasDiscussed = report.areasDiscussed
    set.mood = report.mood
    set.energy = report.energy
    set.commitments = report.commitments
    if (report.startedAt && !call.startedAt) set.startedAt = report.startedAt
    if (report.endedAt && !call.endedAt && !set.endedAt) set.endedAt = report.endedAt
    if (report.endedReason && !call.endedReason && !set.endedReason) set.endedReason = report.endedReason
    // The commitments made become open rows; the open ones the call asked about are settled.
    const settled = await applyReportCommitments(tx, { call, made: report.commitments, reviewed: report.commitmentsReviewed, at: report.endedAt ?? observation.at, now: deps.now })
    // The call's episode and facts join the coach's memory with the report, once (the call is its key).
    await applyRecord(tx, {
      userId: call.userId,
      channel: call.slot === 'web' ? 'voice' : 'call',
      sourceId: call.id,
      key: call.id,
      occurredAt: (report.endedAt ?? observation.at).toISOString(),
      summary: report.summary,
      learned: report.facts?.learned ?? [],
      changed: report.facts?.changed ?? [],
    })
    events.push({
      type: 'report',
      at: report.endedAt ?? observation.at,
      detail: { summary: report.summary !== null, areas: report.areasDiscussed.length, commitments: settled.made, kept: settled.kept, missed: settled.missed },
    })
  }

  // The duration: Vapi's own figure, else from the start and end we know.
  const startedAt = set.startedAt ?? call.startedAt
  const endedAt = set.endedAt ?? call.endedAt
  const reported = report && !call.reportAt ? report.durationSeconds : null
  if (reported !== null && reported >= 0) set.callDuration = Math.round(reported)
  else if (call.callDuration === 0 && startedAt && endedAt && isFinalCallStatus(set.completionStatus ?? current)) {
    set.callDuration = Math.max(0, Math.round((endedAt.getTime() - startedAt.getTime()) / 1000))
  }

  let retry: RetryPlan | null = null
  if (ended) {
    const decision = retryDecision(call, ended, set.endedReason ?? null, set.endedAt ?? observation.at, () => true)
    if (decision?.retry) {
      const eligible = await deps.eligibleAt(tx, call.userId, decision.at)
      if (eligible) {
        set.retryAt = decision.at
        retry = { userId: call.userId, slot: call.slot, localDate: call.localDate!, attempt: call.attempt + 1, at: decision.at }
        events.push({ type: 'retry_scheduled', at: set.endedAt ?? observation.at, detail: { at: decision.at.toISOString(), attempt: call.attempt + 1 } })
      } else {
        events.push({ type: 'not_retried', at: set.endedAt ?? observation.at, detail: { reason: 'not_eligible' } })
      }
    } else if (decision && !decision.retry) {
      events.push({ type: 'not_retried', at: set.endedAt ?? observation.at, detail: { reason: decision.reason } })
    }
  }

  let updated: CoachingCall | undefined = call
  if (Object.keys(set).length > 0) {
    set.updatedAt = deps.now
    ;[updated] = await tx.update(coachingCalls).set(set).where(eq(coachingCalls.id, call.id)).returning()
  }
  if (events.length > 0) {
    await tx.insert(coachingCallEvents).values(events.map((event) => ({ callId: call.id, userId: call.userId, type: event.type, at: event.at, detail: { ...event.detail, source: observation.source } })))
  }
  return { call: updated ?? call, ended, moved: set.completionStatus !== undefined, retry }
}

/** Appends one entry to a call's timeline. */
export async function addCallEvent(tx: DbExecutor, call: Pick<CoachingCall, 'id' | 'userId'>, type: string, at: Date, detail: Record<string, unknown> | null = null): Promise<void> {
  await tx.insert(coachingCallEvents).values({ callId: call.id, userId: call.userId, type, at, detail })
}
