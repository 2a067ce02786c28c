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
export const SPECIAL_GOAL_RECORDS = ['company_industry', 'specific_goals'] as const
export const GOAL_RECORD_KINDS = [...LIFE_AREAS, ...SPECIAL_GOAL_RECORDS] as const
export type GoalRecordKind = (typeof GOAL_RECORD_KINDS)[number]

export const COURSE_CATEGORIES = ['product_training', 'marketing', 'business'] as const
export type CourseCategory = (typeof COURSE_CATEGORIES)[number]

export const CALL_STATUSES = [
  'scheduled',
  'queued',
  'in_progress',
  'completed',
  'no_answer',
  'busy',
  'failed',
  'cancelled',
] as const
export type CallStatus = (typeof CALL_STATUSES)[number]

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

export const DEFAULT_PARTNER_PROGRAM = 'GENERAL'
export const PARTNER_PROGRAM_PATTERN = /^[A-Za-z0-9_-]{1,64}$/
