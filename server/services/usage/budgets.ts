/**
 * The rules of the in-app budget (docs/decisions/061), as pure code over what was used: which tier
 * a person's access puts them on, their month and day in their own zone, how long a voice call may
 * run, and the words of a refusal.
 */
import { Temporal } from 'temporal-polyfill'
import { USAGE_BUDGETS, VOICE_CALL_CEILING_SECONDS, VOICE_CALL_MIN_SECONDS, type AccountUsageResponse, type UsageAmount, type UsageBudget, type UsageTier } from '#common/usage'
import { AppError } from '#server/lib/app-error'
import type { Access } from '#server/services/billing'

/** The zone of a profile that names none we know (the product's default, as the calls use). */
const DEFAULT_TIME_ZONE = 'America/New_York'

/**
 * The tier a person's access puts them on: the free trial while it runs, then the plan. Paid with
 * no plan on record (`payment_status` set by hand) counts as Basic; not paid: no budget.
 */
export function usageTier(access: Pick<Access, 'paid' | 'status' | 'tier'>): UsageTier | null {
  if (!access.paid) return null
  if (access.status === 'trialing') return 'trial'
  return access.tier ?? 'basic'
}

const NO_BUDGET: UsageBudget = { voiceMinutes: { month: 0, day: 0 }, chatTurns: { month: 0, day: 0 } }

const budgetOf = (tier: UsageTier | null): UsageBudget => (tier ? USAGE_BUDGETS[tier] : NO_BUDGET)

/** The person's month and day at an instant: local dates, and the instants each starts again. */
export type Periods = {
  timeZone: string
  /** Today, 'YYYY-MM-DD' local. */
  date: string
  /** 'YYYY-MM'. */
  month: string
  /** The first local date of the month, and of the next one (the month is [from, to)). */
  monthFrom: string
  monthTo: string
  /** Local midnight starting tomorrow, and starting the next month. */
  dayResetsAt: Date
  monthResetsAt: Date
}

/** A zone Temporal knows, else the default (a profile's zone is checked when it is saved; this is a guard). */
function knownZone(timeZone: string | null | undefined): string {
  if (!timeZone) return DEFAULT_TIME_ZONE
  try {
    Temporal.Now.instant().toZonedDateTimeISO(timeZone)
    return timeZone
  } catch {
    return DEFAULT_TIME_ZONE
  }
}

export function periodsOf(now: Date, zone: string | null | undefined): Periods {
  const timeZone = knownZone(zone)
  const today = Temporal.Instant.fromEpochMilliseconds(now.getTime()).toZonedDateTimeISO(timeZone).toPlainDate()
  const first = today.with({ day: 1 })
  const next = first.add({ months: 1 })
  // A date's start in the zone is its first instant (a midnight skipped by a DST change: the first one after).
  const startOf = (date: Temporal.PlainDate) => new Date(date.toZonedDateTime(timeZone).epochMilliseconds)
  return {
    timeZone,
    date: today.toString(),
    month: today.toString().slice(0, 7),
    monthFrom: first.toString(),
    monthTo: next.toString(),
    dayResetsAt: startOf(today.add({ days: 1 })),
    monthResetsAt: startOf(next),
  }
}

/** What was used in the month and on the day. */
export type Used = { voiceMonth: number; voiceDay: number; chatMonth: number; chatDay: number }

const amount = (used: number, limit: number): UsageAmount => ({ used, limit, left: Math.max(0, limit - used) })

/** GET /api/account/usage's answer. */
export function usageView(tier: UsageTier | null, periods: Periods, used: Used): AccountUsageResponse {
  const budget = budgetOf(tier)
  return {
    tier,
    timeZone: periods.timeZone,
    month: {
      period: periods.month,
      resetsAt: periods.monthResetsAt.toISOString(),
      voiceSeconds: amount(used.voiceMonth, budget.voiceMinutes.month * 60),
      chatTurns: amount(used.chatMonth, budget.chatTurns.month),
    },
    today: {
      date: periods.date,
      resetsAt: periods.dayResetsAt.toISOString(),
      voiceSeconds: amount(used.voiceDay, budget.voiceMinutes.day * 60),
      chatTurns: amount(used.chatDay, budget.chatTurns.day),
    },
    callCeilingSeconds: VOICE_CALL_CEILING_SECONDS,
  }
}

/** "July 1": a reset instant as the person's calendar reads it. */
const dayOfMonth = (instant: Date, timeZone: string) => new Intl.DateTimeFormat('en-US', { month: 'long', day: 'numeric', timeZone }).format(instant)
const count = (n: number) => n.toLocaleString('en-US')
const secondsUntil = (instant: Date, now: Date) => Math.max(1, Math.ceil((instant.getTime() - now.getTime()) / 1000))

/** Why a voice call ends when its time is up: the ceiling, or the budget that was shorter. */
export type VoiceLimitReason = 'max-duration' | 'monthly-limit' | 'daily-limit'

export type VoiceAllowance = {
  /** How long the call may run (at most the ceiling). */
  seconds: number
  /** What that length is: the budget that ends the call when it runs out (on a tie, the month's, then the day's). */
  reason: VoiceLimitReason
  /** The local date the call's seconds count against. */
  localDate: string
}

/** How long a voice call started now may run; USAGE_LIMIT_REACHED when less than VOICE_CALL_MIN_SECONDS is left. */
export function voiceAllowance(tier: UsageTier | null, periods: Periods, used: Used, now: Date): VoiceAllowance {
  if (!tier) throw new AppError('PAYMENT_REQUIRED')
  const budget = budgetOf(tier)
  const monthLeft = budget.voiceMinutes.month * 60 - used.voiceMonth
  const dayLeft = budget.voiceMinutes.day * 60 - used.voiceDay
  if (monthLeft < VOICE_CALL_MIN_SECONDS) {
    throw new AppError('USAGE_LIMIT_REACHED', `You've used this month's ${count(budget.voiceMinutes.month)} voice minutes. They come back on ${dayOfMonth(periods.monthResetsAt, periods.timeZone)}.`, {
      retryAfter: secondsUntil(periods.monthResetsAt, now),
    })
  }
  if (dayLeft < VOICE_CALL_MIN_SECONDS) {
    throw new AppError('USAGE_LIMIT_REACHED', `You've used today's ${count(budget.voiceMinutes.day)} voice minutes, the most in one day. You can talk again tomorrow.`, {
      retryAfter: secondsUntil(periods.dayResetsAt, now),
    })
  }
  const seconds = Math.min(VOICE_CALL_CEILING_SECONDS, monthLeft, dayLeft)
  const reason: VoiceLimitReason = seconds === monthLeft ? 'monthly-limit' : seconds === dayLeft ? 'daily-limit' : 'max-duration'
  return { seconds, reason, localDate: periods.date }
}

/** Refuses a chat turn when the month's or the day's turns are spent. */
export function assertChatTurnLeft(tier: UsageTier | null, periods: Periods, used: Used, now: Date): void {
  if (!tier) throw new AppError('PAYMENT_REQUIRED')
  const budget = budgetOf(tier)
  if (used.chatMonth >= budget.chatTurns.month) {
    throw new AppError('USAGE_LIMIT_REACHED', `You've used this month's ${count(budget.chatTurns.month)} messages to your coach. They come back on ${dayOfMonth(periods.monthResetsAt, periods.timeZone)}.`, {
      retryAfter: secondsUntil(periods.monthResetsAt, now),
    })
  }
  if (used.chatDay >= budget.chatTurns.day) {
    throw new AppError('USAGE_LIMIT_REACHED', `You've sent today's ${count(budget.chatTurns.day)} messages to your coach, the most in one day. You can chat again tomorrow.`, {
      retryAfter: secondsUntil(periods.dayResetsAt, now),
    })
  }
}
