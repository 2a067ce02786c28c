import { z } from 'zod'
import { text } from './text'

/**
 * What a plan's in-app use may cost (docs/decisions/061): each tier's monthly budget of voice
 * minutes (calls in the app, through the voice gateway) and chat turns (messages sent to the
 * assistant), a daily guard under it, and the ceiling of one voice call. The month and the day are
 * the person's own, in their profile's time zone. The daily phone calls are not counted here.
 */

/** The budget tiers: the free trial, then the three plans. */
const USAGE_TIERS = ['trial', 'basic', 'premium', 'elite'] as const
export const UsageTierSchema = z.enum(USAGE_TIERS)
export type UsageTier = z.infer<typeof UsageTierSchema>

export type UsageBudget = {
  /** In-app voice minutes: a calendar month's, and at most this many in one day. */
  voiceMinutes: { month: number; day: number }
  /** Messages sent to the assistant in the chat: a calendar month's, and at most this many in one day. */
  chatTurns: { month: number; day: number }
}

export const USAGE_BUDGETS: Readonly<Record<UsageTier, UsageBudget>> = {
  trial: { voiceMinutes: { month: 20, day: 10 }, chatTurns: { month: 100, day: 50 } },
  basic: { voiceMinutes: { month: 60, day: 30 }, chatTurns: { month: 300, day: 100 } },
  premium: { voiceMinutes: { month: 240, day: 60 }, chatTurns: { month: 1000, day: 200 } },
  elite: { voiceMinutes: { month: 600, day: 120 }, chatTurns: { month: 3000, day: 400 } },
}

/** The longest one voice call in the app may run, whatever is left of the budget. */
export const VOICE_CALL_CEILING_SECONDS = 30 * 60
/** A voice call starts only with at least this much left (Vapi's shortest maxDurationSeconds). */
export const VOICE_CALL_MIN_SECONDS = 10

/** So much of a budget: used, the limit, and what is left (never below 0). */
export const UsageAmountSchema = z.object({
  used: z.number().int().nonnegative(),
  limit: z.number().int().nonnegative(),
  left: z.number().int().nonnegative(),
})
export type UsageAmount = z.infer<typeof UsageAmountSchema>

const UsagePeriodSchema = z.object({
  /** Voice seconds counted in the app (the page shows minutes). */
  voiceSeconds: UsageAmountSchema,
  chatTurns: UsageAmountSchema,
  /** When this period's budget starts again: local midnight in `timeZone` (ISO 8601). */
  resetsAt: text(),
})

/** GET /api/account/usage: this month's and today's use of the in-app budget. */
export const AccountUsageResponseSchema = z.object({
  /** The budget tier (null: no plan, nothing in the app to spend). */
  tier: UsageTierSchema.nullable(),
  /** The zone the month and the day are counted in (the profile's). */
  timeZone: text(),
  month: UsagePeriodSchema.extend({ period: text().describe('YYYY-MM, local') }),
  today: UsagePeriodSchema.extend({ date: text().describe('YYYY-MM-DD, local') }),
  /** The longest one voice call may run. */
  callCeilingSeconds: z.number().int().positive(),
})
export type AccountUsageResponse = z.infer<typeof AccountUsageResponseSchema>

/** The web's words for a budget reached (the server's own message says how much and until when). */
export const USAGE_TEXT = {
  chatLimitTitle: 'Chat limit reached',
  voiceLimitTitle: 'Voice minutes used up',
  /** The spec's 'Call Ended' toast, with why: */
  callEndedMonthly: "You've used this month's voice minutes. Your account page shows when they come back.",
  callEndedDaily: "You've used today's voice minutes. You can talk again tomorrow.",
} as const
