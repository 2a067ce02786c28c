import type { Clock } from '#server/lib/clock'

/** A clock the test moves by hand. */
export function fakeClock(start = new Date('2026-11-21T12:00:00Z')): Clock & { advance(ms: number): void; set(date: Date): void } {
  let current = start.getTime()
  return {
    now: () => new Date(current),
    advance(ms) {
      current += ms
    },
    set(date) {
      current = date.getTime()
    },
  }
}
