import type { PlanId } from '#common/plans'
import type { Access } from '#server/services/billing'

/**
 * What each plan's daily calls are (spec 1, plans): Basic one call a day of at most 5 minutes;
 * Premium and Elite two a day (the chosen time and an evening check-in) of at most 10 and 15
 * minutes, the first call of each month being a goal session of up to 30 minutes.
 */
export type PlanCalls = {
  /** The calls of a day: the chosen time, then the evening check-in where the plan has one. */
  slots: readonly CallSlot[]
  /** The longest an ordinary call may run, in seconds (Vapi's maxDurationSeconds). */
  maxDurationSeconds: number
  /** The monthly goal session's limit, in seconds, where the plan has one. */
  goalSessionSeconds: number | null
}

export type CallSlot = 'daily' | 'evening'

export const PLAN_CALLS: Readonly<Record<PlanId, PlanCalls>> = {
  basic: { slots: ['daily'], maxDurationSeconds: 5 * 60, goalSessionSeconds: null },
  premium: { slots: ['daily', 'evening'], maxDurationSeconds: 10 * 60, goalSessionSeconds: 30 * 60 },
  elite: { slots: ['daily', 'evening'], maxDurationSeconds: 15 * 60, goalSessionSeconds: 30 * 60 },
}

/** The evening check-in's local time until the person picks one (inside the 8 AM–9 PM window). */
export const DEFAULT_EVENING_CALL_TIME = '19:00'

/**
 * What a call may not be placed for, in the order they are checked: 'stopped', the number texted
 * STOP (the do-not-contact list); 'unverified', the number is not proven the person's yet.
 */
export type NotCalledReason = 'payment' | 'onboarding' | 'phone' | 'stopped' | 'unverified' | 'consent' | 'paused' | 'no_call_time'

export type CallEligibilityInput = {
  /** The person's access by the one paid rule (billing's decideAccess). */
  access: Pick<Access, 'hasSubscription' | 'tier'>
  onboardingCompleted: boolean
  phoneNumber: string | null
  /** The person proved the number theirs (a START from it, or the code texted to it). */
  phoneProven: boolean
  /** The number is on the do-not-contact list (it texted STOP). */
  phoneStopped: boolean
  /** Whether the person's latest consent-ledger row for calls is a grant. */
  callConsent: boolean
  /** Calls are paused until this instant (exclusive), if set. */
  pausedUntil: Date | null
  /** The chosen local call time ('HH:MM') and its IANA zone. */
  dailyCallTime: string | null
  timeZone: string | null
}

export type CallEligibility = { eligible: true; plan: PlanId; calls: PlanCalls } | { eligible: false; reason: NotCalledReason }

/**
 * Whether a person may be called now: paid by the one paid rule, onboarding completed, a phone
 * number that is proven theirs and did not text STOP, consent given and not withdrawn, calls not
 * paused, and a call time with its zone. It is
 * asked when a call is scheduled and again just before it is dialled.
 */
export function callEligibility(input: CallEligibilityInput, now: Date): CallEligibility {
  if (!input.access.hasSubscription || !input.access.tier) return { eligible: false, reason: 'payment' }
  if (!input.onboardingCompleted) return { eligible: false, reason: 'onboarding' }
  if (!input.phoneNumber) return { eligible: false, reason: 'phone' }
  if (input.phoneStopped) return { eligible: false, reason: 'stopped' }
  if (!input.phoneProven) return { eligible: false, reason: 'unverified' }
  if (!input.callConsent) return { eligible: false, reason: 'consent' }
  if (input.pausedUntil && input.pausedUntil.getTime() > now.getTime()) return { eligible: false, reason: 'paused' }
  if (!input.dailyCallTime || !input.timeZone) return { eligible: false, reason: 'no_call_time' }
  return { eligible: true, plan: input.access.tier, calls: PLAN_CALLS[input.access.tier] }
}

/**
 * The longest a call may run: the plan's limit, or the goal session's on a plan that has one when
 * the call's local month still owes it (`goalSessionOwed`: no goal session of that month was
 * completed; a missed one is owed to the next daily call, its retry included).
 */
export function callDurationLimit(plan: PlanId, goalSessionOwed: boolean): { seconds: number; goalSession: boolean } {
  const calls = PLAN_CALLS[plan]
  if (goalSessionOwed && calls.goalSessionSeconds) return { seconds: calls.goalSessionSeconds, goalSession: true }
  return { seconds: calls.maxDurationSeconds, goalSession: false }
}

/** The local times of a day's calls for a plan: the chosen time, and the evening check-in. */
export function slotTimes(plan: PlanId, dailyCallTime: string, eveningCallTime: string | null): Array<{ slot: CallSlot; time: string }> {
  return PLAN_CALLS[plan].slots.map((slot) => ({ slot, time: slot === 'daily' ? dailyCallTime : (eveningCallTime ?? DEFAULT_EVENING_CALL_TIME) }))
}
