/**
 * A coach's free 1-on-1 slots (docs/decisions/082), computed from their week in their own zone: each
 * local date's windows (the weekly hours, or the date's exception) become instants through the
 * zone's rules of that date, so a window keeps its wall-clock hours across a DST change; slots step
 * through a window in absolute time, and a slot must end inside it, respect the minimum notice and
 * the horizon, and not touch a busy range (a session or hold plus the buffer after it).
 */
import { Temporal } from 'temporal-polyfill'
import { SESSION_MINUTES } from '#common/coach-sessions'

/** Slots start on the quarter hour (of the window's start). */
const STEP_MINUTES = 15
const MINUTE_MS = 60_000

export type WeeklyWindow = { weekday: number; startTime: string; endTime: string }
export type DateException = { date: string; kind: 'off' | 'extra'; startTime: string | null; endTime: string | null }
type BusyRange = { from: Date; until: Date }

export type SlotRules = {
  timeZone: string
  weekly: readonly WeeklyWindow[]
  exceptions: readonly DateException[]
  bufferMinutes: number
  minNoticeHours: number
  horizonDays: number
}

/** The instant a local wall-clock time names in `timeZone` (a time a spring-forward skipped moves on; an ambiguous one is the earlier). */
function instantOf(localDate: string, localTime: string, timeZone: string): Date {
  const zoned = Temporal.PlainDate.from(localDate).toZonedDateTime({ timeZone, plainTime: Temporal.PlainTime.from(localTime) })
  return new Date(zoned.epochMilliseconds)
}

/** The date's windows: its extra hours and, unless it is a day off, its weekday's hours. */
function windowsOn(date: Temporal.PlainDate, rules: SlotRules): Array<{ startTime: string; endTime: string }> {
  const iso = date.toString()
  const exceptions = rules.exceptions.filter((exception) => exception.date === iso)
  const extra = exceptions.flatMap((exception) => (exception.kind === 'extra' && exception.startTime && exception.endTime ? [{ startTime: exception.startTime, endTime: exception.endTime }] : []))
  if (exceptions.some((exception) => exception.kind === 'off')) return extra
  return [...rules.weekly.filter((window) => window.weekday === date.dayOfWeek), ...extra]
}

/** The free slots' start instants, from `now` + the notice up to `now` + the horizon, earliest first, each once. */
export function freeSlots(rules: SlotRules, busy: readonly BusyRange[], now: Date): Date[] {
  const earliest = now.getTime() + rules.minNoticeHours * 60 * MINUTE_MS
  const latest = now.getTime() + rules.horizonDays * 24 * 60 * MINUTE_MS
  const length = SESSION_MINUTES * MINUTE_MS
  const blockedAfter = (SESSION_MINUTES + rules.bufferMinutes) * MINUTE_MS
  const starts = new Set<number>()
  const today = Temporal.Instant.fromEpochMilliseconds(now.getTime()).toZonedDateTimeISO(rules.timeZone).toPlainDate()
  for (let day = 0; day <= rules.horizonDays + 1; day++) {
    const date = today.add({ days: day })
    for (const window of windowsOn(date, rules)) {
      const from = instantOf(date.toString(), window.startTime, rules.timeZone).getTime()
      const until = instantOf(date.toString(), window.endTime, rules.timeZone).getTime()
      for (let start = from; start + length <= until; start += STEP_MINUTES * MINUTE_MS) {
        if (start < earliest || start > latest) continue
        // The slot with its buffer after must not meet another's (their buffers included).
        const taken = busy.some((range) => start < range.until.getTime() && range.from.getTime() < start + blockedAfter)
        if (!taken) starts.add(start)
      }
    }
  }
  return [...starts].sort((a, b) => a - b).map((ms) => new Date(ms))
}

/** The calendar month (YYYY-MM) of an instant in a zone. */
export function monthOf(instant: Date, timeZone: string): string {
  return Temporal.Instant.fromEpochMilliseconds(instant.getTime()).toZonedDateTimeISO(timeZone).toPlainDate().toString().slice(0, 7)
}
