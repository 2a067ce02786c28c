import type { Page } from '@playwright/test'
import { seriousA11yViolations } from './support/a11y'
import { expect, gotoReady, test } from './support/fixtures'
import { toast } from './support/page-checks'
import { keyOfSecret, nextCode, wrongCode } from './support/two-factor'
import { signUpViaApi } from './support/users'

/**
 * Two-factor sign-in in Chromium (docs/decisions/072): a member turns it on from the account page
 * (the test is the authenticator app: it computes the codes from the key the page shows), saves
 * the recovery codes, then signs in with a code, and again with a recovery code; the account
 * activity lists it; axe finds nothing serious on the new screens.
 */

const loginPanel = (page: Page) => page.getByRole('tabpanel', { name: 'Login' })

async function logIn(page: Page, email: string, password: string) {
  await gotoReady(page, '/auth')
  const form = loginPanel(page)
  await form.getByLabel('Email', { exact: true }).fill(email)
  await form.getByLabel('Password', { exact: true }).fill(password)
  await form.getByRole('button', { name: 'Log In' }).click()
}

async function logOut(page: Page) {
  await page.getByRole('button', { name: /^Log ?Out$/ }).first().click()
  await expect(page).toHaveURL(/\/auth/)
}

test.describe('two-factor sign-in', () => {
  // Three sign-ins and three accessibility checks, on a loaded machine.
  test.describe.configure({ timeout: 90_000 })

  test('a member turns it on from the account page, then signs in with a code and with a recovery code', async ({ page }) => {
    const user = await signUpViaApi(page, { paid: 'basic' })
    await page.goto('/account')
    const section = page.getByRole('region', { name: 'Two-factor sign-in' })
    await expect(section.getByText('Two-factor sign-in is off.')).toBeVisible()
    await section.getByRole('button', { name: 'Turn on two-factor sign-in' }).click()

    // Step 1: the password.
    await expect(section.getByRole('heading', { name: "Step 1 of 3: Confirm it's you" })).toBeVisible()
    await section.getByLabel('Current Password', { exact: true }).fill(user.password)
    await section.getByRole('button', { name: 'Continue' }).click()

    // Step 2: the QR code and the key as text; a wrong code is refused under the field.
    await expect(section.getByRole('heading', { name: 'Step 2 of 3: Add Momentum Coach to your authenticator app' })).toBeVisible()
    await expect(section.getByRole('img', { name: 'QR code to add Momentum Coach to your authenticator app' })).toBeVisible()
    const secret = (await section.getByTestId('two-factor-secret').textContent()) ?? ''
    expect(secret).toMatch(/^([A-Z2-7]{4} ){7}[A-Z2-7]{4}$/)
    const key = keyOfSecret(secret)
    expect(await seriousA11yViolations(page)).toEqual([])
    await section.getByLabel('6-digit code').fill(wrongCode(key))
    await section.getByRole('button', { name: 'Turn on', exact: true }).click()
    await expect(section.getByText('That code is not right. Check your authenticator app and try again.')).toBeVisible()
    await expect(section.getByLabel('6-digit code')).toBeFocused()
    await section.getByLabel('6-digit code').fill(nextCode(key))
    await section.getByRole('button', { name: 'Turn on', exact: true }).click()

    // Step 3: the recovery codes, shown once.
    await expect(section.getByRole('heading', { name: 'Step 3 of 3: Save your recovery codes' })).toBeVisible()
    const codes = (await section.getByTestId('recovery-codes').getByRole('listitem').allTextContents()).map((code) => code.trim())
    expect(codes).toHaveLength(10)
    for (const code of codes) expect(code).toMatch(/^[a-z2-7]{5}-[a-z2-7]{5}$/)
    expect(await seriousA11yViolations(page)).toEqual([])
    await section.getByRole('button', { name: "I've saved them" }).click()
    await expect(section.getByText(/Two-factor sign-in is on since .+\. 10 recovery codes left\./)).toBeVisible()
    await expect(page.getByRole('list', { name: 'Account activity' })).toContainText('You turned on two-factor sign-in.')

    // Signing in now asks the code after the password.
    await logOut(page)
    await logIn(page, user.email, user.password)
    await expect(page).toHaveURL(/\/auth\?.*mode=two-factor/)
    await expect(page.getByRole('heading', { level: 1, name: 'Enter your sign-in code' })).toBeVisible()
    await expect(page).toHaveTitle(/Enter your sign-in code/)
    expect(await seriousA11yViolations(page)).toEqual([])
    // Until it is given, the app is not open.
    expect((await page.request.get('/api/me')).status()).toBe(401)
    await page.getByLabel('6-digit code').fill(nextCode(key))
    await page.getByRole('button', { name: 'Verify' }).click()
    await expect(toast(page, 'Success')).toContainText("You've been logged in successfully.")
    await expect(page).toHaveURL(/\/(dashboard|goal-intake|opt-in)/)

    // And with a recovery code instead: it works once.
    await logOut(page)
    await logIn(page, user.email, user.password)
    await page.getByRole('button', { name: 'Use a recovery code instead' }).click()
    await page.getByLabel('Recovery code').fill(codes[0]!)
    await page.getByRole('button', { name: 'Verify' }).click()
    await expect(toast(page, 'Success')).toBeVisible()
    await page.goto('/account')
    const after = page.getByRole('region', { name: 'Two-factor sign-in' })
    await expect(after.getByText(/9 recovery codes left\./)).toBeVisible()
    await expect(page.getByRole('list', { name: 'Account activity' })).toContainText('You used a recovery code (9 left).')
    expect(await seriousA11yViolations(page)).toEqual([])

    await logOut(page)
    await logIn(page, user.email, user.password)
    await page.getByRole('button', { name: 'Use a recovery code instead' }).click()
    await page.getByLabel('Recovery code').fill(codes[0]!)
    await page.getByRole('button', { name: 'Verify' }).click()
    // Under the field (a toast may say it too).
    await expect(page.getByRole('main').getByText('That code is not right. Check your authenticator app and try again.')).toBeVisible()
  })
})

