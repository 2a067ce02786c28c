/**
 * How the dashboard's socket to the voice gateway (use-live-call.ts) comes back after it dropped,
 * as plain code (the unit tests run it in Node).
 */

/** Delays before opening the socket again after it dropped: 1 s, 2 s, 4 s… at most a minute. */
export function reconnectDelayMs(attempt: number): number {
  return Math.min(60_000, 1000 * 2 ** Math.max(0, attempt))
}
