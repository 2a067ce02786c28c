import type { Page, Route } from '@playwright/test'

/**
 * Holds the page's requests to `url` (those `when` accepts) until `release()` is called, so a
 * loading or pending state can be seen for as long as the test looks at it, never for a guessed
 * time. Held requests then go on with `then` (by default, to the server).
 */
export async function holdRequests(
  page: Page,
  url: string,
  options: { when?: (route: Route) => boolean; then?: (route: Route) => Promise<void> } = {},
): Promise<() => void> {
  let release!: () => void
  const released = new Promise<void>((resolve) => (release = resolve))
  await page.route(url, async (route) => {
    if (options.when && !options.when(route)) return route.continue()
    await released
    await (options.then ? options.then(route) : route.continue())
  })
  return release
}
