/**
 * When a person's weekly report comes due: Sunday at 6:00 PM on their own wall clock, computed
 * per local date in their IANA zone with Temporal (ADR 035), never by adding 7 × 24 hours: the
 * week that holds a DST change is 167 or 169 hours long. The week a report covers runs from the
 * Sunday before at 6:00 PM to this Sunday at 6:00 PM, local.
 */
import { Temporal } from 'temporal-polyfill'
import { REPORT_LOCAL_TIME } from '#common/reports'
import { fireInstant, localDateOf } from '#server/services/calls'

export type ReportWeek = {
  /** The local date of the Sunday the week ends on. */
  weekEnding: string
  timeZone: string
  /** The Sunday before, 6:00 PM local. */
  periodStart: Date
  /** This Sunday, 6:00 PM local: when the report is due. */
  periodEnd: Date
}

/** The week ending on the Sunday `weekEnding` (a 'YYYY-MM-DD' that is a Sunday) in `timeZone`. */
export function reportWeek(weekEnding: string, timeZone: string): ReportWeek {
  const sunday = Temporal.PlainDate.from(weekEnding)
  if (sunday.dayOfWeek !== 7) throw new RangeError(`reportWeek: ${weekEnding} is not a Sunday`)
  return {
    weekEnding,
    timeZone,
    periodStart: fireInstant(sunday.subtract({ days: 7 }).toString(), REPORT_LOCAL_TIME, timeZone),
    periodEnd: fireInstant(weekEnding, REPORT_LOCAL_TIME, timeZone),
  }
}

/** The latest week whose report is due at or before `now` in `timeZone`. */
export function latestDueWeek(now: Date, timeZone: string): ReportWeek {
  const today = Temporal.PlainDate.from(localDateOf(now, timeZone))
  // dayOfWeek: Monday 1 … Sunday 7; the Sunday on or before today.
  let sunday = today.subtract({ days: today.dayOfWeek % 7 })
  if (fireInstant(sunday.toString(), REPORT_LOCAL_TIME, timeZone).getTime() > now.getTime()) sunday = sunday.subtract({ days: 7 })
  return reportWeek(sunday.toString(), timeZone)
}

/** The first week whose report comes due after `now` in `timeZone`. */
export function nextDueWeek(now: Date, timeZone: string): ReportWeek {
  const latest = latestDueWeek(now, timeZone)
  return reportWeek(Temporal.PlainDate.from(latest.weekEnding).add({ days: 7 }).toString(), timeZone)
}

/** Whether a string names a zone Temporal knows (a profile's zone is checked when saved; this guards the rest). */
export function knownTimeZone(timeZone: string): boolean {
  try {
    Temporal.Now.instant().toZonedDateTimeISO(timeZone)
    return true
  } catch {
    return false
  }
}
