/** What a throttled warning is logged with: pino's logger and Fastify's both fit. */
type WarnLogger = { warn(details: { err: Error }, message: string): void }

/** How often a throttled warning is logged at the most. */
export const THROTTLED_WARN_MS = 60_000

/**
 * A warning about an error that recurs on every request while it lasts (typically Redis being
 * unavailable, with a fallback taking over): logged at once, then at most once a minute by the
 * `now` clock, with the latest error.
 */
export function throttledWarn(log: WarnLogger, message: string, now: () => number = Date.now): (error: Error) => void {
  let warnedAt = 0
  return (error) => {
    if (now() - warnedAt < THROTTLED_WARN_MS) return
    warnedAt = now()
    log.warn({ err: error }, message)
  }
}
