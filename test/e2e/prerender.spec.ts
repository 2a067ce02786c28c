import type { Page } from '@playwright/test'
import { PLANS } from '#common/plan-catalogue'
import { expect, test } from './support/fixtures'
import { signUpViaApi } from './support/users'

/**
 * The prerendered pages (docs/decisions/052): `/` and `/auth` arrive as complete HTML, and the app
 * hydrates them without a warning, without changing what shows and without moving anything.
 */

const price = (dollars: number) => `$${dollars}`

/**
 * Records, from before the page's own scripts run, what a visitor sees before JavaScript: the h1
 * element and the text of <main> when the HTML has been parsed, the layout shifts, and every h1
 * text that ever shows (to catch a flash of another screen).
 */
async function watchFirstPaint(page: Page) {
  await page.addInitScript(() => {
    const probe = { layoutShift: 0, headings: [] as string[], heading: null as Element | null, mainText: '' }
    Object.assign(window, { __probe: probe })
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries() as Array<PerformanceEntry & { value: number; hadRecentInput: boolean }>) {
        if (!entry.hadRecentInput) probe.layoutShift += entry.value
      }
    }).observe({ type: 'layout-shift', buffered: true })
    const noteHeading = () => {
      const text = document.querySelector('h1')?.textContent ?? ''
      if (text && probe.headings.at(-1) !== text) probe.headings.push(text)
    }
    new MutationObserver(noteHeading).observe(document, { childList: true, subtree: true, characterData: true })
    document.addEventListener('DOMContentLoaded', () => {
      probe.heading = document.querySelector('h1')
      probe.mainText = (document.querySelector('main') as HTMLElement | null)?.innerText ?? ''
      noteHeading()
    })
  })
}

/** Waits until React owns the prerendered h1 (hydration adopts the nodes the HTML made). */
async function waitForHydration(page: Page) {
  await expect
    .poll(() =>
      page.evaluate(() => {
        const heading = (window as unknown as { __probe: { heading: Element | null } }).__probe.heading
        return Boolean(heading && Object.keys(heading).some((key) => key.startsWith('__reactFiber')))
      }),
    )
    .toBe(true)
}

function collectConsole(page: Page): string[] {
  const messages: string[] = []
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') messages.push(`${message.type()}: ${message.text()}`)
  })
  page.on('pageerror', (error) => messages.push(`pageerror: ${error.message}`))
  return messages
}

/** After hydration: the same nodes, the same text, nothing moved, nothing said in the console. */
async function expectHydratedUnchanged(page: Page, messages: string[]) {
  await waitForHydration(page)
  const after = await page.evaluate(() => {
    const probe = (window as unknown as { __probe: { heading: Element; mainText: string; layoutShift: number } }).__probe
    return {
      sameHeading: probe.heading.isConnected && probe.heading === document.querySelector('h1'),
      mainTextBefore: probe.mainText,
      mainTextNow: (document.querySelector('main') as HTMLElement).innerText,
      layoutShift: probe.layoutShift,
    }
  })
  expect(after.sameHeading).toBe(true)
  expect(after.mainTextNow).toBe(after.mainTextBefore)
  expect(after.layoutShift).toBe(0)
  expect(messages).toEqual([])
}

test.describe('the landing page', () => {
  test('arrives as complete HTML: the headline and the three plans with their prices, before any JavaScript', async ({ page, request, baseURL }) => {
    const raw = await request.get('/')
    expect(raw.status()).toBe(200)
    const html = await raw.text()
    expect(html).toContain('data-prerendered="anyone"')
    expect(html).toMatch(/<h1 id="hero-heading"[^>]*>.*Momentum.*Coach.*<\/h1>/s)
    for (const plan of PLANS) {
      expect(html).toContain(`>${plan.name}</h3>`)
      expect(html).toContain(`>${price(plan.priceMonthly)}</span>`)
    }

    // The same HTML in a browser that runs no script: the page is all there.
    const browser = page.context().browser()!
    const noScript = await browser.newContext({ javaScriptEnabled: false, baseURL })
    try {
      const bare = await noScript.newPage()
      await bare.goto('/')
      await expect(bare.getByRole('heading', { level: 1, name: 'Momentum Coach' })).toBeVisible()
      const plans = bare.getByRole('list', { name: 'Plans' })
      await expect(plans.getByRole('group')).toHaveCount(3)
      for (const plan of PLANS) {
        await expect(plans.getByRole('group', { name: plan.name })).toContainText(`${price(plan.priceMonthly)}/month`)
      }
      await expect(plans.getByRole('group', { name: 'Premium' })).toContainText('MOST POPULAR')
      // Its links work without the app.
      await bare.getByRole('main').getByRole('link', { name: 'Get Started', exact: true }).click()
      await expect(bare).toHaveURL(/\/auth$/)
    } finally {
      await noScript.close()
    }
  })

  test('hydrates without a warning, a change or a layout shift, and never asks the API', async ({ page }) => {
    const messages = collectConsole(page)
    const apiRequests: string[] = []
    page.on('request', (request) => {
      if (new URL(request.url()).pathname.startsWith('/api/')) apiRequests.push(request.url())
    })
    await watchFirstPaint(page)

    await page.goto('/')
    await expectHydratedUnchanged(page, messages)
    await page.waitForLoadState('networkidle')
    expect(apiRequests).toEqual([])
    expect(messages).toEqual([])

    // The app runs it now: a link is a navigation inside the page, not a new document.
    await page.evaluate(() => Object.assign(window, { __samePage: true }))
    await page.getByRole('banner').getByRole('link', { name: 'Log In' }).click()
    await expect(page).toHaveURL(/\/auth$/)
    await expect(page.getByRole('heading', { level: 1, name: 'Log in or create your account' })).toBeVisible()
    expect(await page.evaluate(() => (window as unknown as { __samePage?: boolean }).__samePage)).toBe(true)
  })
})

test.describe('the landing page, read before the app has loaded', () => {
  test('a visitor who scrolled stays where they are when it hydrates', async ({ page }) => {
    const messages = collectConsole(page)
    let release!: () => void
    const released = new Promise<void>((resolve) => (release = resolve))
    // Hold the app's entry chunk until the visitor has scrolled.
    await page.route(/\/assets\/index-[\w-]+\.js$/, async (route) => {
      await released
      await route.continue()
    })
    await watchFirstPaint(page)
    await page.goto('/', { waitUntil: 'domcontentloaded' })
    await page.getByRole('heading', { name: 'Choose the coaching that fits you' }).scrollIntoViewIfNeeded()
    const scrolled = await page.evaluate(() => window.scrollY)
    expect(scrolled).toBeGreaterThan(500)

    release()
    await expectHydratedUnchanged(page, messages)
    await page.waitForLoadState('networkidle')
    expect(await page.evaluate(() => window.scrollY)).toBe(scrolled)
  })
})

test.describe('/auth', () => {
  test('signed out: the sign-in tabs arrive as HTML and hydrate unchanged; the session needs no request', async ({ page }) => {
    const messages = collectConsole(page)
    const sessionChecks: string[] = []
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/api/me') sessionChecks.push(request.url())
    })
    await watchFirstPaint(page)

    await page.goto('/auth?returnTo=%2Fcourses')
    await expectHydratedUnchanged(page, messages)
    await page.waitForLoadState('networkidle')
    expect(sessionChecks).toEqual([])

    // The form works: validation loads on first focus, and a refused submit shows its messages.
    await page.getByRole('tabpanel', { name: 'Login' }).getByRole('button', { name: 'Log In' }).click()
    await expect(page.getByText('Email is required')).toBeVisible()
    expect(messages).toEqual([])
  })

  test('what was typed (or filled in by a password manager) before the app hydrated is what it sends', async ({ page }) => {
    let release!: () => void
    const released = new Promise<void>((resolve) => (release = resolve))
    await page.route(/\/assets\/index-[\w-]+\.js$/, async (route) => {
      await released
      await route.continue()
    })
    const logins: unknown[] = []
    await page.route('**/api/auth/login', async (route) => {
      logins.push(route.request().postDataJSON())
      await route.fulfill({ status: 401, json: { error: { code: 'INVALID_CREDENTIALS', message: 'Invalid email or password' } } })
    })
    await watchFirstPaint(page)
    await page.goto('/auth', { waitUntil: 'domcontentloaded' })
    const login = page.getByRole('tabpanel', { name: 'Login' })
    await login.getByLabel('Email', { exact: true }).fill('early@example.com')
    await login.getByLabel('Password', { exact: true }).fill('typed-before-hydration')

    release()
    await waitForHydration(page)
    await expect(login.getByLabel('Email', { exact: true })).toHaveValue('early@example.com')
    await login.getByRole('button', { name: 'Log In' }).click()
    await expect.poll(() => logins).toEqual([{ email: 'early@example.com', password: 'typed-before-hydration' }])
  })

  test('before the app runs, the form cannot send what was typed to the address bar', async ({ page, baseURL }) => {
    const browser = page.context().browser()!
    const noScript = await browser.newContext({ javaScriptEnabled: false, baseURL })
    try {
      const bare = await noScript.newPage()
      await bare.goto('/auth')
      const login = bare.getByRole('tabpanel', { name: 'Login' })
      await login.getByLabel('Email', { exact: true }).fill('someone@example.com')
      await login.getByLabel('Password', { exact: true }).fill('a-secret-password')
      await login.getByLabel('Password', { exact: true }).press('Enter')
      await login.getByRole('button', { name: 'Log In' }).click()
      await bare.waitForTimeout(300) // a submission would be navigating by now
      expect(bare.url()).toBe(`${baseURL}/auth`)
    } finally {
      await noScript.close()
    }
  })

  test('signed in: the HTML says so, and the sign-in form never shows on the way on', async ({ page, request }) => {
    await signUpViaApi(page)
    const cookies = await page.context().cookies()
    const raw = await request.get('/auth', { headers: { cookie: cookies.map((c) => `${c.name}=${c.value}`).join('; ') } })
    const html = await raw.text()
    expect(html).toContain('data-prerendered="signed-in"')
    expect(html).toContain('You&#x27;re signed in')
    expect(html).not.toContain('Log in or create your account')

    const messages = collectConsole(page)
    await watchFirstPaint(page)
    await page.goto('/auth')
    await expect(page).toHaveURL('/payment')
    const headings = await page.evaluate(() => (window as unknown as { __probe: { headings: string[] } }).__probe.headings)
    expect(headings[0]).toBe("You're signed in")
    expect(headings).not.toContain('Log in or create your account')
    expect(messages).toEqual([])
  })
})
