/**
 * Support's business hours (docs/decisions/077): Monday to Friday, 9 AM to 5 PM in New York's
 * time (Eastern, with its daylight saving), public holidays not counted. A ticket's first-response
 * target is a number of those hours from its opening.
 */
import { Temporal } from 'temporal-polyfill'

const SUPPORT_TIME_ZONE = 'America/New_York'
const OPENS_AT = 9
const CLOSES_AT = 17

const isWorkday = (day: Temporal.PlainDate) => day.dayOfWeek <= 5

/** 9 AM on the first workday on or after `day`. */
function openingOn(day: Temporal.PlainDate): Temporal.ZonedDateTime {
  let date = day
  while (!isWorkday(date)) date = date.add({ days: 1 })
  return date.toZonedDateTime({ timeZone: SUPPORT_TIME_ZONE, plainTime: new Temporal.PlainTime(OPENS_AT) })
}

/** The moment `hours` of support's business hours after `start` (a start outside them counts from the next opening). */
export function addBusinessHours(start: Date, hours: number): Date {
  let remaining = Math.round(hours * 60 * 60 * 1000)
  let now = Temporal.Instant.fromEpochMilliseconds(start.getTime()).toZonedDateTimeISO(SUPPORT_TIME_ZONE)
  // Each turn uses up one workday at most, so a year of hours is the most it can loop.
  for (let day = 0; day < 400; day++) {
    const date = now.toPlainDate()
    const opening = openingOn(date)
    if (Temporal.ZonedDateTime.compare(now, opening) < 0) now = opening
    const closing = now.toPlainDate().toZonedDateTime({ timeZone: SUPPORT_TIME_ZONE, plainTime: new Temporal.PlainTime(CLOSES_AT) })
    const open = closing.epochMilliseconds - now.epochMilliseconds
    if (open > 0 && remaining <= open) return new Date(now.epochMilliseconds + remaining)
    if (open > 0) remaining -= open
    now = openingOn(now.toPlainDate().add({ days: 1 }))
  }
  throw new RangeError(`${hours} business hours is beyond a year`)
}
