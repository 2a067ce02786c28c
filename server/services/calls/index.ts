/**
 * Coaching calls: the user's recent calls and the dashboard's figures, a call's detail, the next
 * call, the schedule the person controls, and the daily call schedule the scheduler reads.
 */
import type { UpdateCallSchedule } from '#common/calls'
import type { User } from '#server/db/schema'
import type { Db } from '#server/db/client'
import type { Clock } from '#server/lib/clock'
import { dashboardStats, recentCalls } from './calls'
import { callDetail } from './detail'
import { nextCall } from './next-call'
import { getCallSchedule, listUsersDueForCall } from './schedule'
import { getCallScheduleSettings, updateCallScheduleSettings } from './schedule-settings'

export { dashboardStats, recentCalls } from './calls'
export { getCallSchedule, listUsersDueForCall, type CallSchedule } from './schedule'
export { ALLOWED_WINDOW, fireInstant, insideAllowedWindow, localDateOf, localTimeOf, nextFireAfter } from './next-fire'
export { callDurationLimit, callEligibility, DEFAULT_EVENING_CALL_TIME, PLAN_CALLS, slotTimes, type CallEligibility, type CallEligibilityInput, type CallSlot, type NotCalledReason, type PlanCalls } from './entitlements'

export { canonicalTimeZone, preferredCallTimeText } from './schedule-settings'

export type Calls = ReturnType<typeof createCalls>

export function createCalls(deps: {
  db: Db
  clock: Clock
  /** Whether this server can place calls (Vapi's assistant and phone number are configured). */
  callsConfigured: boolean
}) {
  const { db, clock, callsConfigured } = deps
  return {
    recent: (userId: string) => recentCalls(db, userId),
    dashboardStats: (user: Pick<User, 'id' | 'createdAt'>) => dashboardStats(db, user),
    /** One of the user's calls with its timeline (404 for anyone else's). */
    detail: (userId: string, callId: string) => callDetail(db, userId, callId),
    /** The first call the user can expect, or why there is none. */
    next: (userId: string) => nextCall(db, userId, clock.now(), callsConfigured),
    getSchedule: (userId: string) => getCallScheduleSettings(db, userId, clock.now()),
    updateSchedule: (userId: string, input: UpdateCallSchedule) => updateCallScheduleSettings(db, userId, input, clock.now()),
    schedule: (userId: string) => getCallSchedule(db, userId),
    dueBetween: (from: Date, to: Date) => listUsersDueForCall(db, from, to),
  }
}
