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
