/**
 * When a person's calls fall: the slots of their plan at their local times, each local date's fire
 * instant computed in their zone (next-fire.ts), and the first call a person can expect.
 */
import type { CallKind } from '#common/domain'
import type { NoCallReason } from '#common/calls'
import { slotTimes, type CallSlot } from './entitlements'
import { fireInstant, localDateOf, nextFireAfter } from './next-fire'
import { eligibilityOf, type CallPerson } from './person'

type PlannedCall = {
  slot: CallSlot
  /** The person's local date of the call ('YYYY-MM-DD'). */
  localDate: string
  /** The local time it was set for ('HH:MM'). */
  localTime: string
  at: Date
}

const DAY_MS = 86_400_000

/** The local date a day before or after `date`. */
function shiftDate(date: string, days: number): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number]
  return new Date(Date.UTC(y, m - 1, d) + days * DAY_MS).toISOString().slice(0, 10)
}

/**
 * The person's calls whose fire instant lies in [from, to), by the plan's slots (to − from at
 * most a day). Eligibility is the caller's to check; a person without a plan or call time has none.
 */
export function callsBetween(person: CallPerson, from: Date, to: Date): PlannedCall[] {
  const plan = person.access.tier
  if (!plan || !person.dailyCallTime) return []
  const zone = person.timeZone
  const today = localDateOf(from, zone)
  const planned: PlannedCall[] = []
  for (const { slot, time } of slotTimes(plan, person.dailyCallTime, person.eveningCallTime)) {
    for (const localDate of [shiftDate(today, -1), today, shiftDate(today, 1)]) {
      const at = fireInstant(localDate, time, zone)
      if (at.getTime() >= from.getTime() && at.getTime() < to.getTime()) planned.push({ slot, localDate, localTime: time, at })
    }
  }
  return planned.sort((a, b) => a.at.getTime() - b.at.getTime())
}

/** The next call after `now` by the plan's slots (eligibility aside), or null. */
function nextPlannedCall(person: CallPerson, now: Date): PlannedCall | null {
  const plan = person.access.tier
  if (!plan || !person.dailyCallTime) return null
  let best: PlannedCall | null = null
  for (const { slot, time } of slotTimes(plan, person.dailyCallTime, person.eveningCallTime)) {
    const at = nextFireAfter(now, time, person.timeZone)
    if (!best || at.getTime() < best.at.getTime()) best = { slot, localDate: localDateOf(at, person.timeZone), localTime: time, at }
  }
  return best
}

type NextCall = { call: PlannedCall; kind: CallKind } | { call: null; reason: NoCallReason }

/**
 * The first call a person can expect after `now`: the plan's next slot, once a pause has ended
 * (a paused person is told when calls resume), or why there is none.
 * `goalSessionOwed(localDate)` says whether that local month has not had its goal session yet.
 */
export function nextCallOf(person: CallPerson, now: Date, goalSessionOwed: (localDate: string) => boolean): NextCall {
  let from = now
  let eligibility = eligibilityOf(person, now)
  if (!eligibility.eligible && eligibility.reason === 'paused' && person.pausedUntil) {
    const resume = fireInstant(person.pausedUntil, '00:00', person.timeZone)
    from = new Date(resume.getTime() - 1)
    eligibility = eligibilityOf(person, resume)
  }
  if (!eligibility.eligible) return { call: null, reason: eligibility.reason }
  const call = nextPlannedCall(person, from)
  if (!call) return { call: null, reason: 'no_call_time' }
  const goalSession = eligibility.calls.goalSessionSeconds !== null && call.slot === 'daily' && goalSessionOwed(call.localDate)
  return { call, kind: goalSession ? 'goal_session' : 'check_in' }
}

