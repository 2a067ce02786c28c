/** Value lists the spec fixes, shared by the database checks, the server and the web. */

export const LIFE_AREAS = [
  'faith',
  'family',
  'fitness',
  'finance',
  'friends',
  'fun',
  'service',
  'personal_development',
] as const
export type LifeArea = (typeof LIFE_AREAS)[number]

/** The two goal records that are not life areas. */
const SPECIAL_GOAL_RECORDS = ['company_industry', 'specific_goals'] as const
export const GOAL_RECORD_KINDS = [...LIFE_AREAS, ...SPECIAL_GOAL_RECORDS] as const
export type GoalRecordKind = (typeof GOAL_RECORD_KINDS)[number]

export const COURSE_CATEGORIES = ['product_training', 'marketing', 'business'] as const
export type CourseCategory = (typeof COURSE_CATEGORIES)[number]

/**
 * A coaching call's status as the dashboard shows it: where a live call is (scheduled → dialling →
 * queued → ringing → in_progress), then how it ended. Only moves forward (CALL_STATUS_RANK).
 */
const LIVE_CALL_STATUSES = ['scheduled', 'dialling', 'queued', 'ringing', 'in_progress'] as const
export const FINAL_CALL_STATUSES = ['completed', 'no_answer', 'busy', 'voicemail', 'failed', 'cancelled', 'skipped'] as const
export const CALL_STATUSES = [...LIVE_CALL_STATUSES, ...FINAL_CALL_STATUSES] as const
export type FinalCallStatus = (typeof FINAL_CALL_STATUSES)[number]
/** Outcomes that mean the person was not reached (a retry may follow). */
export const NOT_REACHED_STATUSES = ['no_answer', 'busy', 'voicemail'] as const satisfies readonly FinalCallStatus[]

/**
 * The calls of a day: the chosen time, the evening check-in, and a test call asked for with "Call
 * me now"; and `web`, a voice call the person started in the app (the voice gateway), no slot of a day.
 */
export const CALL_SLOTS = ['daily', 'evening', 'test', 'web'] as const
export type CallSlotName = (typeof CALL_SLOTS)[number]
/**
 * An ordinary check-in, the monthly goal session (first call of a month on Premium and Elite), or
 * a voice call in the app (`web`).
 */
export const CALL_KINDS = ['check_in', 'goal_session', 'web'] as const
export type CallKind = (typeof CALL_KINDS)[number]

export type CallStatus = (typeof CALL_STATUSES)[number]
export const isFinalCallStatus = (status: string): status is FinalCallStatus => (FINAL_CALL_STATUSES as readonly string[]).includes(status)

export const SUBSCRIPTION_STATUSES = [
  'active',
  'trialing',
  'past_due',
  'canceled',
  'unpaid',
  'incomplete',
  'incomplete_expired',
  'paused',
] as const
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number]

export const SATISFACTION_MIN = 1
export const SATISFACTION_MAX = 10

export { DEFAULT_PARTNER_PROGRAM, PARTNER_PROGRAM_PATTERN } from './partner-program'
