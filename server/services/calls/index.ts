/**
 * Coaching calls: the daily calls' whole loop (the tick that schedules them, the dialler, Vapi's
 * webhooks, the record, the retry ladder and the sweep), "Call me now", the calls made in the app,
 * the user's recent calls and the dashboard's figures, a call's detail, the next call, and the
 * schedule the person controls. Other domains reach calls through this file only.
 */
import type { Logger } from 'pino'
import { VAPI_WEBHOOK_PATH } from '#common/webhooks'
import type { UpdateCallSchedule } from '#common/calls'
import type { Db, DbExecutor } from '#server/db/client'
import type { User } from '#server/db/schema'
import type { VapiCallsClient } from '#server/integrations/vapi-calls'
import type { Clock } from '#server/lib/clock'
import type { ConsentRequestMeta } from '#server/services/consent'
import type { BusPublisher } from '#server/services/cluster-bus'
import { createCallJobs } from './call-jobs'
import { VAPI_EVENT_JOB, type CallsJobQueue, type PlaceCallPayload } from './jobs'
import { createCallNow } from './call-now'
import { dashboardStats, recentCalls } from './calls'
import { createCancellations } from './cancellations'
import { eligibilityCheck, type CallsContext, type FinalCall } from './context'
import { callDetail } from './detail'
import { callsDiagnostics, countParkedEvents, unparkEvent } from './diagnostics'
import { placeCall, type DialTiming, type DiallerDeps } from './dialler'
import { instantBatches } from './instant'
import { endLiveCall, liveCallsOf } from './call-watch'
import { nextCall } from './next-call'
import { createObservations } from './observations'
import { getCallSchedule } from './schedule'
import { getCallScheduleSettings, updateCallScheduleSettings } from './schedule-settings'
import { createSweep } from './sweep'
import { createTick } from './tick'
import type { CallLines } from './lines'
import { createWebCalls } from './web-call'
import { webhookServer } from './webhook-server'
import { createWebhookReceiver } from './webhook-receiver'
import type { WebhookAuth } from './webhooks'
import { createMetrics, type Metrics } from '#server/observability/metrics'

export {
  authenticationPlan,
  CALL_REPORT_DESCRIPTION,
  CALL_REPORT_LIMITS,
  CALL_REPORT_OUTPUT,
  CALL_REPORT_SCHEMA,
  CALL_VARIABLES,
  COACH_ASSISTANT_NAME,
  COACH_FIRST_MESSAGE,
  COACH_PROMPT,
  COACH_VOICEMAIL_MESSAGE,
  CallReportResult,
  coachAssistant,
  CREDENTIAL_PREFIX,
  credentialName,
  DEFAULT_MAX_DURATION_SECONDS,
  findCallReport,
  WEB_CALL_FIRST_MESSAGE,
  type WebhookAuthMode,
} from './assistant'
export { recentCalls } from './calls'
export type { FinalCall } from './context'
export { DialLater, PLACE_CALL_ATTEMPTS } from './dialler'
export { callDurationLimit, callEligibility, slotTimes, type CallEligibilityInput } from './entitlements'
export { fireInstant, insideAllowedWindow, localDateOf, localTimeOf, nextFireAfter } from './next-fire'
export { outcomeOf, retryDecision } from './record'
export { REVOKED_RECHECK_MS, stopCallsOf } from './revoked'
export { parkedEvents } from './diagnostics'
export { callerNumberOf, callLines, LEARNED_LIMIT_TTL_MS, memoryCallLines, placeScore, redisCallLines, type CallLines, type LineSettings, type LineState } from './lines'
export { CALLS_JOBS, CANCEL_DELETED_CALLS_JOB, PLACE_CALL_JOB, type CallsJob, type CallsJobQueue, type DeletedCall } from './jobs'
export { getCallSchedule } from './schedule'
export { dueCalls, placeCallJobId, testCallJobId } from './tick'
export type { OpenedWebCall } from './web-call'
export { CREDENTIAL_RETRY_MS, webhookServer } from './webhook-server'
export { dedupeKeyOf, HMAC_WINDOW_MS, reportOf, verifyVapiWebhook } from './webhooks'

type CallsDeps = {
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
  /** Vapi's lines and the pace of new phone calls (server/services/calls/lines.ts: callLines). */
  lines: CallLines
  /** Where a phone call's live status and transcript lines are published (the dashboards' live card). */
  live?: BusPublisher | undefined
  /**
   * Told after the commit of every observation that leaves a call final (the texts: a recap after a
   * completed call's report, a missed-call text). `ended` is set when this observation ended it.
   */
  onFinal?: ((final: FinalCall) => Promise<void>) | undefined
  /** Where dials, calls ended and lateness are counted (a registry of its own when not given). */
  metrics?: Metrics | undefined
}

export type Calls = ReturnType<typeof createCalls>

export function createCalls(deps: CallsDeps) {
  const { db, clock, log } = deps
  const ctx: CallsContext = {
    db,
    clock,
    log,
    jobs: deps.jobs,
    vapi: deps.vapi,
    // The client that places phone calls, when one can.
    dialler: deps.vapi?.canDial ? deps.vapi : undefined,
    live: deps.live,
    smsNumber: deps.smsNumber,
    lines: deps.lines,
    eligibleAt: eligibilityCheck(clock),
    metrics: deps.metrics ?? createMetrics({ processMetrics: false }),
  }
  const jobs = createCallJobs(ctx)
  const observations = createObservations(ctx, { enqueueCall: jobs.enqueueCall, redial: jobs.redial, onFinal: deps.onFinal })
  // What each call names as its webhook server: in secret mode the credential, never the secret.
  const callWebhookServer = webhookServer({ auth: deps.webhookAuth, appUrl: deps.appUrl, vapi: deps.vapi, clock, log })
  const diallerDeps: DiallerDeps = { db, clock, log, vapi: ctx.dialler, webhookServer: callWebhookServer, afterApply: observations.afterApply, eligibleAt: ctx.eligibleAt, instant: instantBatches(db), lines: deps.lines, phoneNumberIds: ctx.dialler?.settings.phoneNumberIds ?? [], metrics: ctx.metrics }
  const receiver = createWebhookReceiver(ctx, deps.webhookAuth)
  const cancellations = createCancellations(ctx)

  return {
    /** Whether calls can be placed on this server (Vapi key, assistant and phone number). */
    configured: ctx.dialler !== undefined,
    recent: (userId: string) => recentCalls(db, userId),
    dashboardStats: (user: Pick<User, 'id' | 'createdAt'>) => dashboardStats(db, user),
    /** One of the user's calls with its timeline (404 for anyone else's). */
    detail: (userId: string, callId: string) => callDetail(db, userId, callId),
    /** The first call the user can expect, or why there is none. */
    next: (userId: string) => nextCall(db, userId, clock.now(), ctx.dialler !== undefined, deps.smsNumber),
    getSchedule: (userId: string) => getCallScheduleSettings(db, userId, clock.now(), deps.smsNumber),
    /**
     * Saves the schedule. Calls turned off also stop what was on its way (in the same transaction),
     * and the calls Vapi holds unanswered are deleted there by a job, as after a STOP.
     */
    async updateSchedule(userId: string, input: UpdateCallSchedule, meta?: ConsentRequestMeta) {
      const { schedule, callsRevoked } = await updateCallScheduleSettings(db, userId, input, clock.now(), meta ?? { ip: null, userAgent: null }, deps.smsNumber)
      if (callsRevoked) await jobs.enqueueCallsRevoked(userId, `settings-${clock.now().getTime()}`)
      return schedule
    },
    /**
     * After a revocation of calls committed elsewhere (a STOP text; `cause` tells one revocation from
     * another): Vapi's unanswered calls of the person are deleted by a job, now and 30 s later.
     */
    revoked: jobs.enqueueCallsRevoked,
    schedule: (userId: string) => getCallSchedule(db, userId),
    /** The diagnostics page's daily-calls section. */
    diagnostics: (userId: string) =>
      callsDiagnostics(db, userId, clock.now(), {
        configured: ctx.dialler !== undefined && deps.webhookAuth !== undefined,
        webhookUrl: `${deps.appUrl.replace(/\/$/, '')}${VAPI_WEBHOOK_PATH}`,
        webhookAuth: deps.webhookAuth?.mode ?? null,
      }),

    /** The tick: enqueues the calls and retries due soon (or missed). */
    tick: createTick(ctx, jobs.enqueueCall),
    /** One try of a place-call job (parked until the call's instant with `waitUntil`, when given). */
    place: (payload: PlaceCallPayload, timing: DialTiming) => placeCall(diallerDeps, { ...payload, dueAt: new Date(payload.dueAt), callId: payload.callId }, timing),

    authentic: receiver.authentic,
    authenticHeaders: receiver.authenticHeaders,
    webhookHeadersDecide: receiver.webhookHeadersDecide,
    receiveWebhook: receiver.receiveWebhook,
    processEvent: observations.processEvent,
    /** The sweep: lost webhook jobs, calls past their end, abandoned claims. */
    sweep: createSweep(ctx, observations),

    /** Vapi's lines now: in use, the limit believed, calls waiting (the diagnostics page). */
    lineState: () => deps.lines.state(),
    /** Webhook messages parked after too many failed applications (they wait for an operator). */
    parkedEvents: () => countParkedEvents(db),
    /**
     * An operator puts a parked webhook message back: applied now by a job (the sweep applies it
     * too if the enqueue is lost). False when no such message is parked.
     */
    async retryParkedEvent(id: number, record?: (tx: DbExecutor) => Promise<void>): Promise<boolean> {
      const unparked = await db.transaction(async (tx) => {
        if (!(await unparkEvent(tx, id))) return false
        // What the operator did is written with it (the audit log), or neither is.
        await record?.(tx)
        return true
      })
      if (!unparked) return false
      await deps.jobs.enqueue(VAPI_EVENT_JOB, { id }, { jobId: `vapi-event-${id}-retry-${clock.now().getTime()}` }).catch((error: unknown) => log.warn({ err: error, eventId: id }, 'calls: could not enqueue a retried webhook message; the sweep will apply it'))
      return true
    },
    /** Voice calls started in the app (the voice gateway). */
    webCalls: createWebCalls(ctx, callWebhookServer),
    /** The person's phone calls live now, as the live card's `phone-call` events. */
    liveNow: (userId: string) => liveCallsOf(db, userId, clock.now()),
    /** Ends the person's live phone call through Vapi's live call control (refusals are AppErrors). */
    endLive: (userId: string, callId: string) => endLiveCall(db, deps.vapi, userId, callId, clock.now()),

    cancelUnanswered: cancellations.cancelUnanswered,
    cancelDeleted: cancellations.cancelDeleted,
    /** "Call me now": a test call, placed at once (rate-limited by its route). */
    callNow: createCallNow(ctx),
  }
}
