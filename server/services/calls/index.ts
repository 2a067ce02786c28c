/**
 * Coaching calls: the daily calls' whole loop (the tick that schedules them, the dialler, Vapi's
 * webhooks, the record, the retry ladder and the sweep), the user's recent calls and the
 * dashboard's figures, a call's detail, the next call, and the schedule the person controls.
 */
import { and, eq, inArray, isNull } from 'drizzle-orm'
import type { UpdateCallSchedule } from '#common/calls'
import type { Logger } from 'pino'
import type { Db, DbExecutor } from '#server/db/client'
import { isFinalCallStatus, type FinalCallStatus } from '#common/domain'
import { coachingCalls, type CoachingCall, type User } from '#server/db/schema'
import type { VapiCallsClient } from '#server/integrations/vapi-calls'
import { AppError } from '#server/lib/app-error'
import type { Clock } from '#server/lib/clock'
import { hasConsent, type ConsentRequestMeta } from '#server/services/consent'
import { stoppedMessage } from '#server/services/phones'
import { displayPhoneNumber } from '#common/opt-in'
import { WEB_CALL_SERVER_MESSAGES } from './assistant'
import { dashboardStats, recentCalls } from './calls'
import { callsDiagnostics } from './diagnostics'
import { callDetail } from './detail'
import { PLAN_CALLS } from './entitlements'
import { placeCall, type DialTiming, type DiallerDeps } from './dialler'
import { instantBatches } from './instant'
import { nextCall } from './next-call'
import { eligibilityOf, loadCallPerson } from './person'
import type { BusPublisher } from '#server/services/cluster-bus'
import { endLiveCall, liveCallOfLine, liveCallsOf, phoneCallEvent, transcriptLineOf } from './call-watch'
import { addCallEvent, applyObservation, isOurSideFailure, type Applied, type RetryPlan } from './record'
import { getCallSchedule } from './schedule'
import { getCallScheduleSettings, updateCallScheduleSettings } from './schedule-settings'
import { CALLS_REVOKED_JOB, PLACE_CALL_JOB, VAPI_EVENT_JOB, type CallsJobQueue, type DeletedCall, type PlaceCallPayload } from './jobs'
import { CONSENT_REVOKED, REVOKED_RECHECK_MS, unansweredPlacedCalls } from './revoked'
import { abandonedClaims, callsMissingReport, overdueCalls } from './sweep'
import { dueCalls, dueRetries, placeCallJobId, testCallJobId, type DueCall } from './tick'
import { attachWebCall, failWebCall, openWebCall } from './web-call'
import { webhookServer } from './webhook-server'
import { forgetVapiEvent, markVapiEvent, observationOf, observationOfRecord, pendingVapiEvents, storeVapiMessage, takeVapiEvent, verifyVapiWebhook, verifyVapiWebhookHeaders, type VapiMessage, type WebhookAuth } from './webhooks'

export { dashboardStats, recentCalls } from './calls'
export { getCallSchedule, type CallSchedule } from './schedule'
export { ALLOWED_WINDOW, fireInstant, insideAllowedWindow, localDateOf, localTimeOf, nextFireAfter } from './next-fire'
export {
  authenticationPlan,
  CALL_KINDS,
  CALL_REPORT_DESCRIPTION,
  CALL_REPORT_LIMITS,
  CALL_REPORT_OUTPUT,
  CALL_REPORT_SCHEMA,
  CALL_SERVER_MESSAGES,
  WEB_CALL_SERVER_MESSAGES,
  CALL_VARIABLES,
  COACH_ASSISTANT_NAME,
  COACH_FIRST_MESSAGE,
  COACH_MODEL,
  COACH_PROMPT,
  COACH_VOICEMAIL_MESSAGE,
  CallReportResult,
  coachAssistant,
  CREDENTIAL_PREFIX,
  credentialName,
  DEFAULT_MAX_DURATION_SECONDS,
  findCallReport,
  VAPI_WEBHOOK_PATH,
  WEB_CALL_FIRST_MESSAGE,
  WEBHOOK_HMAC,
  WEBHOOK_SECRET_HEADER,
  WEBHOOK_TIMEOUT_SECONDS,
  type CallKindLabel,
  type CallReport,
  type CallVariable,
  type CallVariables,
  type WebhookAuthMode,
  type WebhookServer,
} from './assistant'
export { callDurationLimit, callEligibility, DEFAULT_EVENING_CALL_TIME, PLAN_CALLS, slotTimes, type CallEligibility, type CallEligibilityInput, type CallSlot, type NotCalledReason, type PlanCalls } from './entitlements'
export { DialLater, PLACE_CALL_ATTEMPTS, type PlaceCallRequest, type PlaceOutcome } from './dialler'
export { outcomeOf, retryDecision, RETRY_AFTER_MINUTES } from './record'
export { verifyVapiWebhook, dedupeKeyOf, HMAC_WINDOW_MS, reportOf } from './webhooks'
export { dueCalls, dueRetries, placeCallJobId, testCallJobId, TICK_LOOKAHEAD_MS, TICK_LOOKBACK_MS } from './tick'
export { canonicalTimeZone, preferredCallTimeText } from './schedule-settings'
export { CONSENT_REVOKED, REVOKED_RECHECK_MS, stopCallsOf } from './revoked'
export { CALLS_JOBS, CALLS_REVOKED_JOB, CANCEL_DELETED_CALLS_JOB, PLACE_CALL_JOB, VAPI_EVENT_JOB, type CallsJob, type CallsJobQueue, type DeletedCall, type PlaceCallPayload } from './jobs'
export type { OpenedWebCall } from './web-call'
export { CREDENTIAL_RETRY_MS, webhookServer, type CallWebhookServer } from './webhook-server'

export type Calls = ReturnType<typeof createCalls>

export type CallsDeps = {
  db: Db
  clock: Clock
  log: Logger
  /**
   * The Vapi calls client, when Vapi has a key and an assistant. Phone calls are placed only when it
   * also has a phone number (`canDial`); without one it still reconciles, ends and deletes calls
   * (the voice calls made in the app).
   */
  vapi: VapiCallsClient | undefined
  /** How the webhook authenticates Vapi (undefined: every delivery is refused). */
  webhookAuth: WebhookAuth | undefined
  /** APP_URL: the webhook's address is APP_URL/api/webhooks/vapi. */
  appUrl: string
  /** SMS_OPT_IN_NUMBER: where a START goes to bring calls back to a number that texted STOP. */
  smsNumber: string
  jobs: CallsJobQueue
  /** Where a phone call's live status and transcript lines are published (the dashboards' live card). */
  live?: BusPublisher | undefined
  /**
   * Told after the commit of every observation that leaves a call final (the texts: a recap after a
   * completed call's report, a missed-call text). `ended` is set when this observation ended it.
   */
  onFinal?: ((final: FinalCall) => Promise<void>) | undefined
}

/** A call that is final, as the record has it after an observation. */
export type FinalCall = { call: CoachingCall; ended: FinalCallStatus | null; retry: RetryPlan | null }

/** How long before its instant a call is claimed and its dial built. */
export const PREPARE_LEAD_MS = 45_000

/** How many enqueues the tick runs at once. */
const ENQUEUE_CONCURRENCY = 50

export function createCalls(deps: CallsDeps) {
  const { db, clock, log, jobs } = deps

  /** Vapi's unanswered calls of the person deleted now, and again past any dial on its way (its id comes with Vapi's answer). */
  async function enqueueCallsRevoked(userId: string, cause: string): Promise<void> {
    for (const [index, delayMs] of [0, REVOKED_RECHECK_MS].entries()) {
      await jobs
        .enqueue(CALLS_REVOKED_JOB, { userId }, { delayMs, jobId: `calls-revoked-${userId}-${cause}-${index}` })
        .catch((error: unknown) => log.error({ err: error, userId }, 'calls: could not enqueue the cancellation of calls after consent was revoked'))
    }
  }
  const eligibleAt = async (executor: DbExecutor, userId: string, at: Date) => {
    const person = await loadCallPerson(executor, userId, clock.now())
    return person !== null && eligibilityOf(person, at).eligible
  }

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

  async function afterApply(applied: Applied): Promise<void> {
    const { call, ended, retry } = applied
    // A phone call's status moved: an open dashboard of the person's shows it.
    const event = call && applied.moved ? phoneCallEvent(call) : null
    if (event && deps.live) await deps.live.publish(call!.userId, event)
    if (ended && call && isOurSideFailure(call.endedReason)) {
      log.error({ callId: call.id, vapiCallId: call.vapiCallId, endedReason: call.endedReason }, 'calls: Vapi could not start the call (check the account, its credits and concurrency, and the assistant)')
    }
    if (retry) {
      // If this enqueue is lost, the tick enqueues the retry from the call's retry_at.
      await enqueueCall(retry, clock.now()).catch((error: unknown) => log.warn({ err: error, userId: retry.userId }, 'calls: could not enqueue a retry now; the tick will'))
    }
    if (call && deps.onFinal && isFinalCallStatus(call.completionStatus)) {
      await deps.onFinal({ call, ended, retry }).catch((error: unknown) => log.warn({ err: error, callId: call.id }, 'calls: what follows a final call (texts) failed'))
    }
  }

  /** The client that places phone calls, when one can. */
  const dialler = deps.vapi?.canDial ? deps.vapi : undefined
  // What each call names as its webhook server: in secret mode the credential, never the secret.
  const callWebhookServer = webhookServer({ auth: deps.webhookAuth, appUrl: deps.appUrl, vapi: deps.vapi, clock, log })
  const diallerDeps: DiallerDeps = { db, clock, log, vapi: dialler, webhookServer: callWebhookServer, afterApply, eligibleAt, instant: instantBatches(db) }

  async function runAll<T>(items: readonly T[], fn: (item: T) => Promise<void>): Promise<number> {
    let failed = 0
    for (let i = 0; i < items.length; i += ENQUEUE_CONCURRENCY) {
      const results = await Promise.allSettled(items.slice(i, i + ENQUEUE_CONCURRENCY).map(fn))
      failed += results.filter((result) => result.status === 'rejected').length
    }
    return failed
  }

  async function publishLine(line: NonNullable<ReturnType<typeof transcriptLineOf>>): Promise<void> {
    try {
      const call = await liveCallOfLine(db, line)
      if (call) await deps.live!.publish(call.userId, { type: 'phone-transcript', callId: call.id, role: line.role, text: line.text }, line.key ?? undefined)
    } catch (error) {
      log.warn({ err: error, vapiCallId: line.vapiCallId }, 'calls: a live transcript line could not be published')
    }
  }

  /** Applies one stored webhook message (a job, or the sweep for a lost job). */
  async function processEvent(id: number): Promise<'applied' | 'done' | 'unknown_call'> {
    const now = clock.now()
    const result = await db.transaction(async (tx) => {
      const event = await takeVapiEvent(tx, id)
      if (!event) return null
      const applied = await applyObservation(tx, observationOf(event.payload as VapiMessage, event.receivedAt), { now, eligibleAt })
      // A message about a call we have no row for (a deleted account's, another app's on the same
      // Vapi account) is not kept: it would hold that person's words and ids with nothing to apply them to.
      if (applied.call) await markVapiEvent(tx, id, now)
      else await forgetVapiEvent(tx, id)
      return applied
    })
    if (!result) return 'done'
    await afterApply(result)
    return result.call ? 'applied' : 'unknown_call'
  }

  return {
    /** Whether calls can be placed on this server (Vapi key, assistant and phone number). */
    configured: dialler !== undefined,
    recent: (userId: string) => recentCalls(db, userId),
    dashboardStats: (user: Pick<User, 'id' | 'createdAt'>) => dashboardStats(db, user),
    /** One of the user's calls with its timeline (404 for anyone else's). */
    detail: (userId: string, callId: string) => callDetail(db, userId, callId),
    /** The first call the user can expect, or why there is none. */
    next: (userId: string) => nextCall(db, userId, clock.now(), dialler !== undefined, deps.smsNumber),
    getSchedule: (userId: string) => getCallScheduleSettings(db, userId, clock.now(), deps.smsNumber),
    /**
     * Saves the schedule. Calls turned off also stop what was on its way (in the same transaction),
     * and the calls Vapi holds unanswered are deleted there by a job, as after a STOP.
     */
    async updateSchedule(userId: string, input: UpdateCallSchedule, meta?: ConsentRequestMeta) {
      const { schedule, callsRevoked } = await updateCallScheduleSettings(db, userId, input, clock.now(), meta ?? { ip: null, userAgent: null }, deps.smsNumber)
      if (callsRevoked) await enqueueCallsRevoked(userId, `settings-${clock.now().getTime()}`)
      return schedule
    },
    /**
     * After a revocation of calls committed elsewhere (a STOP text; `cause` tells one revocation from
     * another): Vapi's unanswered calls of the person are deleted by a job, now and 30 s later.
     */
    revoked: enqueueCallsRevoked,
    schedule: (userId: string) => getCallSchedule(db, userId),
    /** The diagnostics page's daily-calls section. */
    diagnostics: (userId: string) =>
      callsDiagnostics(db, userId, clock.now(), {
        configured: dialler !== undefined && deps.webhookAuth !== undefined,
        webhookUrl: `${deps.appUrl.replace(/\/$/, '')}/api/webhooks/vapi`,
        webhookAuth: deps.webhookAuth?.mode ?? null,
      }),

    /** The tick: enqueues the calls and retries due soon (or missed). */
    async tick(): Promise<{ calls: number; retries: number; failed: number }> {
      if (!dialler) return { calls: 0, retries: 0, failed: 0 }
      const now = clock.now()
      const calls = await dueCalls(db, now)
      const retries = await dueRetries(db, now)
      const failed = await runAll([...calls, ...retries], (call) => enqueueCall(call, now))
      if (failed > 0) log.warn({ failed }, 'calls: some calls could not be enqueued; the next tick tries again')
      return { calls: calls.length, retries: retries.length, failed }
    },

    /** One try of a place-call job (parked until the call's instant with `waitUntil`, when given). */
    place: (payload: PlaceCallPayload, timing: DialTiming) => placeCall(diallerDeps, { ...payload, dueAt: new Date(payload.dueAt), callId: payload.callId }, timing),

    /** Whether a webhook delivery is Vapi's (the rate limit counts only those that are not). */
    authentic: (rawBody: Buffer, headers: Record<string, string | string[] | undefined>): boolean => verifyVapiWebhook(deps.webhookAuth, headers, rawBody, clock.now()),
    /**
     * Whether a webhook delivery is Vapi's by its headers, before its body is read: decided in
     * secret mode (and when nothing can be verified), null in HMAC mode (the signature covers the body).
     */
    authenticHeaders: (headers: Record<string, string | string[] | undefined>): boolean | null => verifyVapiWebhookHeaders(deps.webhookAuth, headers),
    /** Whether the headers alone authenticate a webhook delivery (not HMAC mode): fixed at start. */
    webhookHeadersDecide: deps.webhookAuth?.mode !== 'hmac',

    /**
     * POST /api/webhooks/vapi: authenticates, stores the message once, enqueues its processing,
     * and answers. Messages the product does not use are acknowledged and dropped.
     */
    async receiveWebhook(rawBody: Buffer, headers: Record<string, string | string[] | undefined>): Promise<{ stored: boolean; duplicate: boolean }> {
      const now = clock.now()
      if (!verifyVapiWebhook(deps.webhookAuth, headers, rawBody, now)) throw new AppError('UNAUTHENTICATED', 'The webhook could not be authenticated.')
      let body: unknown
      try {
        body = JSON.parse(rawBody.toString('utf8'))
      } catch {
        throw new AppError('BAD_REQUEST', 'The body must be JSON.', { field: 'message' })
      }
      const message = (body as { message?: unknown } | null)?.message
      if (!message || typeof message !== 'object' || typeof (message as { type?: unknown }).type !== 'string') {
        throw new AppError('VALIDATION_FAILED', 'The body must be {"message": {"type": ...}}.', { field: 'message.type' })
      }
      // A final transcript line of a live phone call goes to the person's dashboards now (it is
      // not stored: the end-of-call report keeps the whole transcript).
      const line = transcriptLineOf(message as VapiMessage)
      if (line) {
        if (deps.live) await publishLine(line)
        return { stored: false, duplicate: false }
      }
      const stored = await storeVapiMessage(db, message as VapiMessage, now)
      if (stored.id !== null) {
        // If this is lost (Redis down), the sweep applies the stored message.
        await jobs.enqueue(VAPI_EVENT_JOB, { id: stored.id }, { jobId: `vapi-event-${stored.id}` }).catch((error: unknown) => log.warn({ err: error, eventId: stored.id }, 'calls: could not enqueue a webhook message; the sweep will apply it'))
      }
      return { stored: stored.id !== null, duplicate: stored.duplicate }
    },

    processEvent,

    /** The sweep: lost webhook jobs, calls past their end, abandoned claims. */
    async sweep(): Promise<{ events: number; asked: number; finished: number; settled: number }> {
      const now = clock.now()
      const pending = await pendingVapiEvents(db, new Date(now.getTime() - 60_000), 500)
      for (const id of pending) await processEvent(id).catch((error: unknown) => log.warn({ err: error, eventId: id }, 'calls: a stored webhook message could not be applied'))
      let asked = 0
      let finished = 0
      let settled = 0
      const vapi = deps.vapi
      if (!vapi) return { events: pending.length, asked, finished, settled }
      for (const call of [...(await overdueCalls(db, now)), ...(await callsMissingReport(db, now))]) {
        asked++
        try {
          const record = await vapi.get(call.vapiCallId!)
          const observation = record
            ? observationOfRecord(record, call.id, now)
            : { vapiCallId: call.vapiCallId!, callId: call.id, status: 'ended', endedReason: 'call-not-found', at: now, startedAt: null, endedAt: now, report: null, source: 'sweep' as const }
          const applied = await db.transaction((tx) => applyObservation(tx, observation, { now, eligibleAt }))
          if (applied.ended) finished++
          await afterApply(applied)
        } catch (error) {
          log.warn({ err: error, callId: call.id }, 'calls: could not ask Vapi about a call; the next sweep tries again')
        }
      }
      for (const call of await abandonedClaims(db, now)) {
        try {
          const found = call.dialledAt ? await vapi.findPlaced(call.id, new Date(call.dialledAt.getTime() - 5_000), new Date(call.dialledAt.getTime() + 60_000)) : null
          await db.transaction(async (tx) => {
            if (found) {
              await tx.update(coachingCalls).set({ vapiCallId: found.id, completionStatus: 'queued', updatedAt: now }).where(and(eq(coachingCalls.id, call.id), isNull(coachingCalls.vapiCallId)))
              await addCallEvent(tx, call, 'reconciled', now, { vapiCallId: found.id })
              const applied = await applyObservation(tx, observationOfRecord(found, call.id, now), { now, eligibleAt })
              if (applied.ended) finished++
            } else {
              const [failed] = await tx
                .update(coachingCalls)
                .set({ completionStatus: 'failed', endedReason: 'dial-abandoned', endedAt: now, updatedAt: now })
                .where(and(eq(coachingCalls.id, call.id), eq(coachingCalls.completionStatus, 'dialling'), isNull(coachingCalls.vapiCallId)))
                .returning({ id: coachingCalls.id })
              if (failed) await addCallEvent(tx, call, 'dial_failed', now, { reason: 'dial-abandoned' })
            }
          })
          settled++
        } catch (error) {
          log.warn({ err: error, callId: call.id }, 'calls: could not settle an abandoned claim')
        }
      }
      return { events: pending.length, asked, finished, settled }
    },

    /**
     * Voice calls started in the app (the voice gateway): the row is written first, then gets
     * Vapi's call id (or the failure); the webhooks keep it from there, as for a phone call.
     */
    webCalls: {
      /** Writes the call's row (its length: what the voice gateway allowed it) and reads its variables; with the webhook server it names (the credential in secret mode). */
      open: async (userId: string, maxDurationSeconds: number) => {
        const server = await callWebhookServer()
        return { ...(await openWebCall(db, userId, maxDurationSeconds, clock.now())), server }
      },
      attach: (callId: string, vapiCallId: string) => attachWebCall(db, callId, vapiCallId, clock.now()),
      fail: (callId: string, status: 'failed' | 'cancelled', reason: string, detail: Record<string, unknown>) => failWebCall(db, callId, status, reason, detail, clock.now()),
      serverMessages: WEB_CALL_SERVER_MESSAGES,
    },

    /** The person's phone calls live now, as the live card's `phone-call` events. */
    liveNow: (userId: string) => liveCallsOf(db, userId, clock.now()),
    /** Ends the person's live phone call through Vapi's live call control (refusals are AppErrors). */
    endLive: (userId: string, callId: string) => endLiveCall(db, deps.vapi, userId, callId, clock.now()),

    /**
     * After a revocation of consent to calls: deletes at Vapi the person's calls it has not
     * connected yet (the revoking transaction already stopped the claims and retries). Nothing if
     * calls are on again by then: what was placed since (a "Call me now") is wanted.
     */
    async cancelUnanswered(userId: string): Promise<{ cancelled: number; answered: number }> {
      const vapi = deps.vapi
      if (!vapi || (await hasConsent(db, userId, 'calls'))) return { cancelled: 0, answered: 0 }
      let cancelled = 0
      let answered = 0
      for (const call of await unansweredPlacedCalls(db, userId)) {
        const result = await vapi.cancel(call.vapiCallId)
        if (result === 'in-progress') answered++
        if (result === 'cancelled') {
          cancelled++
          await addCallEvent(db, { id: call.id, userId }, 'cancelled', clock.now(), { reason: CONSENT_REVOKED })
        }
      }
      return { cancelled, answered }
    },

    /**
     * After an account's deletion: deletes at Vapi the calls it had not connected yet (queued or
     * ringing by their Vapi id; a dial that was on its way, found by our call's name). A call the
     * person already answered is left to end by itself.
     */
    async cancelDeleted(deleted: readonly DeletedCall[]): Promise<{ cancelled: number; answered: number }> {
      const vapi = deps.vapi
      if (!vapi) return { cancelled: 0, answered: 0 }
      let cancelled = 0
      let answered = 0
      for (const call of deleted) {
        const dialledAt = call.dialledAt ? new Date(call.dialledAt) : null
        const vapiCallId = call.vapiCallId ?? (dialledAt ? (await vapi.findPlaced(call.callId, new Date(dialledAt.getTime() - 5_000), new Date(dialledAt.getTime() + 60_000)))?.id : undefined)
        if (!vapiCallId) continue
        const result = await vapi.cancel(vapiCallId)
        if (result === 'cancelled') cancelled++
        if (result === 'in-progress') answered++
      }
      return { cancelled, answered }
    },

    /** "Call me now": a test call, placed at once (rate-limited by its route). */
    async callNow(userId: string): Promise<{ callId: string }> {
      if (!dialler) throw new AppError('CALLS_NOT_CONFIGURED')
      const now = clock.now()
      const person = await loadCallPerson(db, userId, now)
      const eligibility = person ? eligibilityOf(person, now) : null
      // Never a phone nobody proved, nor one that texted STOP (docs/decisions/060).
      if (eligibility?.eligible === false && eligibility.reason === 'stopped') throw new AppError('NUMBER_STOPPED', stoppedMessage(displayPhoneNumber(deps.smsNumber)))
      if (eligibility?.eligible === false && eligibility.reason === 'unverified') throw new AppError('NUMBER_NOT_VERIFIED')
      if (!person || (!eligibility?.eligible && eligibility?.reason !== 'paused' && eligibility?.reason !== 'no_call_time')) {
        throw new AppError('CALL_NOT_ELIGIBLE', undefined, { field: eligibility && !eligibility.eligible ? eligibility.reason : undefined })
      }
      const callId = await db.transaction(async (tx) => {
        // One call at a time: a person with a call under way is not dialled again.
        const [live] = await tx
          .select({ id: coachingCalls.id })
          .from(coachingCalls)
          .where(and(eq(coachingCalls.userId, userId), inArray(coachingCalls.completionStatus, ['dialling', 'queued', 'ringing', 'in_progress'])))
          .limit(1)
          .for('update')
        if (live) throw new AppError('CALL_IN_PROGRESS')
        const plan = person.access.tier ?? 'basic'
        const [call] = await tx
          .insert(coachingCalls)
          .values({ userId, slot: 'test', localDate: null, attempt: 0, callDate: now, timeZone: person.timeZone, kind: 'check_in', maxDurationSeconds: PLAN_CALLS[plan].maxDurationSeconds, completionStatus: 'dialling' })
          .returning()
        await addCallEvent(tx, call!, 'scheduled', now, { requested: true })
        return call!.id
      })
      await jobs.enqueue(PLACE_CALL_JOB, { userId, slot: 'test', localDate: null, attempt: 0, dueAt: now.toISOString(), callId } satisfies PlaceCallPayload, { jobId: testCallJobId(callId) })
      return { callId }
    },
  }
}
