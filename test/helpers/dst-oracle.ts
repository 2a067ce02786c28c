/**
 * An oracle for when a daily call fires, independent of the Temporal code under test: it asks
 * Intl.DateTimeFormat for the wall clock of instants and, on a day whose UTC offset changes, scans
 * the day minute by minute for the first minute at or after the call time. That minute is the
 * first occurrence of an ambiguous time, and the first valid minute after a time that does not exist.
 */
const MINUTE = 60_000
const HOUR = 60 * MINUTE

const formatters = new Map<string, Intl.DateTimeFormat>()
function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone)
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
    })
    formatters.set(timeZone, f)
  }
  return f
}

/** The wall clock of an instant: its local date and minutes since local midnight. */
function wallClock(ms: number, timeZone: string): { date: string; minutes: number; asUtc: number } {
  const parts = Object.fromEntries(formatter(timeZone).formatToParts(ms).map((p) => [p.type, p.value]))
  const date = `${parts.year}-${parts.month}-${parts.day}`
  const minutes = Number(parts.hour) * 60 + Number(parts.minute)
  return { date, minutes, asUtc: Date.parse(`${date}T00:00:00Z`) + minutes * MINUTE }
}

const offsetAt = (ms: number, timeZone: string) => wallClock(ms, timeZone).asUtc - Math.floor(ms / MINUTE) * MINUTE

const scans = new Map<string, Array<{ ms: number; date: string; minutes: number }>>()

/** The instant a call set for `localTime` ('HH:MM') fires on local `date` in `timeZone`. */
export function oracleFireInstant(date: string, localTime: string, timeZone: string): Date {
  const [hours, minutes] = localTime.split(':').map(Number) as [number, number]
  const target = hours * 60 + minutes
  const midnightUtc = Date.parse(`${date}T00:00:00Z`)
  const windowStart = midnightUtc - 16 * HOUR
  const windowEnd = midnightUtc + 40 * HOUR
  const before = offsetAt(windowStart, timeZone)
  if (before === offsetAt(windowEnd, timeZone)) return new Date(midnightUtc + target * MINUTE - before)
  // The offset changes near this day: walk it minute by minute.
  const key = `${timeZone} ${date}`
  let minutesOfDay = scans.get(key)
  if (!minutesOfDay) {
    minutesOfDay = []
    for (let ms = windowStart; ms <= windowEnd; ms += MINUTE) {
      const wall = wallClock(ms, timeZone)
      if (wall.date === date) minutesOfDay.push({ ms, date: wall.date, minutes: wall.minutes })
    }
    scans.set(key, minutesOfDay)
  }
  const hit = minutesOfDay.find((m) => m.minutes >= target)
  if (!hit) throw new Error(`oracle: ${localTime} never comes on ${date} in ${timeZone}`)
  return new Date(hit.ms)
}

/**
 * `fireInstant` against the oracle for every zone, every half hour and every date from `from` to
 * `to`: how many instants were compared, and each disagreement.
 */
export function compareWithOracle(
  fireInstant: (date: string, time: string, timeZone: string) => Date,
  zones: readonly string[],
  from: string,
  to: string,
): { compared: number; disagreements: string[] } {
  let compared = 0
  const disagreements: string[] = []
  for (const zone of zones) {
    for (const date of datesBetween(from, to)) {
      for (const time of HALF_HOURS) {
        compared += 1
        const ours = fireInstant(date, time, zone).getTime()
        const oracle = oracleFireInstant(date, time, zone).getTime()
        if (ours !== oracle) disagreements.push(`${zone} ${date} ${time}: ${new Date(ours).toISOString()} vs ${new Date(oracle).toISOString()}`)
      }
    }
  }
  return { compared, disagreements }
}

/** Every local date from `from` to `to` inclusive ('YYYY-MM-DD'). */
export function* datesBetween(from: string, to: string): Generator<string> {
  for (let ms = Date.parse(`${from}T00:00:00Z`); ms <= Date.parse(`${to}T00:00:00Z`); ms += 24 * HOUR) {
    yield new Date(ms).toISOString().slice(0, 10)
  }
}

/** The 48 half-hour call times of a day, 'HH:MM'. */
export const HALF_HOURS = Array.from({ length: 48 }, (_, i) => `${String(Math.floor(i / 2)).padStart(2, '0')}:${i % 2 ? '30' : '00'}`)
