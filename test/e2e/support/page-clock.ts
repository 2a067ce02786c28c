import type { Locator, Page } from '@playwright/test'

/** How far `stepUntilVisible` moves the page's clock at a time. */
export const CLOCK_STEP_MS = 10

/**
 * The page's clock, paused (Playwright's clock): it moves only when the test moves it, so a delay
 * the page waits (a spinner after 500 ms, a splash's 2 s) is counted on the page's time, never
 * raced against the machine's. Install it before the page loads.
 */
export async function pausePageClock(page: Page) {
  await page.clock.install({ time: new Date('2026-03-02T09:00:00Z') })
  await page.clock.pauseAt(new Date('2026-03-02T09:01:00Z'))
  let elapsed = 0
  const advance = async (ms: number) => {
    await page.clock.runFor(ms)
    elapsed += ms
  }
  return {
    /** Moves the page's clock by `ms`, firing its timers on the way. */
    advance,
    /**
     * Moves the clock `CLOCK_STEP_MS` at a time until `locator` shows (starting the app and a
     * pending route wait on the page's own timers); it showed during the last step. Returns how far
     * the clock has moved since it was paused.
     */
    async stepUntilVisible(locator: Locator, maxMs = 3000): Promise<number> {
      while (!(await locator.isVisible())) {
        if (elapsed >= maxMs) throw new Error(`${String(locator)} did not show within ${maxMs} ms of the page's clock`)
        await advance(CLOCK_STEP_MS)
      }
      return elapsed
    },
    /** Lets the page's time flow again (axe and the rest of the page need it). */
    resume: () => page.clock.resume(),
  }
}
