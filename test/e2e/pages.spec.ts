import AxeBuilder from '@axe-core/playwright'
import type { Page } from '@playwright/test'
import { BROWSER_ROUTES } from '#common/routes'
// Each test speaks from its own client address: the server's per-IP limits cover the assets too.
import { expect, gotoReady, test } from './support/fixtures'
import { pausePageClock } from './support/page-clock'

/**
 * The public pages and the route map (spec 1 §2, spec 2 §2), driven the way a visitor would:
 * open a URL, read the heading, follow a link. Runs against the production build.
 */

/** Every screen of the route map (common/routes.ts), opened directly by URL. */
const ROUTE_MAP = BROWSER_ROUTES.map((route) => route.replace('$courseId', 'getting-started'))

const PLANS = [
  { name: 'Basic', price: '$50' },
  { name: 'Premium', price: '$197' },
  { name: 'Elite', price: '$497' },
] as const

/** Axe with the WCAG 2 A and AA rules; returns only the serious and critical violations. */
async function seriousA11yViolations(page: Page, { inPageOnly = false } = {}) {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa']).setLegacyMode(inPageOnly).analyze()
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(({ id, impact, help, nodes }) => ({ id, impact, help, targets: nodes.map((node) => node.target.join(' ')) }))
}

/**
 * Screens that show themselves to a signed-out visitor: the public ones (spec 1 §2) and the two with
 * their own signed-out view (spec 2 §2: diagnostics, course catalogue). Every other screen sends a
 * signed-out visitor to sign in first.
 */
const SHOWN_SIGNED_OUT = new Set(['/', '/splash', '/auth', '/courses', '/debug/edge-functions'])

test.describe('route map', () => {
  for (const path of ROUTE_MAP) {
    test(`${path} loads directly by URL and shows its heading`, async ({ page }) => {
      const response = await page.goto(path)

      expect(response?.status()).toBe(200)
      expect(response?.headers()['content-type']).toContain('text/html')
      if (!SHOWN_SIGNED_OUT.has(path)) {
        // The protected-route wrapper: signed out, so to /auth, coming back here after login.
        await expect(page).toHaveURL(`/auth?returnTo=${encodeURIComponent(path)}`)
      }
      // Exactly one h1 (a second one would make this locator ambiguous and fail).
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible()
    })
  }
})

test.describe('landing page', () => {
  test('introduces the product under the two-word brand', async ({ page }) => {
    await gotoReady(page, '/')

    await expect(page.getByRole('heading', { level: 1, name: 'Momentum Coach' })).toBeVisible()
    await expect(page.getByRole('banner').getByRole('link', { name: 'Momentum Coach' })).toHaveAttribute('href', '/')
    await expect(page.getByRole('heading', { name: 'A coaching call every day' })).toBeVisible()
    await expect(page.getByRole('heading', { name: 'Eight life areas, plus work & career' })).toBeVisible()
    await expect(page).toHaveTitle(/Momentum Coach/)
  })

  test('shows the three plans with their prices, Premium marked most popular', async ({ page }) => {
    await gotoReady(page, '/')

    const plans = page.getByRole('list', { name: 'Plans' })
    await expect(plans).toBeVisible()
    await expect(plans.getByRole('group')).toHaveCount(3)
    for (const { name, price } of PLANS) {
      const card = plans.getByRole('group', { name })
      await expect(card.getByRole('heading', { name })).toBeVisible()
      await expect(card).toContainText(price)
      await expect(card).toContainText('/month')
    }
    await expect(plans.getByRole('group', { name: 'Premium' }).getByText('MOST POPULAR')).toBeVisible()
    await expect(plans.getByRole('group', { name: 'Basic' })).not.toContainText('MOST POPULAR')
    await expect(plans.getByRole('group', { name: 'Basic' })).toContainText('Daily 5-minute accountability calls')
    await expect(plans.getByRole('group', { name: 'Elite' })).toContainText('Everything in Premium')
  })

  test('"Get Started" takes the visitor to sign in', async ({ page }) => {
    await gotoReady(page, '/')

    await page.getByRole('main').getByRole('link', { name: 'Get Started', exact: true }).click()

    await expect(page).toHaveURL(/\/auth$/)
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible()
  })

  test('"Log In" in the header takes the visitor to sign in', async ({ page }) => {
    await gotoReady(page, '/')

    await page.getByRole('banner').getByRole('link', { name: 'Log In' }).click()

    await expect(page).toHaveURL(/\/auth$/)
  })

  test('a plan card leads to account creation', async ({ page }) => {
    await gotoReady(page, '/')

    await page.getByRole('link', { name: 'Get started with Premium' }).click()

    await expect(page).toHaveURL(/\/auth$/)
  })

  test('shows the plans even when the API cannot be reached: they are part of the page', async ({ page }) => {
    await page.route('**/api/**', (route) => route.abort('connectionrefused'))
    await gotoReady(page, '/')

    await expect(page.getByRole('heading', { level: 1, name: 'Momentum Coach' })).toBeVisible()
    await expect(page.getByRole('list', { name: 'Plans' }).getByRole('group')).toHaveCount(3)
    await expect(page.getByRole('alert')).toHaveCount(0)
    await expect(page.getByRole('main').getByRole('link', { name: 'Get Started', exact: true })).toBeVisible()
  })
})

test.describe('splash', () => {
  test('welcomes the visitor, then moves on to sign in after 2 seconds on its clock', async ({ page }) => {
    // The page's clock moves only when the test moves it, and the test counts every millisecond.
    const clock = await pausePageClock(page)
    const heading = page.getByRole('heading', { level: 1, name: 'Welcome to Momentum Coach' })

    await page.goto('/splash')
    const shownBy = await clock.stepUntilVisible(heading)
    await expect(page.getByRole('status')).toBeVisible()

    // Its 2 s count from when it mounted, between 0 and `shownBy` ms in: 1,999 ms in, it is still there...
    await clock.advance(2_000 - shownBy - 1)
    await expect(page).toHaveURL(/\/splash$/)
    await expect(heading).toBeVisible()

    // ...and 2 s after the latest it could have mounted, it has gone to sign in.
    await clock.advance(shownBy + 1)
    await expect(page).toHaveURL(/\/auth$/)
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible()
    await expect(heading).toHaveCount(0)
  })

  test('replaces itself in the history, so Back does not return to it', async ({ page }) => {
    await gotoReady(page, '/')
    await page.goto('/splash')
    await expect(page).toHaveURL(/\/auth$/, { timeout: 6_000 })

    await page.goBack()

    await expect(page).toHaveURL(/\/$/)
  })
})

test.describe('not-found page', () => {
  test('an unknown address says so and offers the way home', async ({ page }) => {
    await page.goto('/this/page/does-not-exist')

    await expect(page.getByRole('heading', { level: 1, name: 'Oops! Page not found' })).toBeVisible()
    await page.getByRole('link', { name: 'Return to Home' }).click()

    await expect(page).toHaveURL(/\/$/)
    await expect(page.getByRole('heading', { level: 1, name: 'Momentum Coach' })).toBeVisible()
  })
})

test.describe('accessibility (axe, WCAG 2 A and AA)', () => {
  test('landing page has no serious or critical violations', async ({ page }) => {
    await gotoReady(page, '/')
    await expect(page.getByRole('list', { name: 'Plans' })).toBeVisible()

    expect(await seriousA11yViolations(page)).toEqual([])
  })

  test('splash has no serious or critical violations', async ({ page }) => {
    // The splash moves on after 2 s of the page's time: the page's clock stands still while axe
    // reads it in one in-page pass (legacy mode: no second page for the results; the splash has no
    // frames), however slow the machine, and it is still the splash afterwards.
    // Axe waits on the page's timers, so the clock moves a millisecond at a time while it runs,
    // far short of the 2 s.
    const clock = await pausePageClock(page)
    await page.goto('/splash')
    const shownAfter = await clock.stepUntilVisible(page.getByRole('heading', { level: 1, name: 'Welcome to Momentum Coach' }))
    let done = false
    const scan = seriousA11yViolations(page, { inPageOnly: true }).finally(() => (done = true))
    let moved = 0
    while (!done && shownAfter + moved < 1000) {
      await clock.advance(1)
      moved += 1
    }
    const violations = await scan
    expect(page.url()).toMatch(/\/splash$/)
    expect(violations).toEqual([])
  })

  test('sign-in page has no serious or critical violations', async ({ page }) => {
    await gotoReady(page, '/auth')
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible()

    expect(await seriousA11yViolations(page)).toEqual([])
  })

  test('not-found page has no serious or critical violations', async ({ page }) => {
    await page.goto('/no-such-page')
    await expect(page.getByRole('heading', { level: 1, name: 'Oops! Page not found' })).toBeVisible()

    expect(await seriousA11yViolations(page)).toEqual([])
  })
})
