import type { Locator, Page, TestInfo } from '@playwright/test'
import { seriousA11yViolations } from './support/a11y'
import { expect, test } from './support/fixtures'
import { signUpViaApi } from './support/users'

/**
 * The one navigation of the signed-in app (issue 18, docs/decisions/048), in Chromium at a desktop
 * width (1280 px: the header bar) and a phone width (390 px: the Menu button and its drawer): from
 * the dashboard to the chat, the courses and back, by mouse and then by keyboard alone, with
 * aria-current on the right link, focus on the new page's heading, axe on every page and a
 * screenshot of each kept with the test's results.
 */

const DESKTOP = { width: 1280, height: 800 }
const PHONE = { width: 390, height: 844 }

type Screen = { link: 'Dashboard' | 'Coach' | 'Courses'; path: string; heading: string }
const DASHBOARD: Screen = { link: 'Dashboard', path: '/dashboard', heading: 'Coaching Dashboard' }
const CHAT: Screen = { link: 'Coach', path: '/chat', heading: 'Hi Jordan! How can I help you today?' }
const COURSES: Screen = { link: 'Courses', path: '/courses', heading: 'Course Platform' }
const LINKS = [DASHBOARD, CHAT, COURSES]

/** A screenshot of the viewport, kept as an artifact of the test (its output folder and its attachments). */
async function keepScreenshot(page: Page, testInfo: TestInfo, name: string) {
  const path = testInfo.outputPath(`${name}.png`)
  await page.screenshot({ path })
  await testInfo.attach(name, { path, contentType: 'image/png' })
}

const mainNav = (page: Page) => page.getByRole('navigation', { name: 'Main' })
const navLink = (page: Page, name: string) => mainNav(page).getByRole('link', { name, exact: true })
const heading = (page: Page, screen: Screen) => page.getByRole('heading', { level: 1, name: screen.heading, exact: true })
const menuButton = (page: Page) => page.getByRole('banner').getByRole('button', { name: 'Menu', exact: true })
const drawer = (page: Page) => page.getByRole('dialog', { name: 'Menu' })

/** The drawer's links are only there while it is open: on a phone, open it first. */
async function openMenu(page: Page) {
  await menuButton(page).click()
  await expect(drawer(page)).toBeVisible()
}

/** aria-current="page" on the current screen's link only; every link a real link to its page. */
async function expectCurrent(page: Page, current: Screen) {
  for (const screen of LINKS) {
    const link = navLink(page, screen.link)
    await expect(link).toHaveAttribute('href', screen.path)
    if (screen === current) await expect(link).toHaveAttribute('aria-current', 'page')
    else await expect(link).not.toHaveAttribute('aria-current')
  }
  await expect(mainNav(page).locator('[aria-current]')).toHaveCount(1)
}

/** Presses `key` until `target` has focus (at most `limit` presses), so the test moves as a keyboard user would. */
async function pressUntilFocused(page: Page, key: 'Tab' | 'Shift+Tab', target: Locator, limit = 20) {
  for (let presses = 0; presses < limit; presses++) {
    await page.keyboard.press(key)
    if (await target.evaluate((element) => element === document.activeElement)) return
  }
  throw new Error(`${limit} presses of ${key} never reached ${target.toString()}`)
}

/** The focused element's role-ish name, for asserting the keyboard order. */
async function focusedName(page: Page): Promise<string> {
  return page.evaluate(() => {
    const element = document.activeElement as HTMLElement | null
    return element?.getAttribute('aria-label') ?? element?.textContent?.trim() ?? ''
  })
}

/** Arrived: the URL, the heading (focused after a client-side navigation) and nothing serious for axe. */
async function arrive(page: Page, testInfo: TestInfo, screen: Screen, label: string) {
  await expect(page).toHaveURL(screen.path)
  await expect(heading(page, screen)).toBeFocused()
  expect(await seriousA11yViolations(page)).toEqual([])
  await keepScreenshot(page, testInfo, label)
}

test.describe('desktop (1280 px): the header bar', () => {
  test.use({ viewport: DESKTOP })

  test('from the dashboard to the coach, the courses and back by mouse; aria-current, focus and axe on each page', async ({ page }, testInfo) => {
    await signUpViaApi(page, { paid: 'basic', fullName: 'Jordan Rivera' })
    await page.goto('/dashboard')
    await expect(heading(page, DASHBOARD)).toBeVisible()
    // A first load leaves focus to the browser: the skip link is the first stop.
    await expect(heading(page, DASHBOARD)).not.toBeFocused()

    const banner = page.getByRole('banner')
    await expect(mainNav(page).getByRole('link')).toHaveText(['Dashboard', 'Coach', 'Courses', 'Reports', 'Progress', 'Account', 'Help'])
    await expect(banner.getByText('Jordan Rivera', { exact: true })).toBeVisible()
    // The dashboard keeps its spec's 'Logout' (spec 2 §2), from the shared navigation, and its own header controls.
    await expect(banner.getByRole('button', { name: 'Logout', exact: true })).toBeVisible()
    await expect(page.getByRole('main').getByRole('link', { name: 'Edit Goals' })).toHaveAttribute('href', '/goal-intake')
    await expect(page.getByTestId('subscription-badge')).toBeVisible()
    await expectCurrent(page, DASHBOARD)
    expect(await seriousA11yViolations(page)).toEqual([])
    await keepScreenshot(page, testInfo, 'dashboard-1280')

    await navLink(page, 'Coach').click()
    await arrive(page, testInfo, CHAT, 'chat-1280')
    await expectCurrent(page, CHAT)
    // The chat keeps its sidebar and header controls (spec 2 §2); elsewhere the button reads 'Log Out'.
    await expect(page.getByRole('complementary', { name: 'Conversation history' }).getByRole('button', { name: 'Log Out' })).toBeVisible()
    await expect(page.getByRole('main').getByRole('link', { name: 'Courses' })).toHaveAttribute('href', '/courses')
    await expect(page.getByRole('main').getByRole('button', { name: 'Voice responses' })).toBeVisible()
    await expect(banner.getByRole('button', { name: 'Log Out', exact: true })).toBeVisible()

    await navLink(page, 'Courses').click()
    await arrive(page, testInfo, COURSES, 'courses-1280')
    await expectCurrent(page, COURSES)

    await navLink(page, 'Dashboard').click()
    await expect(page).toHaveURL(DASHBOARD.path)
    await expect(heading(page, DASHBOARD)).toBeFocused()
    await expectCurrent(page, DASHBOARD)
  })

  test('the same trip by keyboard alone, in the natural order: skip link, brand, links, Log Out, the page', async ({ page }, testInfo) => {
    await signUpViaApi(page, { paid: 'basic', fullName: 'Jordan Rivera' })
    await page.goto('/dashboard')
    await expect(heading(page, DASHBOARD)).toBeVisible()

    const order: string[] = []
    for (let i = 0; i < 11; i++) {
      await page.keyboard.press('Tab')
      order.push(await focusedName(page))
    }
    expect(order).toEqual(['Skip to main content', 'Momentum Coach', 'Dashboard', 'Coach', 'Courses', 'Reports', 'Progress', 'Account', 'Help', 'Logout', 'Edit Goals'])

    // The skip link jumps to the main content.
    await pressUntilFocused(page, 'Shift+Tab', page.getByRole('link', { name: 'Skip to main content' }))
    await page.keyboard.press('Enter')
    await expect(page.locator('#main-content')).toBeFocused()

    // Back up to the navigation, and on to the coach.
    await pressUntilFocused(page, 'Shift+Tab', navLink(page, 'Coach'))
    await page.keyboard.press('Enter')
    await arrive(page, testInfo, CHAT, 'chat-1280-keyboard')
    await expectCurrent(page, CHAT)

    // From the chat's heading, back through its sidebar to the navigation, to the courses.
    await pressUntilFocused(page, 'Shift+Tab', navLink(page, 'Courses'))
    await page.keyboard.press('Enter')
    await arrive(page, testInfo, COURSES, 'courses-1280-keyboard')
    await expectCurrent(page, COURSES)

    await pressUntilFocused(page, 'Shift+Tab', navLink(page, 'Dashboard'))
    await page.keyboard.press('Enter')
    await arrive(page, testInfo, DASHBOARD, 'dashboard-1280-keyboard')
    await expectCurrent(page, DASHBOARD)
  })

  test('a page inside a section marks its link aria-current="true"; /home is the dashboard page', async ({ page }) => {
    await signUpViaApi(page, { paid: 'basic' })

    await page.goto('/courses')
    await page.getByRole('main').getByRole('link', { name: 'Getting Started with Momentum Coach' }).click()
    await expect(page).toHaveURL(/\/courses\/[^/]+$/)
    await expect(page.getByRole('heading', { level: 1, name: 'Getting Started with Momentum Coach' })).toBeFocused()
    await expect(navLink(page, 'Courses')).toHaveAttribute('aria-current', 'true')
    await expect(navLink(page, 'Dashboard')).not.toHaveAttribute('aria-current')

    await page.goto('/home')
    await expect(heading(page, DASHBOARD)).toBeVisible()
    await expect(navLink(page, 'Dashboard')).toHaveAttribute('aria-current', 'page')
  })
})

// The drawer serves every width below 1024 px (the lg breakpoint), phones included.
test.describe('phone (390 px): the Menu button and its drawer', () => {
  test.use({ viewport: PHONE })

  test('from the dashboard to the coach, the courses and back by touch; aria-current, focus and axe on each page', async ({ page }, testInfo) => {
    await signUpViaApi(page, { paid: 'basic', fullName: 'Jordan Rivera' })
    await page.goto('/dashboard')
    await expect(heading(page, DASHBOARD)).toBeVisible()
    // The bar's links are not shown on a phone; the Menu button is.
    await expect(mainNav(page)).toHaveCount(0)
    await expect(menuButton(page)).toHaveAttribute('aria-expanded', 'false')
    expect(await seriousA11yViolations(page)).toEqual([])
    await keepScreenshot(page, testInfo, 'dashboard-390')

    await openMenu(page)
    // (While the drawer is open, the page behind it is hidden from assistive technology: found by its label here.)
    await expect(page.locator('header button[aria-label="Menu"]')).toHaveAttribute('aria-expanded', 'true')
    await expect(mainNav(page).getByRole('link')).toHaveText(['Dashboard', 'Coach', 'Courses', 'Reports', 'Progress', 'Account', 'Help'])
    await expect(drawer(page).getByText('Jordan Rivera', { exact: true })).toBeVisible()
    await expect(drawer(page).getByRole('button', { name: 'Logout', exact: true })).toBeVisible()
    await expectCurrent(page, DASHBOARD)
    expect(await seriousA11yViolations(page)).toEqual([])
    await keepScreenshot(page, testInfo, 'menu-390')

    await navLink(page, 'Coach').click()
    await expect(drawer(page)).toHaveCount(0)
    await arrive(page, testInfo, CHAT, 'chat-390')
    // The chat's conversation history still opens and closes through its overlay (spec 2 §2).
    await page.getByRole('button', { name: 'Open conversations' }).click()
    const history = page.getByRole('complementary', { name: 'Conversation history' })
    await expect(history).toBeVisible()
    await page.getByTestId('sidebar-overlay').click({ position: { x: 370, y: 400 } })
    await expect(history).toBeHidden()
    await openMenu(page)
    await expectCurrent(page, CHAT)

    await navLink(page, 'Courses').click()
    await arrive(page, testInfo, COURSES, 'courses-390')
    await openMenu(page)
    await expectCurrent(page, COURSES)

    await navLink(page, 'Dashboard').click()
    await expect(page).toHaveURL(DASHBOARD.path)
    await expect(heading(page, DASHBOARD)).toBeFocused()
  })

  test('the same trip by keyboard alone: Menu, the links in the drawer, Escape back to Menu', async ({ page }, testInfo) => {
    await signUpViaApi(page, { paid: 'basic', fullName: 'Jordan Rivera' })
    await page.goto('/dashboard')
    await expect(heading(page, DASHBOARD)).toBeVisible()

    const order: string[] = []
    for (let i = 0; i < 4; i++) {
      await page.keyboard.press('Tab')
      order.push(await focusedName(page))
    }
    expect(order).toEqual(['Skip to main content', 'Momentum Coach', 'Menu', 'Edit Goals'])

    // Escape closes the drawer and gives focus back to Menu.
    await page.keyboard.press('Shift+Tab')
    await expect(menuButton(page)).toBeFocused()
    await page.keyboard.press('Enter')
    await expect(drawer(page)).toBeVisible()
    await page.keyboard.press('Escape')
    await expect(drawer(page)).toHaveCount(0)
    await expect(menuButton(page)).toBeFocused()

    await page.keyboard.press('Enter')
    await expect(drawer(page)).toBeVisible()
    // In the drawer: Close, then the links in order; Tab stays inside it.
    await expect(drawer(page).getByRole('button', { name: 'Close menu' })).toBeFocused()
    await page.keyboard.press('Tab')
    await expect(navLink(page, 'Dashboard')).toBeFocused()
    await page.keyboard.press('Tab')
    await expect(navLink(page, 'Coach')).toBeFocused()
    await page.keyboard.press('Enter')
    await expect(drawer(page)).toHaveCount(0)
    await arrive(page, testInfo, CHAT, 'chat-390-keyboard')

    // From the chat's heading: back past the history button to Menu, then to the courses.
    await pressUntilFocused(page, 'Shift+Tab', menuButton(page))
    await page.keyboard.press('Enter')
    await expectCurrent(page, CHAT)
    await pressUntilFocused(page, 'Tab', navLink(page, 'Courses'))
    await page.keyboard.press('Enter')
    await arrive(page, testInfo, COURSES, 'courses-390-keyboard')

    await pressUntilFocused(page, 'Shift+Tab', menuButton(page))
    await page.keyboard.press('Enter')
    await expectCurrent(page, COURSES)
    await pressUntilFocused(page, 'Tab', navLink(page, 'Dashboard'))
    await page.keyboard.press('Enter')
    await arrive(page, testInfo, DASHBOARD, 'dashboard-390-keyboard')
  })
})

test.describe('who sees which links', () => {
  test.use({ viewport: DESKTOP })

  test('signed in without payment: only what they may open (Courses, Plans), never a link that bounces to /payment', async ({ page }, testInfo) => {
    await signUpViaApi(page, { fullName: 'Casey Unpaid' })
    await page.goto('/courses')
    await expect(page.getByRole('heading', { level: 1, name: 'Course Platform' })).toBeVisible()

    await expect(mainNav(page).getByRole('link')).toHaveText(['Courses', 'Plans', 'Account', 'Help'])
    await expect(navLink(page, 'Plans')).toHaveAttribute('href', '/payment')
    await expect(navLink(page, 'Courses')).toHaveAttribute('aria-current', 'page')
    await expect(page.getByRole('banner').getByText('Casey Unpaid', { exact: true })).toBeVisible()

    await navLink(page, 'Plans').click()
    await expect(page).toHaveURL('/payment')
    await expect(page.getByRole('heading', { level: 1, name: 'Email Confirmation Required' })).toBeFocused()
    await expect(navLink(page, 'Plans')).toHaveAttribute('aria-current', 'page')
    expect(await seriousA11yViolations(page)).toEqual([])
    await keepScreenshot(page, testInfo, 'unpaid-payment-1280')
  })

  test('signed in, back on the landing page by the brand link: the way to the dashboard instead of Log In / Get Started', async ({ page }) => {
    await signUpViaApi(page, { paid: 'basic' })
    await page.goto('/dashboard')
    await expect(heading(page, DASHBOARD)).toBeVisible()

    await page.getByRole('banner').getByRole('link', { name: 'Momentum Coach' }).click()
    await expect(page).toHaveURL('/')
    await expect(page.getByRole('banner').getByRole('link')).toHaveText(['Momentum Coach', 'Go to Dashboard'])
    const main = page.getByRole('main')
    await expect(main.getByRole('link', { name: 'Go to Dashboard' })).toHaveAttribute('href', '/dashboard')
    await expect(main.getByRole('link', { name: /^(Log In|Get Started)$/ })).toHaveCount(0)
    await expect(main.getByRole('link', { name: 'Get started with Premium' })).toHaveAttribute('href', '/payment')
    expect(await seriousA11yViolations(page)).toEqual([])

    await page.getByRole('banner').getByRole('link', { name: 'Go to Dashboard' }).click()
    await expect(page).toHaveURL('/dashboard')
    await expect(heading(page, DASHBOARD)).toBeFocused()
  })

  test('signed out: the visitor links only (Log In, Get Started), and no signed-in navigation', async ({ page }) => {
    await page.goto('/courses')
    await expect(page.getByRole('heading', { level: 1, name: 'Course Platform' })).toBeVisible()

    await expect(mainNav(page)).toHaveCount(0)
    await expect(page.getByRole('banner').getByRole('link')).toHaveText(['Momentum Coach', 'Log In', 'Get Started'])
    for (const name of ['Log In', 'Get Started']) await expect(page.getByRole('banner').getByRole('link', { name })).toHaveAttribute('href', '/auth')
  })
})
