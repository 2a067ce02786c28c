import type { Timers } from '#server/jobs/in-process'
import type { fakeClock } from './clock'

type Pending = { at: number; order: number; callback: () => void }

/**
 * Timers that fire only when the test moves the clock: `advanceTo` sets the fake clock to each
 * due timer's instant in turn and runs it, so a schedule is tested on a test clock, never by waiting.
 */
export function manualTimers(clock: ReturnType<typeof fakeClock>) {
  const pending = new Map<number, Pending>()
  let nextId = 1
  const timers: Timers = {
    setTimeout(callback, ms) {
      const id = nextId++
      pending.set(id, { at: clock.now().getTime() + ms, order: id, callback })
      return id
    },
    clearTimeout(handle) {
      pending.delete(handle as number)
    },
  }
  const earliest = () => [...pending.entries()].sort(([, a], [, b]) => a.at - b.at || a.order - b.order)[0]
  return {
    timers,
    /** The instants the armed timers wait for, earliest first. */
    armed: () => [...pending.values()].map((entry) => new Date(entry.at)).sort((a, b) => a.getTime() - b.getTime()),
    /** Moves the clock forward to `to`, firing each timer due by then at its own instant. */
    advanceTo(to: Date) {
      for (let entry = earliest(); entry && entry[1].at <= to.getTime(); entry = earliest()) {
        const [id, timer] = entry
        pending.delete(id)
        if (timer.at > clock.now().getTime()) clock.set(new Date(timer.at))
        timer.callback()
      }
      if (to.getTime() > clock.now().getTime()) clock.set(to)
    },
  }
}
