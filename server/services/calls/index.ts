/**
 * Coaching calls: the user's recent calls and the dashboard's figures, and the daily call
 * schedule the scheduler reads.
 */
import type { User } from '#server/db/schema'
import type { Db } from '#server/db/client'
import { dashboardStats, recentCalls } from './calls'
import { getCallSchedule, listUsersDueForCall } from './schedule'

export { dashboardStats, recentCalls } from './calls'
export { getCallSchedule, listUsersDueForCall, type CallSchedule } from './schedule'
export { ALLOWED_WINDOW, fireInstant, insideAllowedWindow, localDateOf, localTimeOf, nextFireAfter } from './next-fire'
export {
  CALL_KINDS,
  CALL_REPORT_DESCRIPTION,
  CALL_REPORT_LIMITS,
  CALL_REPORT_OUTPUT,
  CALL_REPORT_SCHEMA,
  CALL_SERVER_MESSAGES,
  CALL_VARIABLES,
  COACH_ASSISTANT_NAME,
  COACH_FIRST_MESSAGE,
  COACH_MODEL,
  COACH_PROMPT,
  COACH_VOICEMAIL_MESSAGE,
  CallReportResult,
  coachAssistant,
  DEFAULT_MAX_DURATION_SECONDS,
  findCallReport,
  VAPI_WEBHOOK_PATH,
  WEBHOOK_HMAC,
  WEBHOOK_SECRET_HEADER,
  WEBHOOK_TIMEOUT_SECONDS,
  type CallKindLabel,
  type CallReport,
  type CallVariable,
  type CallVariables,
  type WebhookServer,
} from './assistant'
export { callDurationLimit, callEligibility, DEFAULT_EVENING_CALL_TIME, PLAN_CALLS, slotTimes, type CallEligibility, type CallEligibilityInput, type CallSlot, type NotCalledReason, type PlanCalls } from './entitlements'

export type Calls = ReturnType<typeof createCalls>

export function createCalls(deps: { db: Db }) {
  const { db } = deps
  return {
    recent: (userId: string) => recentCalls(db, userId),
    dashboardStats: (user: Pick<User, 'id' | 'createdAt'>) => dashboardStats(db, user),
    schedule: (userId: string) => getCallSchedule(db, userId),
    dueBetween: (from: Date, to: Date) => listUsersDueForCall(db, from, to),
  }
}
