/**
 * The dashboard's "Next call": the first call the person can expect by their plan's slots, in
 * their zone, or why there is none (calls not set up on this server, payment, onboarding, phone,
 * the number texted STOP or is not verified yet, consent, no call time). A paused person is told when calls resume, and the first call after.
 */
import { and, eq, gte, isNotNull, sql } from 'drizzle-orm'
import type { NextCallResponse } from '#common/calls'
import { displayPhoneNumber } from '#common/opt-in'
import type { DbExecutor } from '#server/db/client'
import { coachingCalls } from '#server/db/schema'
import { AppError } from '#server/lib/app-error'
import { localDateOf, localTimeOf } from './next-fire'
import { loadCallPerson, pauseEnd } from './person'
import { nextCallOf } from './planner'

/**
 * The local months ('YYYY-MM') from `fromDate` on in which the person had their goal session (a
 * goal-session call completed). A month without one still owes it: a goal session missed or failed
 * is owed to the next daily call.
 */
async function monthsWithGoalSession(db: DbExecutor, userId: string, fromDate: string): Promise<Set<string>> {
  const rows = await db
    .selectDistinct({ month: sql<string>`left(${coachingCalls.localDate}::text, 7)` })
    .from(coachingCalls)
    .where(
      and(
        eq(coachingCalls.userId, userId),
        eq(coachingCalls.kind, 'goal_session'),
        eq(coachingCalls.completionStatus, 'completed'),
        isNotNull(coachingCalls.localDate),
        gte(coachingCalls.localDate, fromDate),
      ),
    )
  return new Set(rows.map((row) => row.month))
}

export async function nextCall(db: DbExecutor, userId: string, now: Date, callsConfigured: boolean, smsNumber: string): Promise<NextCallResponse> {
  if (!callsConfigured) return { next: null, reason: 'not_configured', pausedUntil: null, startNumber: null }
  const person = await loadCallPerson(db, userId, now)
  if (!person) throw new AppError('NOT_FOUND', 'Your profile could not be found. Please sign in again.')
  const zone = person.timeZone
  const monthStart = `${localDateOf(now, zone).slice(0, 7)}-01`
  const held = await monthsWithGoalSession(db, userId, monthStart)
  const planned = nextCallOf(person, now, (localDate) => !held.has(localDate.slice(0, 7)))
  const resume = pauseEnd(person)
  const pausedUntil = resume && resume.getTime() > now.getTime() ? person.pausedUntil : null
  // A number that texted STOP comes back by a START texted to our number.
  if (planned.call === null) return { next: null, reason: planned.reason, pausedUntil, startNumber: planned.reason === 'stopped' ? displayPhoneNumber(smsNumber) : null }
  const { call } = planned
  return {
    next: {
      at: call.at.toISOString(),
      slot: call.slot,
      // The dialler makes only the daily call a goal session (an evening check-in never is one).
      kind: call.slot === 'daily' ? planned.kind : 'check_in',
      localDate: call.localDate,
      // The wall-clock time the call really happens at (on a spring-forward day, a time in the
      // gap is called as the clocks land, e.g. 3:00 for 2:30).
      localTime: localTimeOf(call.at, zone),
      timeZone: zone,
    },
    reason: null,
    pausedUntil,
    startNumber: null,
  }
}
