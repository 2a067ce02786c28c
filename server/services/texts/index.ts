/**
 * Texts (issue 15, docs/decisions/045): the inbound webhook's keywords, the outbound texts (a
 * recap after a completed call, a missed-call text, the weekly report's link) through one outbox
 * that honours consent, the local window, the daily cap and the weekly footer, and the opt-in
 * screen's signal that a START arrived.
 */
import { Temporal } from 'temporal-polyfill'
import type { Logger } from 'pino'
import type { NextCallResponse } from '#common/calls'
import type { TextOptInEvent } from '#common/texts'
import { SMS_STATUS_PATH } from '#common/webhooks'
import type { Db } from '#server/db/client'
import { profiles } from '#server/db/schema'
import type { TextSendResult, TextSender } from '#server/integrations/twilio'
import { AppError } from '#server/lib/app-error'
import type { Clock } from '#server/lib/clock'
import { localDateOf, localTimeOf, type FinalCall } from '#server/services/calls'
import { hasConsent } from '#server/services/consent'
import type { ClusterBus } from '#server/services/cluster-bus'
import { eq } from 'drizzle-orm'
import { coachMessageContent, missedCallContent, phoneCodeBody, recapContent, weeklyReportContent, type MissedCallNext } from './compose'
import { recordDeliveryStatus, type StatusOutcome } from './delivery'
import { receiveInbound, type InboundResult, type InboundText } from './inbound'
import { sweepInboundLog, type SweepOutcome } from './sweep'
import { abandonTexts, deliverText, dueTexts, e164, requestText, withdrawHeld, type DeliverOutcome, type TextRequest } from './outbox'
import { SEND_TEXT_JOB, type TextsJobQueue } from './jobs'
import type { Metrics } from '#server/observability/metrics'

export { coachMessageContent, finalBody, isGsm7, recapContent, missedCallContent, segmentsOf, toGsmFriendly } from './compose'

export { SEND_LEASE_MS, STATUS_TEXT_PARAM } from './outbox'

export { SEND_TEXT_JOB, TEXTS_JOBS, type TextsJob, type TextsJobQueue } from './jobs'
/** The send-text job id of a text (one run per text while it waits). */
export const sendTextJobId = (textId: string) => `text-${textId}`
/** Texts a release run sends at once. */
const RELEASE_CONCURRENCY = 10

type TextsDeps = {
  db: Db
  clock: Clock
  log: Logger
  sender: TextSender
  /** SMS_OPT_IN_NUMBER: the number texts come from and inbound texts reach. */
  smsNumber: string
  appUrl: string
  jobs: TextsJobQueue
  /** The per-user channel the opt-in screen listens on (Redis pub/sub with REDIS_URL). */
  bus: Pick<ClusterBus, 'publish' | 'subscribe'>
  /** The person's next call (for a missed-call text without a retry). */
  nextCall(userId: string): Promise<NextCallResponse>
  /** A STOP revoked the person's calls (committed): Vapi's unanswered calls are deleted next. */
  callsRevoked(userId: string, cause: string): Promise<void>
  /** Texts sent and refused, and consents revoked, counted. */
  metrics: Metrics
}

export type Texts = ReturnType<typeof createTexts>

/** The form fields of Twilio's inbound webhook the product reads. */
export type InboundParams = Record<string, string | string[] | undefined>

const field = (params: InboundParams, name: string): string | null => {
  const value = params[name]
  return typeof value === 'string' ? value : null
}

const MESSAGE_SID = /^(SM|MM)[0-9a-fA-F]{32}$/

const SLOT_LABELS: Record<string, string> = { daily: 'daily check-in', evening: 'evening check-in' }

/** A Twilio webhook as it arrived: its X-Twilio-Signature, the URL it was sent to, its form fields. */
export type SignedWebhook = { signature: string | undefined; url: string; params: InboundParams }

export function createTexts(deps: TextsDeps) {
  const { db, clock, log, jobs } = deps
  const appUrl = deps.appUrl.replace(/\/$/, '')
  const outbox = { db, sender: deps.sender, from: deps.smsNumber, statusCallback: deps.sender.live ? `${appUrl}${SMS_STATUS_PATH}` : undefined, metrics: deps.metrics }

  /**
   * Writes the text (once per key) and asks for it to be sent now; the release run is the safety
   * net. A person whose texts are off gets no row at all (id null); the send checks again.
   */
  async function sendText(request: TextRequest): Promise<{ id: string | null; created: boolean }> {
    if (!(await hasConsent(db, request.userId, 'texts'))) return { id: null, created: false }
    const result = await requestText(db, request, clock.now())
    if (result.created) {
      await jobs.enqueue(SEND_TEXT_JOB, { id: result.id }, { jobId: sendTextJobId(result.id) }).catch((error: unknown) => {
        log.warn({ err: error, textId: result.id }, 'texts: could not enqueue a text now; the release run sends it')
      })
    }
    return result
  }

  async function missedNext(final: FinalCall, timeZone: string): Promise<MissedCallNext> {
    if (final.retry) return { kind: 'retry', localTime: localTimeOf(final.retry.at, timeZone) }
    const next = await deps.nextCall(final.call.userId).catch(() => null)
    if (!next?.next) return { kind: 'none' }
    const today = Temporal.PlainDate.from(localDateOf(clock.now(), next.next.timeZone))
    const day = next.next.localDate === today.toString() ? 'today' : next.next.localDate === today.add({ days: 1 }).toString() ? 'tomorrow' : Temporal.PlainDate.from(next.next.localDate).toLocaleString('en-US', { weekday: 'long' })
    return { kind: 'next', localTime: next.next.localTime, day }
  }

  /**
   * The signature (against APP_URL + the request's path and query, with every form field), then
   * the message's sid. Twilio signs its status callbacks exactly as its inbound texts.
   */
  async function authentic(input: SignedWebhook): Promise<boolean> {
    const params = Object.fromEntries(Object.entries(input.params).filter((entry): entry is [string, string | string[]] => entry[1] !== undefined))
    return input.signature !== undefined && (await deps.sender.validate(input.signature, input.url, params))
  }

  async function verifiedMessageSid(input: SignedWebhook): Promise<string> {
    if (!(await authentic(input))) {
      throw new AppError('FORBIDDEN', 'The webhook signature is not valid.')
    }
    const messageSid = field(input.params, 'MessageSid') ?? field(input.params, 'SmsSid')
    if (!messageSid || !MESSAGE_SID.test(messageSid)) throw new AppError('VALIDATION_FAILED', 'MessageSid is required.', { field: 'MessageSid' })
    return messageSid
  }

  /**
   * One inbound text, from the webhook or from the sweep of Twilio's log: acted on once (by its
   * sid), then what follows its commit (Vapi's unanswered calls deleted after a STOP, the open
   * opt-in screens told of a START).
   */
  async function takeInbound(message: InboundText): Promise<InboundResult> {
    const result = await receiveInbound({ db, appUrl, smsNumber: deps.smsNumber }, message, clock.now())
    if (result.duplicate) return result
    for (const userId of result.callsRevoked) await deps.callsRevoked(userId, message.messageSid)
    const event: TextOptInEvent = { type: 'text-opt-in', at: clock.now().toISOString() }
    for (const userId of result.started) await deps.bus.publish(userId, event)
    if (result.userIds.length > 0) log.info({ messageSid: message.messageSid, keyword: result.keyword, accounts: result.userIds.length }, 'inbound text')
    // For the people who look after the service: never the words, the message's id.
    if (result.crisis) log.warn({ messageSid: message.messageSid, accounts: result.userIds.length, resourcesSent: result.reply !== null }, 'texts: a text spoke of suicide or self-harm')
    return result
  }

  return {
    /** Whether a webhook carries Twilio's valid signature (the rate limit lets those through uncounted). */
    authentic,

    /** Whether texts really leave through Twilio (false: they are written to the log). */
    live: deps.sender.live,

    /**
     * Asks for a text to a person (it goes out only with their consent, in their window, under the
     * cap; once per dedupe key). The weekly report uses sendWeeklyReportLink.
     */
    sendText,

    /**
     * The weekly report's text with its link, once per person-week (`weekStart`: the report's
     * Monday, 'YYYY-MM-DD'). Sent only if the person's texts are on, like every text.
     */
    sendWeeklyReportLink(input: { userId: string; weekStart: string; link: string; weekLabel?: string | undefined }) {
      return sendText({
        userId: input.userId,
        kind: 'weekly_report',
        dedupeKey: `weekly_report:${input.userId}:${input.weekStart}`,
        content: weeklyReportContent({ link: input.link, weekLabel: input.weekLabel }),
      })
    },

    /**
     * An Elite member's coach wrote and the member has not read it: one text per run of unread
     * messages (`firstUnreadId`, the run's oldest: more messages before the member reads add no
     * text). Like every text: only with their texts on, to their proven number, in their hours.
     */
    sendCoachMessageNotice(input: { userId: string; firstUnreadId: string; coachName: string; count: number }) {
      return sendText({
        userId: input.userId,
        kind: 'coach_message',
        dedupeKey: `coach_message:${input.firstUnreadId}`,
        content: coachMessageContent({ coachName: input.coachName, count: input.count, link: `${appUrl}/messages` }),
      })
    },

    /** A 1-on-1 session's reminder (the sessions' reminder job words it and keys it per session, reminder and start). */
    sendSessionReminder(input: { userId: string; dedupeKey: string; content: string; onlyOnLocalDate: string }) {
      return sendText({ ...input, kind: 'session_reminder' })
    },

    /** The member read their coach's messages: a notice of them still held (the night, the cap) is not sent. */
    withdrawCoachMessageNotices(userId: string): Promise<number> {
      return withdrawHeld(db, userId, 'coach_message', 'read', clock.now())
    },

    /** What follows a final call: the recap of a completed one (once its report is in), the missed-call text. */
    async afterCall(final: FinalCall): Promise<void> {
      const { call } = final
      if (call.slot !== 'daily' && call.slot !== 'evening') return
      if (call.completionStatus === 'completed' && call.reportAt) {
        await sendText({
          userId: call.userId,
          kind: 'recap',
          dedupeKey: `recap:${call.id}`,
          callId: call.id,
          content: recapContent({ summary: call.summary, commitments: call.commitments, link: `${appUrl}/calls/${call.id}` }),
        })
        return
      }
      const notReached = call.completionStatus === 'no_answer' || call.completionStatus === 'busy' || call.completionStatus === 'voicemail'
      if (!final.ended || !notReached || !call.localDate) return
      const [person] = await db.select({ timeZone: profiles.timezone }).from(profiles).where(eq(profiles.id, call.userId)).limit(1)
      const timeZone = call.timeZone ?? person?.timeZone ?? 'America/New_York'
      const slotLabel = call.kind === 'goal_session' ? 'monthly goal session' : (SLOT_LABELS[call.slot] ?? 'coaching call')
      // One missed-call text per slot and day: later misses of the same call add nothing.
      await sendText({
        userId: call.userId,
        kind: 'missed_call',
        dedupeKey: `missed_call:${call.userId}:${call.slot}:${call.localDate}`,
        callId: call.id,
        content: missedCallContent({ slotLabel, next: await missedNext(final, timeZone), link: `${appUrl}/calls/schedule` }),
        onlyOnLocalDate: localDateOf(clock.now(), timeZone),
      })
    },

    /**
     * A code that confirms a new phone number (the account page, docs/decisions/050) or proves the
     * account's number (docs/decisions/060), sent at once and to that number only: the person asked
     * for it this moment, so neither the texts consent, the hours nor the daily cap apply, and it
     * goes around the outbox (no row keeps the code). The account's code guard (phones' admitCode:
     * the do-not-contact list, the per-number and daily caps) has let it through. Without Twilio it
     * is written to the log (outside production), like every text.
     */
    sendCode(phoneDigits: string, code: string, purpose: 'change' | 'proof' = 'change'): Promise<TextSendResult> {
      return deps.sender.send({ to: e164(phoneDigits), from: deps.smsNumber, body: phoneCodeBody(code, purpose) })
    },

    /** The send-text job: one text, if it is due. */
    deliver: (id: string): Promise<DeliverOutcome> => deliverText(outbox, id, () => clock.now()),

    /** The release run (every minute): held texts that came due, and claims whose sender died. */
    async release(): Promise<{ due: number; sent: number; abandoned: number }> {
      const now = clock.now()
      const abandoned = await abandonTexts(db, now)
      const ids = await dueTexts(db, now)
      let sent = 0
      for (let i = 0; i < ids.length; i += RELEASE_CONCURRENCY) {
        const outcomes = await Promise.allSettled(ids.slice(i, i + RELEASE_CONCURRENCY).map((id) => deliverText(outbox, id, () => clock.now())))
        for (const outcome of outcomes) {
          if (outcome.status === 'fulfilled' && (outcome.value === 'sent' || outcome.value === 'logged')) sent++
          if (outcome.status === 'rejected') log.warn({ err: outcome.reason }, 'texts: a held text could not be sent')
        }
      }
      return { due: ids.length, sent, abandoned }
    },

    /**
     * POST /api/webhooks/sms: the signature (against APP_URL + the request's path and query, with
     * every form field), then the message. Answers the TwiML reply (null: none).
     */
    async receiveWebhook(input: SignedWebhook): Promise<{ reply: string | null; duplicate: boolean }> {
      const messageSid = await verifiedMessageSid(input)
      const from = field(input.params, 'From')
      if (!from) throw new AppError('VALIDATION_FAILED', 'From is required.', { field: 'From' })
      // Only texts to our own number: another number of the Twilio account is not this service's.
      const to = field(input.params, 'To')
      if (to !== deps.smsNumber) throw new AppError('FORBIDDEN', 'This text was not sent to our number.', { field: 'To' })
      const result = await takeInbound({ messageSid, from, to, body: field(input.params, 'Body') ?? '' })
      if (result.duplicate) return { reply: null, duplicate: true }
      return { reply: result.reply, duplicate: false }
    },

    /**
     * The texts-inbound-sweep job (every 10 minutes): the texts Twilio's log has for our number
     * that no webhook brought (it was down, or Twilio gave up on it), each taken as the webhook
     * would take it: a STOP lost to an outage still revokes calls. Without Twilio, nothing to read.
     */
    sweepInbound: (): Promise<SweepOutcome> =>
      sweepInboundLog({ db, log, sender: deps.sender, smsNumber: deps.smsNumber, take: takeInbound }, clock.now()),

    /**
     * POST /api/webhooks/sms/status: Twilio's status callback for a text we sent (signed like the
     * inbound webhook): the text's final status once, and what its error says (delivery.ts).
     * `textId`: the text the callback's URL names (the URL is signed with it).
     */
    async receiveStatus(input: SignedWebhook, textId?: string): Promise<StatusOutcome> {
      const messageSid = await verifiedMessageSid(input)
      const status = field(input.params, 'MessageStatus') ?? field(input.params, 'SmsStatus')
      if (!status) throw new AppError('VALIDATION_FAILED', 'MessageStatus is required.', { field: 'MessageStatus' })
      const rawCode = field(input.params, 'ErrorCode')
      const errorCode = rawCode === null || rawCode === '' ? null : Number(rawCode)
      if (errorCode !== null && !Number.isInteger(errorCode)) throw new AppError('VALIDATION_FAILED', 'ErrorCode must be a number.', { field: 'ErrorCode' })
      const outcome = await recordDeliveryStatus(db, { messageSid, status, errorCode, errorMessage: field(input.params, 'ErrorMessage'), textId }, clock.now())
      if (outcome === 'unknown_message') log.warn({ messageSid, status }, 'texts: a status callback for a text we do not know')
      else if (errorCode !== null) {
        log.info({ messageSid, status, errorCode }, 'texts: not delivered')
        if (outcome === 'recorded') deps.metrics.texts.refused(errorCode)
      }
      return outcome
    },

    /** The opt-in screen's listener: called when a START from the person's number arrives. */
    watchOptIn(userId: string, listener: (event: TextOptInEvent) => void) {
      return deps.bus.subscribe(userId, (event) => {
        if (event.type === 'text-opt-in') listener(event)
      })
    },
  }
}
