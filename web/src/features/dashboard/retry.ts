/**
 * The dashboard's retry helper: up to 2 retries, waiting 2 s doubled at each
 * attempt plus up to 1 s of random jitter. Pure, so the schedule is tested without timers; the
 * goals and calls queries hand these to TanStack Query (`retry`, `retryDelay`).
 */
export const DASHBOARD_RETRIES = 2
const RETRY_BASE_MS = 2000
const RETRY_JITTER_MS = 1000

/** Whether to try again after `failureCount` failures so far (0 after the first failure). */
export function shouldRetryDashboardLoad(failureCount: number, error?: unknown): boolean {
  // A refusal (signed out, not paid) will not change by asking again.
  const status = (error as { status?: unknown } | undefined)?.status
  if (typeof status === 'number' && status >= 400 && status < 500 && status !== 408 && status !== 429) return false
  return failureCount < DASHBOARD_RETRIES
}

/** The wait before the retry that follows failure number `failureCount + 1`: 2 s, 4 s, … plus [0, 1) s. */
export function dashboardRetryDelay(failureCount: number, random: () => number = Math.random): number {
  const jitter = Math.min(Math.max(random(), 0), 1) * RETRY_JITTER_MS
  return RETRY_BASE_MS * 2 ** failureCount + jitter
}

/** Every wait of one load that keeps failing, in order (for tests and documentation). */
export function dashboardRetrySchedule(random: () => number = Math.random): number[] {
  const waits: number[] = []
  for (let failures = 0; shouldRetryDashboardLoad(failures); failures++) waits.push(dashboardRetryDelay(failures, random))
  return waits
}
