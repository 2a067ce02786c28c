import type { Page } from '@playwright/test'
import { CONSENT_TEXT, formatPhone, TERMS_TEXT } from '#common/auth-constants'
import { seriousA11yViolations } from './support/a11y'
import { expect, gotoReady, test, uniqueEmail, uniquePhone } from './support/fixtures'
import { waitForEmail } from './support/mail'
import { sharedServerLog, waitForLoggedCode } from './support/server-log'
import { signUpViaApi } from './support/users'

/**
 * A number is proven before anything reaches it (issue 31, docs/decisions/060), in Chromium on the
 * suite's server, which has no Twilio: a code goes to the server's log, and the person reads it
 * there, as someone running `npm start` does. Sign-up takes only US and Canadian numbers; the
 * account page and the call schedule say whether the number is verified and verify it on the spot;
 * changing the number asks for the password, proves the new one with its code, and emails.
 */

const GOALS = {
  areas: Object.fromEntries(
    ['faith', 'family', 'fitness', 'finance', 'friends', 'fun', 'service', 'personal_development'].map((area) => [
      area,
      { selectedOptions: [], satisfactionScore: 6, customNotes: '' },
    ]),
  ),
  workCareer: { company: null, industry: 'education', role: 'Teacher' },
  specificGoals: { goal90Days: 'Run a 10k', goal12Months: 'Run a half marathon', goal5Years: 'Run a marathon', obstacles: 'Time' },
  callTime: { time: '7:30', period: 'AM', timezone: 'eastern' },
}

const profileOf = (page: Page) => page.getByRole('region', { name: 'Profile' })

test.describe('proving a phone number', () => {
  test.describe.configure({ timeout: 60_000 })

  test('sign-up refuses a number outside the US and Canada, under the phone field', async ({ page }) => {
    await gotoReady(page, '/auth')
    await page.getByRole('tab', { name: 'Create Account' }).click()
    const form = page.getByRole('tabpanel', { name: 'Create Account' })
    await form.getByLabel('Full Name').fill('Jordan Rivera')
    await form.getByLabel('Email', { exact: true }).fill(uniqueEmail('jamaica'))
    // 876 is Jamaica's: a NANP number, but a call to it is an international call.
    await form.getByLabel('Phone Number').fill('8765550142')
    await form.getByLabel('Password', { exact: true }).fill('steady-maple-lantern-42')
    await form.getByLabel('Confirm Password', { exact: true }).fill('steady-maple-lantern-42')
    await form.getByRole('checkbox', { name: CONSENT_TEXT }).check()
    await form.getByRole('checkbox', { name: TERMS_TEXT }).check()
    await form.getByRole('button', { name: 'Create Account' }).click()

    const phone = form.getByLabel('Phone Number')
    await expect(phone).toHaveAttribute('aria-invalid', 'true')
    await expect(phone).toHaveAccessibleDescription(/Enter a US or Canadian phone number/)
    // Nothing was created: the form is still there, on the Create Account tab.
    await expect(page).toHaveURL(/\/auth\?tab=signup$/)
  })

  test('the account page says the number is not verified, and verifies it with the code from the log', async ({ page }) => {
    const phoneNumber = uniquePhone()
    await signUpViaApi(page, { paid: 'basic', phoneNumber })
    await page.goto('/account')
    const profile = profileOf(page)
    await expect(profile.getByTestId('account-phone-state')).toHaveText('Not verified yet')
    // The calls section on the same page points to Profile rather than offering a second form.
    await expect(page.getByTestId('calls-number-note')).toHaveText('Your coach calls only once your number is verified (under Profile).')
    expect(await seriousA11yViolations(page)).toEqual([])

    await profile.getByRole('button', { name: 'Verify your number' }).click()
    const form = profile.getByRole('form', { name: 'Verify your number' })
    await expect(form).toContainText(`the 6-digit code for ${formatPhone(phoneNumber)} was written to the server's log`)
    await expect(form.getByLabel('Verification Code')).toBeVisible()
    expect(await seriousA11yViolations(page)).toEqual([])

    // A wrong code is refused under the field; the code from the log proves the number.
    await form.getByLabel('Verification Code').fill('000000')
    await form.getByRole('button', { name: 'Verify number' }).click()
    await expect(form.getByLabel('Verification Code')).toHaveAccessibleDescription(/That code is not right/)
    await form.getByLabel('Verification Code').fill(await waitForLoggedCode(sharedServerLog(), phoneNumber))
    await form.getByRole('button', { name: 'Verify number' }).click()

    await expect(page.getByRole('region', { name: /Notifications/ }).getByRole('listitem').filter({ hasText: 'Number verified' })).toBeVisible()
    await expect(profile.getByTestId('account-phone-state')).toHaveText('Verified')
    await expect(profile.getByRole('button', { name: 'Verify your number' })).toHaveCount(0)
    await expect(page.getByTestId('calls-number-note')).toHaveCount(0)
  })

  test('the call schedule says calls wait for the number, and verifies it there', async ({ page }) => {
    const phoneNumber = uniquePhone()
    await signUpViaApi(page, { paid: 'basic', phoneNumber })
    const origin = process.env.E2E_BASE_URL!
    const saved = await page.request.put(`${origin}/api/goals`, { headers: { origin }, data: GOALS })
    expect(saved.status(), await saved.text()).toBe(200)
    await page.goto('/calls/schedule')
    const calls = page.getByRole('region', { name: 'Coaching calls' })
    await expect(calls.getByTestId('calls-number-note')).toHaveText('Your coach calls only once your number is verified.')
    await expect(page.getByRole('switch', { name: 'Daily coaching calls' })).toHaveAccessibleDescription(/only once your number is verified/)

    // Keyboard only: the button, then the code.
    await calls.getByRole('button', { name: 'Verify your number' }).focus()
    await page.keyboard.press('Enter')
    const code = calls.getByLabel('Verification Code')
    await expect(code).toBeVisible()
    expect(await seriousA11yViolations(page)).toEqual([])
    await code.focus()
    await page.keyboard.type(await waitForLoggedCode(sharedServerLog(), phoneNumber))
    await page.keyboard.press('Enter')

    await expect(calls.getByTestId('calls-number-note')).toHaveCount(0)
    await expect(calls.getByTestId('verify-number')).toHaveCount(0)
  })

  test('changing the number asks for the password, proves the new number with its code, and emails the account', async ({ page }) => {
    const user = await signUpViaApi(page, { paid: 'basic', phoneNumber: uniquePhone(), verified: true })
    const newNumber = uniquePhone()
    await page.goto('/account')
    const profile = profileOf(page)
    await expect(profile.getByTestId('account-phone-state')).toHaveText('Verified')

    await profile.getByRole('button', { name: 'Change phone number' }).click()
    await profile.getByLabel('New Phone Number').fill(newNumber)
    await profile.getByLabel('Current Password', { exact: true }).fill('not-my-password-at-all')
    await profile.getByRole('button', { name: 'Text me a code' }).click()
    await expect(profile.getByLabel('Current Password', { exact: true })).toHaveAttribute('aria-invalid', 'true')
    await expect(profile.getByTestId('pending-phone')).toHaveCount(0)

    await profile.getByLabel('Current Password', { exact: true }).fill(user.password)
    await profile.getByRole('button', { name: 'Text me a code' }).click()
    await expect(profile.getByTestId('pending-phone')).toContainText(`the 6-digit code for ${formatPhone(newNumber)} was written to the server's log`)
    await profile.getByLabel('Code', { exact: true }).fill(await waitForLoggedCode(sharedServerLog(), newNumber))
    await profile.getByRole('button', { name: 'Confirm number' }).click()

    await expect(profile.getByTestId('account-phone')).toHaveText(formatPhone(newNumber))
    // The code texted to the new number proved it: nothing more to verify.
    await expect(profile.getByTestId('account-phone-state')).toHaveText('Verified')
    const notice = await waitForEmail(user.email, /^Your Momentum Coach phone number was changed$/)
    expect(notice.text).toContain(`changed to ${formatPhone(newNumber)}`)
  })
})
