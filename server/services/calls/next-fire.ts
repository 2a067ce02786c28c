import { Temporal } from 'temporal-polyfill'

/**
 * When a daily call fires, in the person's own time zone. A call time is a local wall-clock time
 * ('HH:MM'); the instant is computed in the IANA zone for each local date, never by adding 24 hours:
 * - a time that does not exist that day (spring forward) fires at the first valid minute after
 *   it, the moment the clocks jump;
 * - a time that happens twice (fall back) fires once, at its first occurrence.
 */

/** The local date ('YYYY-MM-DD') of an instant in a zone. */
export function localDateOf(instant: Date, timeZone: string): string {
  return Temporal.Instant.fromEpochMilliseconds(instant.getTime()).toZonedDateTimeISO(timeZone).toPlainDate().toString()
}

/** The local wall-clock time ('HH:MM') of an instant in a zone. */
export function localTimeOf(instant: Date, timeZone: string): string {
  return Temporal.Instant.fromEpochMilliseconds(instant.getTime()).toZonedDateTimeISO(timeZone).toPlainTime().toString({ smallestUnit: 'minute' })
}

/** The instant a call set for `localTime` fires on the local date `date` in `timeZone`. */
export function fireInstant(date: string, localTime: string, timeZone: string): Date {
  const wall = Temporal.PlainDate.from(date).toPlainDateTime(Temporal.PlainTime.from(localTime))
  const first = wall.toZonedDateTime(timeZone, { disambiguation: 'earlier' })
  if (Temporal.PlainDateTime.compare(first.toPlainDateTime(), wall) === 0) return new Date(first.epochMilliseconds)
  // The time falls in a gap: the clocks jump over it, and the call fires as they land.
  // ('earlier' resolved it to a time before the gap; the next transition is the gap's end.)
  const transition = first.getTimeZoneTransition('next')
  if (!transition) throw new RangeError(`fireInstant: no transition before ${wall.toString()} in ${timeZone}`)
  return new Date(transition.epochMilliseconds)
}

/** The first instant strictly after `after` at which a call set for `localTime` in `timeZone` fires. */
export function nextFireAfter(after: Date, localTime: string, timeZone: string): Date {
  const today = Temporal.PlainDate.from(localDateOf(after, timeZone))
  for (let offset = -1; offset <= 2; offset++) {
    const fire = fireInstant(today.add({ days: offset }).toString(), localTime, timeZone)
    if (fire.getTime() > after.getTime()) return fire
  }
  throw new RangeError(`nextFireAfter: no fire within two days of ${after.toISOString()} in ${timeZone}`)
}

/** Local hours the product may call at on its own initiative (retries, the evening default). */
const ALLOWED_WINDOW = { from: '08:00', to: '21:00' } as const

/** Whether an instant falls between 8:00 AM and 9:00 PM (inclusive) local time in the zone. */
export function insideAllowedWindow(instant: Date, timeZone: string): boolean {
  const local = Temporal.Instant.fromEpochMilliseconds(instant.getTime()).toZonedDateTimeISO(timeZone).toPlainTime()
  return (
    Temporal.PlainTime.compare(local, Temporal.PlainTime.from(ALLOWED_WINDOW.from)) >= 0 &&
    Temporal.PlainTime.compare(local, Temporal.PlainTime.from(ALLOWED_WINDOW.to)) <= 0
  )
}
