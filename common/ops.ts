/**
 * The operator's view (`/ops`, `npm run calls:status`): how the calls, lines, queues, webhooks and
 * texts stand now, read from PostgreSQL and Redis. No personal data: counts, codes, call ids.
 */
import { z } from 'zod'
import { CALL_STATUSES } from './domain'
import { text } from './text'

const CallStatusSchema = z.enum(CALL_STATUSES)

/** Calls by status in a window (the statuses that occurred, with their counts). */
const OutcomeCountsSchema = z.array(z.object({ status: CallStatusSchema, count: z.number().int() }))

/** Reached ÷ (reached + not reached) of the phone calls that ended in a window; null with none. */
const AnswerRateSchema = z.object({ rate: z.number().nullable(), reached: z.number().int(), notReached: z.number().int() })

const OpsQueueSchema = z.object({ queue: text(), waiting: z.number().int(), oldestWaitingSeconds: z.number() })

export const OpsSnapshotSchema = z.object({
  at: z.iso.datetime(),
  calls: z.object({
    /** Phone calls due in the last hour, and since midnight UTC, by their status now. */
    lastHour: OutcomeCountsSchema,
    today: OutcomeCountsSchema,
    /** Today's answer rate so far, and the same hours of the same weekday a week ago. */
    answerRate: z.object({ today: AnswerRateSchema, lastWeek: AnswerRateSchema }),
  }),
  /** Due → dialled over the phone calls dialled in the last hour. */
  lateness: z.object({ dialled: z.number().int(), p50Seconds: z.number().nullable(), p99Seconds: z.number().nullable() }),
  /** Vapi's lines as the fleet's count has them (null when it cannot be read). */
  lines: z.object({ inUse: z.number().int(), limit: z.number().int(), waiting: z.number().int() }).nullable(),
  queues: z.array(OpsQueueSchema),
  webhooks: z.object({
    parkedCount: z.number().int(),
    parked: z.array(
      z.object({ id: z.number().int(), type: text(), receivedAt: z.iso.datetime(), parkedAt: z.iso.datetime(), attempts: z.number().int(), lastError: text().nullable() }),
    ),
  }),
  /** Calls still live past their longest end plus the sweep's grace (the sweep is asking Vapi about them). */
  stuckCalls: z.array(z.object({ id: z.uuid(), status: CallStatusSchema, dialledAt: z.iso.datetime().nullable(), minutesPastEnd: z.number().int() })),
  /** Texts Twilio refused or did not deliver in the last 24 hours, by its error code. */
  textsRefused: z.array(z.object({ code: z.number().int(), count: z.number().int() })),
})
export type OpsSnapshot = z.infer<typeof OpsSnapshotSchema>

export const RetryParkedEventParamsSchema = z.object({ id: z.coerce.number().int().positive().max(2 ** 53 - 1) })
export const RetryParkedEventResponseSchema = z.object({ retried: z.literal(true) })
