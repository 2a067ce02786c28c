import AxeBuilder from '@axe-core/playwright'
import type { Locator, Page } from '@playwright/test'
import { CONSENT_TEXT, TERMS_TEXT } from '#common/auth-constants'
import { expect, gotoReady, test, uniqueEmail } from './support/fixtures'
import { holdRequests } from './support/hold'
import { CLOCK_STEP_MS, pausePageClock } from './support/page-clock'
import { linkIn, tokenOf, waitForEmail } from './support/mail'
import { signUpViaApi } from './support/users'

/**
 * Accounts in the browser (spec 1 §2, §4, §5, §8): sign-up, login, the emailed links, the
 * protected-route wrapper and logout, driven the way a person would. Each test makes its own user.
 */

const PASSWORD = 'Harbor-Lantern-7319'
const NEW_PASSWORD = 'Quiet-Orbit-5521'
const CONFIRM_SUBJECT = /^Confirm your email for Momentum Coach$/
const RESET_SUBJECT = /^Reset your Momentum Coach password$/

/** The access table of spec 1 §2 (a course id stands in for /courses/{courseId}). */
const SIGNED_IN_ROUTES = ['/payment', '/courses', '/courses/getting-started', '/debug/edge-functions']
const PAID_ROUTES = ['/opt-in', '/goal-intake', '/dashboard', '/home', '/chat']
/** Signed-in screens whose signed-out view the spec gives (spec 2 §2) instead of a redirect. */
const OWN_SIGNED_OUT_VIEW: Record<string, string> = {
  '/courses': 'Please log in to access courses.',
  '/debug/edge-functions': 'Please sign in to access the Edge Functions Diagnostics page.',
}

const loginPanel = (page: Page) => page.getByRole('tabpanel', { name: 'Login' })
const signupPanel = (page: Page) => page.getByRole('tabpanel', { name: 'Create Account' })

/** A toast (sonner) by its title. */
function toast(page: Page, title: string): Locator {
  return page
    .getByRole('region', { name: /Notifications/ })
    .getByRole('listitem')
    .filter({ has: page.getByText(title, { exact: true }) })
}

/** /auth?returnTo=… as the guard builds it. */
const authWithReturnTo = (path: string) => `/auth?returnTo=${encodeURIComponent(path)}`

async function logIn(page: Page, email: string, password: string) {
  const form = loginPanel(page)
  await form.getByLabel('Email', { exact: true }).fill(email)
  await form.getByLabel('Password', { exact: true }).fill(password)
  await form.getByRole('button', { name: 'Log In' }).click()
}

type SignupFields = { fullName: string; email: string; phone: string; password: string; confirmPassword: string }

async function fillSignup(page: Page, fields: SignupFields, { agree = true } = {}) {
  const form = signupPanel(page)
  await form.getByLabel('Full Name').fill(fields.fullName)
  await form.getByLabel('Email', { exact: true }).fill(fields.email)
  await form.getByLabel('Phone Number').fill(fields.phone)
  await form.getByLabel('Password', { exact: true }).fill(fields.password)
  await form.getByLabel('Confirm Password', { exact: true }).fill(fields.confirmPassword)
  if (agree) {
    await form.getByRole('checkbox', { name: CONSENT_TEXT }).check()
    await form.getByRole('checkbox', { name: TERMS_TEXT }).check()
  }
}

/** Axe with the WCAG 2 A and AA rules; only the serious and critical violations. */
async function seriousA11yViolations(page: Page) {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa']).analyze()
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(({ id, help, nodes }) => ({ id, help, targets: nodes.map((node) => node.target.join(' ')) }))
}

/** Holds every GET /api/me until released, so the wrapper's loading state can be looked at. */
const holdSessionCheck = (page: Page) => holdRequests(page, '**/api/me')
/** Spec 1 §9: the protected-route spinner shows after 500 ms of verifying. */
const SPINNER_DELAY_MS = 500

test.describe('sign-up', () => {
  test('shows the message of every invalid field under it, and keeps them current while editing', async ({ page }) => {
    const signupRequests: string[] = []
    page.on('request', (request) => {
      if (request.url().includes('/api/auth/signup')) signupRequests.push(request.url())
    })
    await gotoReady(page, '/auth')
    await page.getByRole('tab', { name: 'Create Account' }).click()
    const form = signupPanel(page)

    await form.getByRole('button', { name: 'Create Account' }).click()

    const fullName = form.getByLabel('Full Name')
    await expect(fullName).toHaveAttribute('aria-invalid', 'true')
    await expect(fullName).toHaveAccessibleDescription('Full name is required')
    await expect(fullName).toBeFocused()
    await expect(form.getByText('Email is required')).toBeVisible()
    await expect(form.getByText('Please enter a valid 10-digit phone number')).toBeVisible()
    await expect(form.getByText('Password is required')).toBeVisible()
    await expect(form.getByText('Please confirm your password')).toBeVisible()
    await expect(form.getByText('You must agree to receive messages')).toBeVisible()
    await expect(form.getByText('You must agree to the terms of service')).toBeVisible()
    await expect(form.getByRole('checkbox', { name: CONSENT_TEXT })).toHaveAccessibleDescription(
      'You must agree to receive messages',
    )

    // Wrong rather than missing: each message follows the value.
    await fullName.fill('   ')
    await form.getByLabel('Email', { exact: true }).fill('jordan@example')
    await form.getByLabel('Phone Number').fill('55512')
    await form.getByLabel('Password', { exact: true }).fill('short')
    await form.getByLabel('Confirm Password', { exact: true }).fill('different')

    await expect(form.getByText('Full name is required')).toBeVisible()
    await expect(form.getByText('Please enter a valid email', { exact: true })).toBeVisible()
    await expect(form.getByLabel('Phone Number')).toHaveValue('(555) 12')
    await expect(form.getByText('Please enter a valid 10-digit phone number')).toBeVisible()
    await expect(form.getByText('Password must be at least 8 characters')).toBeVisible()
    await expect(form.getByText('Passwords do not match')).toBeVisible()

    // Fixing a field clears its message at once; the others stay.
    await fullName.fill('Jordan Rivera')
    await expect(form.getByText('Full name is required')).toHaveCount(0)
    await expect(fullName).not.toHaveAttribute('aria-invalid', 'true')
    await form.getByLabel('Phone Number').fill('2025234567')
    await expect(form.getByLabel('Phone Number')).toHaveValue('(202) 523-4567')
    await expect(form.getByText('Please enter a valid 10-digit phone number')).toHaveCount(0)
    await form.getByLabel('Password', { exact: true }).fill(PASSWORD)
    await expect(form.getByText('Password must be at least 8 characters')).toHaveCount(0)
    await expect(form.getByText('Passwords do not match')).toBeVisible()
    // The checkbox by keyboard: Space ticks it; Enter neither unticks it nor sends the form.
    const consent = form.getByRole('checkbox', { name: CONSENT_TEXT })
    await consent.focus()
    await consent.press('Space')
    await expect(consent).toBeChecked()
    await expect(form.getByText('You must agree to receive messages')).toHaveCount(0)
    await expect(form.getByText('You must agree to the terms of service')).toBeVisible()
    await expect(form.getByText('Please enter a valid email', { exact: true })).toBeVisible()
    await consent.press('Enter')
    await expect(consent).toBeChecked()
    await expect(consent).toBeFocused()

    // The phone field formats as it is typed and takes at most 14 characters.
    await expect(form.getByLabel('Phone Number')).toHaveAttribute('maxlength', '14')
    expect(signupRequests).toEqual([])
  })

  test('creates the account with the email trimmed and lower-cased, then asks to confirm it on /payment', async ({ page }) => {
    const email = uniqueEmail('new')
    await gotoReady(page, '/auth')
    await page.getByRole('tab', { name: 'Create Account' }).click()

    await fillSignup(page, {
      fullName: '  Jordan Rivera ',
      email: `  ${email.toUpperCase()}  `,
      phone: '202 523 4567',
      password: PASSWORD,
      confirmPassword: PASSWORD,
    })
    await expect(signupPanel(page).getByLabel('Phone Number')).toHaveValue('(202) 523-4567')
    await signupPanel(page).getByRole('button', { name: 'Create Account' }).click()

    await expect(page).toHaveURL('/payment')
    await expect(toast(page, 'Account created')).toContainText(
      'Your account has been created successfully. Please complete your payment to continue.',
    )
    await expect(page.getByRole('heading', { level: 1, name: 'Email Confirmation Required' })).toBeVisible()
    await expect(page.getByRole('main')).toContainText(`We sent a confirmation link to ${email}.`)

    const me = await page.request.get('/api/me')
    expect(me.status()).toBe(200)
    const { user } = (await me.json()) as { user: Record<string, unknown> }
    expect(user).toMatchObject({ email, fullName: 'Jordan Rivera', phoneNumber: '2025234567', partnerProgram: 'GENERAL', emailConfirmed: false })
    await waitForEmail(email, CONFIRM_SUBJECT)
  })

  test('a partner link opens Create Account and records the program', async ({ page }) => {
    const email = uniqueEmail('partner')
    await gotoReady(page, '/auth?partner=NORTHWIND')

    await expect(page.getByRole('tab', { name: 'Create Account' })).toHaveAttribute('aria-selected', 'true')
    await expect(signupPanel(page)).toContainText('NORTHWIND')
    await fillSignup(page, { fullName: 'Avery Chen', email, phone: '2025876543', password: PASSWORD, confirmPassword: PASSWORD })
    await signupPanel(page).getByRole('button', { name: 'Create Account' }).click()

    await expect(page).toHaveURL('/payment')
    const { user } = (await (await page.request.get('/api/me')).json()) as { user: { partnerProgram: string } }
    expect(user.partnerProgram).toBe('NORTHWIND')
  })

  test('refusals from the server: an email already registered, a too common password', async ({ page }) => {
    const taken = await signUpViaApi(page)
    await page.context().clearCookies()
    await gotoReady(page, '/auth?tab=signup')

    await fillSignup(page, { fullName: 'Sam Lee', email: taken.email, phone: '2025001111', password: PASSWORD, confirmPassword: PASSWORD })
    await signupPanel(page).getByRole('button', { name: 'Create Account' }).click()

    await expect(toast(page, 'Signup failed')).toContainText(
      'An account with this email already exists. Please try logging in instead.',
    )
    await expect(page).toHaveURL('/auth?tab=signup')

    const form = signupPanel(page)
    await form.getByLabel('Email', { exact: true }).fill(uniqueEmail('common'))
    await form.getByLabel('Password', { exact: true }).fill('sunshine1')
    await form.getByLabel('Confirm Password', { exact: true }).fill('sunshine1')
    await form.getByRole('button', { name: 'Create Account' }).click()

    const password = form.getByLabel('Password', { exact: true })
    await expect(password).toHaveAttribute('aria-invalid', 'true')
    await expect(password).toHaveAccessibleDescription(/one of the most commonly used passwords/)
    // The server's message goes as soon as the password changes.
    await password.fill(PASSWORD)
    await expect(password).not.toHaveAttribute('aria-invalid', 'true')
  })

  test('a network failure says so', async ({ page }) => {
    await page.route('**/api/auth/signup', (route) => route.abort('connectionrefused'))
    await gotoReady(page, '/auth?tab=signup')

    await fillSignup(page, { fullName: 'Sam Lee', email: uniqueEmail(), phone: '2025001111', password: PASSWORD, confirmPassword: PASSWORD })
    await signupPanel(page).getByRole('button', { name: 'Create Account' }).click()

    await expect(toast(page, 'Signup failed')).toContainText(
      'Unable to connect to our servers. Please check your internet connection and try again in a few moments.',
    )
  })
})

test.describe('email confirmation', () => {
  test("'I've Confirmed My Email' checks with the server: not yet, then confirmed from another tab", async ({ page }) => {
    const user = await signUpViaApi(page)
    await page.goto('/payment')
    await expect(page.getByRole('heading', { level: 1, name: 'Email Confirmation Required' })).toBeVisible()

    await page.getByRole('button', { name: "I've Confirmed My Email" }).click()

    await expect(toast(page, 'Email Not Confirmed Yet')).toContainText(
      'Please check your email and click the confirmation link first.',
    )
    await expect(page.getByRole('heading', { level: 1, name: 'Email Confirmation Required' })).toBeVisible()

    // The person confirms from the email in another tab, then comes back.
    const link = linkIn(await waitForEmail(user.email, CONFIRM_SUBJECT))
    const otherTab = await page.context().newPage()
    await otherTab.goto(link)
    await otherTab.getByRole('button', { name: 'Confirm email' }).click()
    await expect(otherTab).toHaveURL('/payment')
    await otherTab.close()

    await page.getByRole('button', { name: "I've Confirmed My Email" }).click()

    await expect(toast(page, 'Email Confirmed!')).toContainText('You can now proceed with your subscription.')
    await expect(page.getByRole('heading', { level: 1, name: 'Choose your plan' })).toBeVisible()
    await expect(page.getByRole('list', { name: 'Plans' }).getByRole('group')).toHaveCount(3)
  })

  test('the emailed link confirms the account and shows the plans; used again, it says so', async ({ page }) => {
    const user = await signUpViaApi(page)
    const link = linkIn(await waitForEmail(user.email, CONFIRM_SUBJECT))
    // The token rides in the fragment: no request for the page carries it.
    expect(link).toMatch(/^\/auth\?mode=confirm#token=[a-z2-7]+$/)

    await page.goto(link)
    await expect(page.getByRole('heading', { level: 1, name: 'Confirm your email' })).toBeVisible()
    expect(await seriousA11yViolations(page)).toEqual([])
    await page.getByRole('button', { name: 'Confirm email' }).click()

    await expect(page).toHaveURL('/payment')
    await expect(toast(page, 'Email Confirmed!')).toContainText('You can now proceed with your subscription.')
    await expect(page.getByRole('heading', { level: 1, name: 'Choose your plan' })).toBeVisible()
    const plans = page.getByRole('list', { name: 'Plans' })
    for (const name of ['Basic', 'Premium', 'Elite']) await expect(plans.getByRole('group', { name })).toBeVisible()

    await page.goto(link)
    await page.getByRole('button', { name: 'Confirm email' }).click()

    await expect(page.getByRole('heading', { level: 1, name: "This confirmation link can't be used" })).toBeVisible()
    await expect(page.getByRole('main')).toContainText('This link is invalid or has expired. Please request a new one.')
    await expect(page.getByRole('main')).toContainText('your email address is already confirmed')
    await page.getByRole('link', { name: 'Continue' }).click()
    await expect(page).toHaveURL('/payment')
  })

  test('opening the link confirms nothing (mail scanners open links): the button does', async ({ page }) => {
    const user = await signUpViaApi(page)
    const link = linkIn(await waitForEmail(user.email, CONFIRM_SUBJECT))
    const emailConfirmed = async () => ((await (await page.request.get('/api/me')).json()) as { user: { emailConfirmed: boolean } }).user.emailConfirmed

    // A scanner that fetches the link, and one that runs the page's scripts.
    expect((await page.request.get(link)).status()).toBe(200)
    await page.goto(link)
    await expect(page.getByRole('button', { name: 'Confirm email' })).toBeVisible()
    await page.reload()
    await expect(page.getByRole('button', { name: 'Confirm email' })).toBeVisible()
    expect(await emailConfirmed()).toBe(false)

    await page.getByRole('button', { name: 'Confirm email' }).click()
    await expect(toast(page, 'Email Confirmed!')).toContainText('You can now proceed with your subscription.')
    expect(await emailConfirmed()).toBe(true)
  })

  test('a link in the older form (the token in the query) still confirms, with the button', async ({ page }) => {
    const user = await signUpViaApi(page)
    const token = tokenOf(linkIn(await waitForEmail(user.email, CONFIRM_SUBJECT)))

    await gotoReady(page, `/auth?mode=confirm&token=${token}`)
    await page.getByRole('button', { name: 'Confirm email' }).click()

    await expect(page).toHaveURL('/payment')
    await expect(page.getByRole('heading', { level: 1, name: 'Choose your plan' })).toBeVisible()
  })

  test('an invalid link, signed in: a new email can be asked for (and is limited to one a minute)', async ({ page }) => {
    await signUpViaApi(page)

    await gotoReady(page, '/auth?mode=confirm&token=not-a-real-token-at-all-0000')

    await expect(page.getByRole('heading', { level: 1, name: "This confirmation link can't be used" })).toBeVisible()
    await page.getByRole('button', { name: 'Resend confirmation email' }).click()
    // The sign-up email went out seconds ago: the server asks to wait.
    await expect(toast(page, 'Please wait a moment')).toContainText('A confirmation email was sent recently')
    await expect(page.getByRole('button', { name: 'Back to Sign In' })).toBeVisible()
  })

  test('an invalid link, signed out: a way back to sign in', async ({ page }) => {
    await gotoReady(page, '/auth?mode=confirm&token=not-a-real-token-at-all-0000')

    await expect(page.getByRole('heading', { level: 1, name: "This confirmation link can't be used" })).toBeVisible()
    await page.getByRole('link', { name: 'Back to Sign In' }).click()

    await expect(page).toHaveURL('/auth')
    await expect(page.getByRole('tab', { name: 'Login' })).toHaveAttribute('aria-selected', 'true')
  })
})

test.describe('login', () => {
  test('refuses a wrong password, validates the fields, and reports a network failure', async ({ page }) => {
    const user = await signUpViaApi(page)
    await page.context().clearCookies()
    await gotoReady(page, '/auth')
    const form = loginPanel(page)

    await form.getByRole('button', { name: 'Log In' }).click()
    await expect(form.getByLabel('Email', { exact: true })).toHaveAccessibleDescription('Email is required')
    await expect(form.getByText('Password is required')).toBeVisible()
    await form.getByLabel('Email', { exact: true }).fill('jordan@')
    await expect(form.getByText('Please enter a valid email', { exact: true })).toBeVisible()

    await logIn(page, user.email, 'Not-The-Password-1')
    await expect(toast(page, 'Login failed')).toContainText('Invalid email or password')
    await expect(page).toHaveURL('/auth')

    await page.route('**/api/auth/login', (route) => route.abort('connectionrefused'))
    await form.getByRole('button', { name: 'Log In' }).click()
    await expect(toast(page, 'Login failed').filter({ hasText: 'Unable to connect' })).toContainText(
      'Unable to connect to our servers. Please check your internet connection and try again.',
    )
  })

  test('returnTo: a signed-out visitor of /payment logs in and is back on /payment', async ({ page }) => {
    const user = await signUpViaApi(page)
    await page.context().clearCookies()

    await page.goto('/payment')
    await expect(page).toHaveURL(authWithReturnTo('/payment'))
    await logIn(page, user.email, user.password)

    await expect(page).toHaveURL('/payment')
    await expect(toast(page, 'Success')).toContainText("You've been logged in successfully.")
    await expect(page.getByRole('heading', { level: 1, name: 'Email Confirmation Required' })).toBeVisible()
  })

  test("returnTo: from the course catalogue's 'Go to Login' back to /courses", async ({ page }) => {
    const user = await signUpViaApi(page)
    await page.context().clearCookies()

    await page.goto('/courses')
    await page.getByRole('link', { name: 'Go to Login' }).click()
    await expect(page).toHaveURL(authWithReturnTo('/courses'))
    await logIn(page, user.email, user.password)

    await expect(page).toHaveURL('/courses')
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible()
  })

  test('returnTo keeps the query string', async ({ page }) => {
    const user = await signUpViaApi(page)
    await page.context().clearCookies()

    await page.goto('/courses/getting-started?lesson=2')
    await expect(page).toHaveURL(authWithReturnTo('/courses/getting-started?lesson=2'))
    await logIn(page, user.email, user.password)

    await expect(page).toHaveURL('/courses/getting-started?lesson=2')
  })

  test('a returnTo that leaves the site is ignored: the post-login routing decides', async ({ page, baseURL }) => {
    const user = await signUpViaApi(page)
    for (const returnTo of ['//evil.example/steal', 'https://evil.example/', '/\\evil.example']) {
      await page.context().clearCookies()
      await gotoReady(page, `/auth?returnTo=${encodeURIComponent(returnTo)}`)
      await logIn(page, user.email, user.password)

      // New, unpaid, no goals: /goal-intake by the routing, and its wrapper sends on to /payment.
      await expect(page).toHaveURL(`${baseURL}/payment`)
    }
  })

  test('with a session already, /auth moves straight on (returnTo first)', async ({ page }) => {
    await signUpViaApi(page)

    await gotoReady(page, '/auth')
    await expect(page).toHaveURL('/payment')

    await gotoReady(page, authWithReturnTo('/courses'))
    await expect(page).toHaveURL('/courses')
  })

  test('the password can be shown and hidden, by keyboard too', async ({ page }) => {
    await gotoReady(page, '/auth')
    const form = loginPanel(page)
    const password = form.getByLabel('Password', { exact: true })
    await password.fill('secret-words')
    await expect(password).toHaveAttribute('type', 'password')

    await form.getByRole('button', { name: 'Show password' }).focus()
    await page.keyboard.press('Enter')

    await expect(password).toHaveAttribute('type', 'text')
    await expect(form.getByRole('button', { name: 'Hide password' })).toBeFocused()
    await page.keyboard.press('Space')
    await expect(password).toHaveAttribute('type', 'password')
  })

  test('the tabs switch by keyboard and keep what was typed', async ({ page }) => {
    await gotoReady(page, '/auth')
    await loginPanel(page).getByLabel('Email', { exact: true }).fill('kept@example.com')

    await page.getByRole('tab', { name: 'Login' }).focus()
    await page.keyboard.press('ArrowRight')

    await expect(page.getByRole('tab', { name: 'Create Account' })).toHaveAttribute('aria-selected', 'true')
    await expect(page).toHaveURL('/auth?tab=signup')
    await expect(signupPanel(page).getByLabel('Full Name')).toBeVisible()
    await page.keyboard.press('ArrowLeft')
    await expect(loginPanel(page).getByLabel('Email', { exact: true })).toHaveValue('kept@example.com')
  })
})

test.describe('forgot password', () => {
  test('round trip through the emailed link: new password, signed in, the old one refused', async ({ page, playwright, baseURL, extraHTTPHeaders }) => {
    const user = await signUpViaApi(page)
    const signupSession = await page.context().storageState()
    await page.context().clearCookies()
    await gotoReady(page, '/auth')

    await loginPanel(page).getByLabel('Email', { exact: true }).fill(user.email)
    await page.getByRole('button', { name: 'Forgot Password?' }).click()
    const dialog = page.getByRole('dialog', { name: 'Reset your password' })
    await expect(dialog.getByLabel('Email')).toHaveValue(user.email)
    await dialog.getByRole('button', { name: 'Send reset link' }).click()
    await expect(dialog.getByRole('status')).toHaveText(
      'If an account exists for that email, we sent a link to reset the password. Please check your inbox.',
    )
    await dialog.getByRole('button', { name: 'Done' }).click()
    await expect(page.getByRole('button', { name: 'Forgot Password?' })).toBeFocused()

    const link = linkIn(await waitForEmail(user.email, RESET_SUBJECT))
    expect(link).toMatch(/^\/auth\?mode=reset#token=[a-z2-7]+$/)
    await page.goto(link)
    await expect(page.getByRole('heading', { level: 1, name: 'Choose a new password' })).toBeVisible()

    await page.getByLabel('New Password', { exact: true }).fill('short')
    await page.getByLabel('Confirm Password', { exact: true }).fill('other')
    await page.getByRole('button', { name: 'Update Password' }).click()
    await expect(page.getByText('Password must be at least 8 characters')).toBeVisible()
    await expect(page.getByText('Passwords do not match')).toBeVisible()

    await page.getByLabel('New Password', { exact: true }).fill(NEW_PASSWORD)
    await page.getByLabel('Confirm Password', { exact: true }).fill(NEW_PASSWORD)
    await page.getByRole('button', { name: 'Update Password' }).click()

    await expect(toast(page, 'Password updated')).toContainText('Your password has been changed. You are now signed in.')
    await expect(page).toHaveURL('/payment')
    expect((await page.request.get('/api/me')).status()).toBe(200)

    // Every other session ended with the reset (here: the one sign-up started).
    const before = await playwright.request.newContext({ baseURL, storageState: signupSession, extraHTTPHeaders })
    expect((await before.get('/api/me')).status()).toBe(401)
    await before.dispose()

    await page.getByRole('button', { name: 'Log Out' }).click()
    await expect(page).toHaveURL('/auth')
    await logIn(page, user.email, user.password)
    await expect(toast(page, 'Login failed')).toContainText('Invalid email or password')
    await logIn(page, user.email, NEW_PASSWORD)
    await expect(page).toHaveURL('/payment')

    // The link worked once.
    await page.context().clearCookies()
    await page.goto(link)
    await page.getByLabel('New Password', { exact: true }).fill('Another-Try-9090')
    await page.getByLabel('Confirm Password', { exact: true }).fill('Another-Try-9090')
    await page.getByRole('button', { name: 'Update Password' }).click()
    await expect(page.getByRole('heading', { level: 1, name: "This reset link can't be used" })).toBeVisible()
    await expect(page.getByRole('button', { name: 'Send a new link' })).toBeVisible()
  })

  test('a reset link without a token offers to request a new one', async ({ page }) => {
    await gotoReady(page, '/auth?mode=reset')

    await expect(page.getByRole('heading', { level: 1, name: "This reset link can't be used" })).toBeVisible()
    await page.getByLabel('Email').fill(uniqueEmail('nobody'))
    await page.getByRole('button', { name: 'Send a new link' }).click()
    await expect(page.getByRole('status')).toContainText('If an account exists for that email')
  })
})

test.describe('protected routes', () => {
  test('signed out: every protected route sends the visitor to /auth with returnTo', async ({ page }) => {
    const redirecting = [...SIGNED_IN_ROUTES, ...PAID_ROUTES].filter((path) => !(path in OWN_SIGNED_OUT_VIEW))
    for (const path of [...redirecting, '/courses/getting-started?lesson=2']) {
      await page.goto(path)
      await expect(page).toHaveURL(authWithReturnTo(path))
      await expect(page.getByRole('tab', { name: 'Login' })).toBeVisible()
    }
  })

  test('signed out: diagnostics and the course catalogue show their own sign-in prompt', async ({ page }) => {
    for (const [path, prompt] of Object.entries(OWN_SIGNED_OUT_VIEW)) {
      await page.goto(path)
      await expect(page.getByText(prompt)).toBeVisible()
      await expect(page).toHaveURL(path)
    }
  })

  test('signed in without payment: the paid routes send to /payment, the others open', async ({ page }) => {
    await signUpViaApi(page)

    for (const path of PAID_ROUTES) {
      await page.goto(path)
      await expect(page).toHaveURL('/payment')
      await expect(page.getByRole('heading', { level: 1, name: 'Email Confirmation Required' })).toBeVisible()
    }
    for (const path of SIGNED_IN_ROUTES) {
      await page.goto(path)
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible()
      await expect(page).toHaveURL(path)
    }
  })

  test('signed in and paid: every protected route opens', async ({ page }) => {
    await signUpViaApi(page, { paid: 'basic' })

    for (const path of [...PAID_ROUTES, ...SIGNED_IN_ROUTES]) {
      await page.goto(path)
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible()
      await expect(page).toHaveURL(path)
    }
  })

  test("while verifying: 'Verifying access...', 'Checking subscription...' on paid screens, a spinner after 500 ms", async ({ page }) => {
    await signUpViaApi(page, { paid: 'premium' })
    const release = await holdSessionCheck(page)
    // The 500 ms are the page's, not the machine's.
    const clock = await pausePageClock(page)

    await page.goto('/dashboard')
    await clock.stepUntilVisible(page.getByText('Verifying access...'))
    await expect(page.getByText('Checking subscription...')).toBeVisible()
    const spinner = page.locator('[data-slot="spinner"]')
    // It mounted during the last step: just under 500 ms later no spinner yet, 500 ms later the spinner.
    await clock.advance(SPINNER_DELAY_MS - CLOCK_STEP_MS - 1)
    await expect(spinner).toHaveCount(0)
    await clock.advance(CLOCK_STEP_MS + 1)
    await expect(spinner).toBeVisible()
    await clock.resume()
    expect(await seriousA11yViolations(page)).toEqual([])

    release()
    await expect(page.getByRole('heading', { level: 1, name: 'Dashboard' })).toBeVisible()
    await expect(page.getByText('Verifying access...')).toHaveCount(0)
  })

  test("signed-in-only screens say 'Verifying access...' without the subscription line", async ({ page }) => {
    await signUpViaApi(page)
    const release = await holdSessionCheck(page)

    await page.goto('/courses')
    await expect(page.getByText('Verifying access...')).toBeVisible()
    await expect(page.getByText('Checking subscription...')).toHaveCount(0)

    release()
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible()
  })
})

test.describe('logout', () => {
  test("from the dashboard header: the session ends on the server and protected routes ask to sign in", async ({ page }) => {
    await signUpViaApi(page, { paid: 'basic' })
    await page.goto('/dashboard')

    await page.getByRole('banner').getByRole('button', { name: 'Logout' }).click()

    await expect(page).toHaveURL('/auth')
    await expect(page.getByRole('tab', { name: 'Login' })).toBeVisible()
    expect((await page.request.get('/api/me')).status()).toBe(401)
    await page.goto('/dashboard')
    await expect(page).toHaveURL(authWithReturnTo('/dashboard'))
  })

  test("from the chat sidebar ('Log Out')", async ({ page }) => {
    await signUpViaApi(page, { paid: 'elite' })
    await page.goto('/chat')

    await page.getByRole('complementary').getByRole('button', { name: 'Log Out' }).click()

    await expect(page).toHaveURL('/auth')
    expect((await page.request.get('/api/me')).status()).toBe(401)
  })

  test('from /payment; locally signed out even when the server cannot be reached', async ({ page }) => {
    await signUpViaApi(page)
    await page.goto('/payment')
    await page.route('**/api/auth/logout', (route) => route.abort('connectionrefused'))

    await page.getByRole('banner').getByRole('button', { name: 'Log Out' }).click()

    await expect(page).toHaveURL('/auth')
    await expect(loginPanel(page).getByRole('button', { name: 'Log In' })).toBeVisible()
  })

  test("'Back to Sign In' on the confirmation view signs out and shows the login", async ({ page }) => {
    await signUpViaApi(page)
    await page.goto('/payment')

    await page.getByRole('main').getByRole('button', { name: 'Back to Sign In' }).click()

    await expect(page).toHaveURL('/auth')
    await expect(loginPanel(page).getByRole('button', { name: 'Log In' })).toBeVisible()
    expect((await page.request.get('/api/me')).status()).toBe(401)
  })
})

test.describe('accessibility (axe, WCAG 2 A and AA)', () => {
  test('/auth: both tabs, with the validation messages showing', async ({ page }) => {
    await gotoReady(page, '/auth')
    await expect(loginPanel(page).getByLabel('Email', { exact: true })).toBeVisible()
    expect(await seriousA11yViolations(page)).toEqual([])

    await loginPanel(page).getByRole('button', { name: 'Log In' }).click()
    await expect(loginPanel(page).getByText('Email is required')).toBeVisible()
    expect(await seriousA11yViolations(page)).toEqual([])

    await page.getByRole('tab', { name: 'Create Account' }).click()
    await signupPanel(page).getByRole('button', { name: 'Create Account' }).click()
    await expect(signupPanel(page).getByText('Full name is required')).toBeVisible()
    expect(await seriousA11yViolations(page)).toEqual([])
  })

  test('the forgot-password dialog', async ({ page }) => {
    await gotoReady(page, '/auth')
    await page.getByRole('button', { name: 'Forgot Password?' }).click()
    await expect(page.getByRole('dialog', { name: 'Reset your password' })).toBeVisible()

    expect(await seriousA11yViolations(page)).toEqual([])
  })

  test('the email confirmation view and the reset page', async ({ page }) => {
    await signUpViaApi(page)
    await page.goto('/payment')
    await expect(page.getByRole('heading', { level: 1, name: 'Email Confirmation Required' })).toBeVisible()
    expect(await seriousA11yViolations(page)).toEqual([])

    await gotoReady(page, '/auth?mode=reset&token=abcdefghijklmnopqrstuvwxyz234567')
    await expect(page.getByRole('heading', { level: 1, name: 'Choose a new password' })).toBeVisible()
    expect(await seriousA11yViolations(page)).toEqual([])
  })
})
