/** The time source every service uses, so tests can move time (sessions expire after 30 days). */
export type Clock = { now(): Date }
export const systemClock: Clock = { now: () => new Date() }

/**
 * The timer functions the app arms (the in-process job runner, the voice gateway's caps). Tests
 * pass timers that fire only when they move the test clock (test/helpers/timers.ts), so every
 * timeout is driven by the clock, never waited for.
 */
export type Timers = {
  setTimeout(callback: () => void, ms: number): unknown
  clearTimeout(handle: unknown): void
}

export const realTimers: Timers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms).unref(),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
}
