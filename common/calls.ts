/**
 * The daily coaching calls' API shapes, shared by the server's routes and the web: the next call,
 * a call's detail and timeline, and the schedule a person controls.
 */
import { z } from 'zod'
import { CALL_KINDS, CALL_SLOTS, CALL_STATUSES } from './domain'
import { text } from './text'

/**
 * Why no call is scheduled (payment, onboarding, phone, the number texted STOP, the number not
 * verified yet, consent, paused, no call time), or calls are not set up on this server.
 */
export const NO_CALL_REASONS = ['payment', 'onboarding', 'phone', 'stopped', 'unverified', 'consent', 'paused', 'no_call_time', 'not_configured'] as const
export type NoCallReason = (typeof NO_CALL_REASONS)[number]

/** A 24-hour local time 'HH:MM'. */
export const LocalTimeSchema = text().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'Use a 24-hour time HH:MM')
/** A calendar date 'YYYY-MM-DD'. */
export const LocalDateSchema = text().regex(/^\d{4}-\d{2}-\d{2}$/, 'Use a date YYYY-MM-DD')

export const NextCallResponseSchema = z.object({
  next: z
    .object({
      /** The instant (ISO 8601, UTC). */
      at: text(),
      slot: z.enum(CALL_SLOTS),
      kind: z.enum(CALL_KINDS),
      /** The person's local date and time of the call, and the zone. */
      localDate: text(),
      localTime: text(),
      timeZone: text(),
    })
    .nullable(),
  /** Set when `next` is null: why none is scheduled. */
  reason: z.enum(NO_CALL_REASONS).nullable(),
  /** Set while calls are paused: the first local date calls resume (`next` is then the first call after the pause). */
  pausedUntil: text().nullable(),
  /** Set when the reason is 'stopped': the number to text START to, as shown. */
  startNumber: text().nullable(),
})
export type NextCallResponse = z.infer<typeof NextCallResponseSchema>

/**
 * Why a phone call was dialled after its time: 'lines_busy' (every coaching line was in use) or
 * 'pace' (the dials-per-second limit held it back). coaching_calls.dial_wait_reason.
 */
export const DIAL_WAIT_REASONS = ['lines_busy', 'pace'] as const
export type DialWaitReason = (typeof DIAL_WAIT_REASONS)[number]

/**
 * A phone call dialled more than this many seconds after its time was late: the API gives how late
 * and why, the timeline has a `line_wait` step, the screens say so (docs/decisions/070). Below it
 * is the ordinary delay of placing a call.
 */
export const LATE_AFTER_SECONDS = 60

/** How late a phone call was placed (whole seconds, due → dialled), or null: not late, not dialled, or not a phone call. */
const LateSecondsSchema = z
  .number()
  .int()
  .min(LATE_AFTER_SECONDS + 1)
  .nullable()
  .describe(`Seconds a phone call was dialled after its time, when more than ${LATE_AFTER_SECONDS}; otherwise null`)
/** Why it was late; null when it was not, or when it was late for another reason (a server that was down, say). */
const LateReasonSchema = z.enum(DIAL_WAIT_REASONS).nullable().describe('Why it was late: every coaching line busy, or the dialling pace')

export const CallEventSchema = z.object({
  /** scheduled, dialled, queued, ringing, answered, ended, report, retry_scheduled, not_retried, skipped, dial_failed, reconciled, line_wait. */
  type: text(),
  at: text(),
  detail: z.record(text(), z.unknown()).nullable(),
})
export type CallEvent = z.infer<typeof CallEventSchema>

export const CallDetailResponseSchema = z.object({
  id: text(),
  callDate: text(),
  slot: z.enum(CALL_SLOTS),
  kind: z.enum(CALL_KINDS),
  /** 0 for the first dial of the slot, 1 and 2 for retries. */
  attempt: z.number().int(),
  completionStatus: z.enum(CALL_STATUSES),
  endedReason: text().nullable(),
  skipReason: text().nullable(),
  /** Seconds. */
  callDuration: z.number().int(),
  areasDiscussed: z.array(text()),
  summary: text().nullable(),
  mood: z.number().int().nullable(),
  energy: z.number().int().nullable(),
  commitments: z.array(text()),
  transcript: text().nullable(),
  startedAt: text().nullable(),
  endedAt: text().nullable(),
  timeZone: text().nullable(),
  lateSeconds: LateSecondsSchema,
  lateReason: LateReasonSchema,
  events: z.array(CallEventSchema),
})
export type CallDetailResponse = z.infer<typeof CallDetailResponseSchema>

export const CallScheduleResponseSchema = z.object({
  /** 'HH:MM' local, or null before the goal intake chose one. */
  dailyCallTime: text().nullable(),
  /** IANA zone. */
  timeZone: text(),
  /** The evening check-in's chosen time, or null (the default applies). */
  eveningCallTime: text().nullable(),
  /** The evening check-in's time until one is chosen. */
  eveningDefault: text(),
  /** Whether the plan has the evening check-in (Premium, Elite). */
  eveningAvailable: z.boolean(),
  /** Calls resume on this local date (null: not paused). */
  pausedUntil: text().nullable(),
  /** Whether the person has daily calls on (consent given and not withdrawn). */
  callsEnabled: z.boolean(),
  /** Whether the person's number is proven theirs: calls reach it only then (docs/decisions/060). */
  phoneVerified: z.boolean(),
  /** The number texted STOP: no switch turns calls back on, only a START texted from it to `startNumber`. */
  phoneStopped: z.boolean(),
  /** Our number, as shown: where START goes. */
  startNumber: text(),
})
export type CallScheduleResponse = z.infer<typeof CallScheduleResponseSchema>

export const UpdateCallScheduleSchema = z
  .object({
    dailyCallTime: LocalTimeSchema,
    timeZone: text().min(1).max(64),
    eveningCallTime: LocalTimeSchema.nullable(),
    pausedUntil: LocalDateSchema.nullable(),
    callsEnabled: z.boolean(),
  })
  .strict()
export type UpdateCallSchedule = z.infer<typeof UpdateCallScheduleSchema>

export const CallNowResponseSchema = z.object({ callId: text() })
export type CallNowResponse = z.infer<typeof CallNowResponseSchema>

/** The diagnostics page's daily-calls section: whether calls can be placed, and provider problems. */
export const CallsDiagnosticsResponseSchema = z.object({
  configured: z.boolean(),
  /** Where Vapi must send its server messages. */
  webhookUrl: text(),
  /** How the webhook authenticates Vapi. */
  webhookAuth: z.enum(['secret', 'hmac']).nullable(),
  /** Calls that could not be placed or started for a reason on our side (account, assistant, number) in the last 24 hours, across all members, by reason. */
  problems: z.array(z.object({ reason: text(), count: z.number().int(), lastAt: text() })),
  /** The signed-in person's latest call. */
  lastCall: z.object({ id: text(), callDate: text(), completionStatus: text(), endedReason: text().nullable() }).nullable(),
  /**
   * Vapi's stored messages that failed to apply too many times and are parked (never retried): how
   * many, and the latest few with their type, when they came, their failures and the last error
   * (never their content).
   */
  parkedMessages: z.object({
    count: z.number().int(),
    latest: z.array(z.object({ id: z.number().int(), type: text(), receivedAt: text(), parkedAt: text(), attempts: z.number().int(), lastError: text().nullable() })),
  }),
})
export type CallsDiagnosticsResponse = z.infer<typeof CallsDiagnosticsResponseSchema>

/** A coaching call as the dashboard lists it (`GET /api/calls/recent`). */
export const CoachingCallSchema = z.object({
  id: text(),
  callDate: text(),
  /** Seconds. */
  callDuration: z.number().int(),
  areasDiscussed: z.array(text()),
  completionStatus: text(),
  /** Which call of the day it was (the daily call, the evening check-in, a test call). */
  slot: z.enum(CALL_SLOTS).optional(),
  /** A check-in or the monthly goal session. */
  kind: z.enum(CALL_KINDS).optional(),
  /** The coach's one-paragraph summary once the call's report arrived. */
  summary: text().nullable().optional(),
  /** The server always sends these two; optional, as slot, kind and summary are, so a list without them (a test's canned one) still reads. */
  lateSeconds: LateSecondsSchema.optional(),
  lateReason: LateReasonSchema.optional(),
})
export type CoachingCallView = z.infer<typeof CoachingCallSchema>

export const RecentCallsResponseSchema = z.object({ calls: z.array(CoachingCallSchema) })
export type RecentCallsResponse = z.infer<typeof RecentCallsResponseSchema>
