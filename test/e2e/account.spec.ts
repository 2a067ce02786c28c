import type { Browser, BrowserContext, Page } from '@playwright/test'
import { seriousA11yViolations } from './support/a11y'
import { expect, test, uniqueEmail } from './support/fixtures'
import { linkIn, waitForEmail } from './support/mail'
import { signUpViaApi, type TestUser } from './support/users'

/**
 * The account page (issue 16) in Chromium: changing the password signs out the person's other
 * browser; a session signed out from the list; an email change through the emailed link; axe on
 * the page for a paid member (with the call schedule and channels) and for someone without a plan.
 */

const FIREFOX_WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0'
const NEW_PASSWORD = 'quiet-harbor-compass-58'

let otherIp = 0

/** Another browser (its own cookies), as the person's second device; signed in through the API when given a user. */
async function secondBrowser(browser: Browser, user?: TestUser, options: { userAgent?: string } = {}): Promise<{ context: BrowserContext; page: Page }> {
  otherIp += 1
  const context = await browser.newContext({
    baseURL: process.env.E2E_BASE_URL,
    ...(options.userAgent ? { userAgent: options.userAgent } : {}),
    extraHTTPHeaders: { 'x-forwarded-for': `10.250.${Math.floor(otherIp / 250)}.${(otherIp % 250) + 1}` },
  })
  const page = await context.newPage()
  if (user) {
    const origin = process.env.E2E_BASE_URL!
    const login = await page.request.post(`${origin}/api/auth/login`, { headers: { origin }, data: { email: user.email, password: user.password } })
    expect(login.status()).toBe(200)
  }
  return { context, page }
}

const sessionsList = (page: Page) => page.getByRole('list', { name: 'Signed-in sessions' })

test.describe('the account page', () => {
  test('change the password: the other browser is signed out, the new password works, the email arrives', async ({ page, browser }) => {
    // Two browsers, five password checks and an email: about 12 s alone, past 30 s on a loaded CI machine.
    test.setTimeout(60_000)
    const user = await signUpViaApi(page, { paid: 'basic' })
    const elsewhere = await secondBrowser(browser, user)
    await elsewhere.page.goto('/account')
    await expect(elsewhere.page.getByRole('heading', { level: 1, name: 'Account' })).toBeVisible()

    await page.goto('/dashboard')
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Account', exact: true }).click()
    await expect(page).toHaveURL('/account')
    await expect(page.getByRole('heading', { level: 1, name: 'Account' })).toBeFocused()

    const form = page.getByRole('region', { name: 'Password' })
    await form.getByLabel('Current Password', { exact: true }).fill('not-my-password')
    await form.getByLabel('New Password', { exact: true }).fill(NEW_PASSWORD)
    await form.getByLabel('Confirm New Password', { exact: true }).fill(NEW_PASSWORD)
    // Each password can be shown while typed, as on the sign-in forms.
    const current = form.getByLabel('Current Password', { exact: true })
    await expect(current).toHaveAttribute('type', 'password')
    await form.getByRole('button', { name: 'Show current password' }).click()
    await expect(current).toHaveAttribute('type', 'text')
    await form.getByRole('button', { name: 'Hide current password' }).click()
    await expect(current).toHaveAttribute('type', 'password')
    await expect(form.getByRole('button', { name: 'Show new password' })).toBeVisible()
    await expect(form.getByRole('button', { name: 'Show confirm new password' })).toBeVisible()
    await form.getByRole('button', { name: 'Change password' }).click()
    await expect(form.getByText('Your current password is not correct.')).toBeVisible()
    await expect(form.getByLabel('Current Password', { exact: true })).toBeFocused()

    await form.getByLabel('Current Password', { exact: true }).fill(user.password)
    await form.getByRole('button', { name: 'Change password' }).click()
    await expect(page.getByText('Password changed', { exact: true })).toBeVisible()
    await expect(page.getByText(/1 other device was signed out/)).toBeVisible()
    // The form is empty again, and this browser is still signed in.
    await expect(form.getByLabel('Current Password', { exact: true })).toHaveValue('')
    await page.reload()
    await expect(page.getByRole('heading', { level: 1, name: 'Account' })).toBeVisible()

    // The other browser is signed out: back to sign in, coming back to the account page after it.
    await elsewhere.page.reload()
    await expect(elsewhere.page).toHaveURL(`/auth?returnTo=${encodeURIComponent('/account')}`)
    const login = elsewhere.page.getByRole('tabpanel', { name: 'Login' })
    await login.getByLabel('Email', { exact: true }).fill(user.email)
    await login.getByLabel('Password', { exact: true }).fill(user.password)
    await login.getByRole('button', { name: 'Log In' }).click()
    await expect(elsewhere.page.getByText('Invalid email or password').first()).toBeVisible()
    await login.getByLabel('Password', { exact: true }).fill(NEW_PASSWORD)
    await login.getByRole('button', { name: 'Log In' }).click()
    await expect(elsewhere.page).toHaveURL('/account')

    const mail = await waitForEmail(user.email, /^Your Momentum Coach password was changed$/)
    expect(mail.text).toContain('every other device signed in to it was signed out')
    await elsewhere.context.close()
  })

  test('sign out another session from the list', async ({ page, browser }) => {
    // Someone without a plan has the account page too.
    const user = await signUpViaApi(page, { confirmed: true })
    const firefox = await secondBrowser(browser, user, { userAgent: FIREFOX_WINDOWS })

    await page.goto('/account')
    const rows = sessionsList(page).getByRole('listitem')
    await expect(rows).toHaveCount(2)
    await expect(rows.filter({ hasText: 'This device' })).toHaveCount(1)
    const other = rows.filter({ hasText: 'Firefox 133 on Windows' })
    await expect(other).toContainText('Last seen')
    await other.getByRole('button', { name: 'Sign out' }).click()
    await expect(page.getByText('Firefox 133 on Windows is signed out.')).toBeVisible()
    await expect(rows).toHaveCount(1)
    await expect(page.getByText("You're not signed in anywhere else.")).toBeVisible()

    await firefox.page.goto('/account')
    await expect(firefox.page).toHaveURL(`/auth?returnTo=${encodeURIComponent('/account')}`)
    await firefox.context.close()
  })

  test('change the email through the link sent to the new address', async ({ page, browser }) => {
    const user = await signUpViaApi(page, { confirmed: true })
    const newEmail = uniqueEmail('moved')
    await page.goto('/account')
    const profile = page.getByRole('region', { name: 'Profile' })
    await expect(profile.getByTestId('account-email')).toHaveText(user.email)

    await profile.getByRole('button', { name: 'Change email' }).click()
    await expect(profile.getByLabel('New Email')).toBeFocused()
    await profile.getByLabel('New Email').fill(newEmail)
    await profile.getByLabel('Current Password', { exact: true }).fill(user.password)
    await profile.getByRole('button', { name: 'Send confirmation link' }).click()
    await expect(page.getByText('Check your new inbox')).toBeVisible()
    await expect(profile.getByTestId('pending-email')).toContainText(newEmail)
    // The old address is told, and stays the account's until the link is followed.
    await waitForEmail(user.email, /^Your Momentum Coach email is changing$/)
    await expect(profile.getByTestId('account-email')).toHaveText(user.email)

    // The link, opened in another browser (no session there).
    const link = linkIn(await waitForEmail(newEmail, /^Confirm your new email for Momentum Coach$/))
    expect(link).toMatch(/^\/auth\?mode=change-email#token=/)
    const mailbox = await secondBrowser(browser)
    await mailbox.page.goto(link)
    await expect(mailbox.page.getByRole('heading', { level: 1, name: 'Confirm your new email' })).toBeVisible()
    await mailbox.page.getByRole('button', { name: 'Confirm new email' }).click()
    await expect(mailbox.page.getByRole('heading', { level: 1, name: 'Your email is changed' })).toBeVisible()
    await expect(mailbox.page.getByRole('main').getByText(newEmail, { exact: true })).toBeVisible()
    await mailbox.context.close()

    await page.reload()
    await expect(profile.getByTestId('account-email')).toHaveText(newEmail)
    await expect(profile.getByTestId('pending-email')).toHaveCount(0)
    // The new address signs in.
    const origin = process.env.E2E_BASE_URL!
    const login = await page.request.post(`${origin}/api/auth/login`, { headers: { origin }, data: { email: newEmail, password: user.password } })
    expect(login.status()).toBe(200)
  })

  test('axe finds nothing serious for a paid member, the phone change open too; the chat sidebar leads here', async ({ page }) => {
    const user = await signUpViaApi(page, { paid: 'premium' })
    await page.goto('/account')
    await expect(page.getByRole('region', { name: 'Call times' })).toBeVisible()
    await expect(page.getByRole('region', { name: 'Texts and consent' })).toBeVisible()
    await expect(page.getByTestId('billing-summary')).toContainText('Premium')
    await expect(page.getByTestId('billing-testing-mode')).toContainText('Payments are not being taken.')
    await expect(sessionsList(page).getByRole('listitem')).toHaveCount(1)
    expect(await seriousA11yViolations(page)).toEqual([])

    // The phone change's code step, open.
    const profile = page.getByRole('region', { name: 'Profile' })
    await profile.getByRole('button', { name: 'Change phone number' }).click()
    await profile.getByLabel('New Phone Number').fill('2025223333')
    await profile.getByLabel('Current Password', { exact: true }).fill(user.password)
    await profile.getByRole('button', { name: 'Text me a code' }).click()
    await expect(profile.getByTestId('pending-phone')).toContainText("written to the server's log")
    await expect(profile.getByTestId('account-phone')).toHaveText('(202) 523-4567')
    expect(await seriousA11yViolations(page)).toEqual([])

    await page.goto('/chat')
    await page.getByRole('complementary').getByRole('link', { name: 'Account' }).click()
    await expect(page).toHaveURL('/account')
  })

  test('axe finds nothing serious for someone without a plan, who is offered one', async ({ page }) => {
    await signUpViaApi(page, { confirmed: true })
    await page.goto('/account')
    await expect(page.getByRole('link', { name: 'Choose a plan' })).toHaveAttribute('href', '/payment')
    await expect(page.getByRole('region', { name: 'Call times' })).toHaveCount(0)
    expect(await seriousA11yViolations(page)).toEqual([])
  })
})
