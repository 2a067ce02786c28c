import AxeBuilder from '@axe-core/playwright'
import type { Locator, Page } from '@playwright/test'
import { STRIPE_WEBHOOK_PATH } from '#common/webhooks'
import { createStripeClient } from '#server/integrations/stripe'
import { priceLookupKey } from '#server/services/billing'
import { setupStripe } from '../../scripts/stripe-setup'
import { startFakeStripe, stripeEnv, type FakeStripe } from '../fakes/stripe'
import { startAppServer, type AppServer } from './support/app-server'
import { expect, test, uniqueEmail } from './support/fixtures'
import { holdRequests } from './support/hold'
import { linkIn, tokenOf, waitForEmail } from './support/mail'
import { signUpViaApi } from './support/users'

/**
 * Payment, text opt-in and diagnostics in the browser (spec 1 §2, §4, §8, §9; spec 2 §2, §4, §8).
 * Testing mode runs against the suite's server (no Stripe keys). Stripe mode starts a faithful
 * Stripe fake and a second server pointed at it; Stripe.js itself cannot load on this offline
 * machine (js.stripe.com is unreachable), which is exactly the inline-error path the spec defines.
 */

const CONFIRM_SUBJECT = /^Confirm your email for Momentum Coach$/

/** A toast (sonner) by its title. */
function toast(page: Page, title: string): Locator {
  return page
    .getByRole('region', { name: /Notifications/ })
    .getByRole('listitem')
    .filter({ has: page.getByText(title, { exact: true }) })
}

async function seriousA11yViolations(page: Page) {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa']).analyze()
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(({ id, help, nodes }) => ({ id, help, targets: nodes.map((node) => node.target.join(' ')) }))
}

/** Follows the emailed confirmation link (on `origin`), which lands on /payment. */
async function confirmEmail(page: Page, email: string, origin = '') {
  const link = linkIn(await waitForEmail(email, CONFIRM_SUBJECT))
  await page.goto(`${origin}${link}`)
  await page.getByRole('button', { name: 'Confirm email' }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'Choose your plan' })).toBeVisible()
}

const plansList = (page: Page) => page.getByRole('list', { name: 'Plans' })
const testingBanner = (page: Page) => page.getByRole('region', { name: 'Payment testing mode' })

test.describe('payment in testing mode', () => {
  test("the unconfirmed-email view: 'I've Confirmed My Email' with both toasts, and 'Back to Sign In'", async ({ page }) => {
    const user = await signUpViaApi(page)
    await page.goto('/payment')
    await expect(page.getByRole('heading', { level: 1, name: 'Email Confirmation Required' })).toBeVisible()
    expect(await seriousA11yViolations(page)).toEqual([])

    await page.getByRole('button', { name: "I've Confirmed My Email" }).click()
    await expect(toast(page, 'Email Not Confirmed Yet')).toContainText('Please check your email and click the confirmation link first.')

    const link = linkIn(await waitForEmail(user.email, CONFIRM_SUBJECT))
    const other = await page.context().newPage()
    await other.goto(link)
    await other.getByRole('button', { name: 'Confirm email' }).click()
    await expect(other).toHaveURL('/payment')
    await other.close()
    await page.getByRole('button', { name: "I've Confirmed My Email" }).click()
    await expect(toast(page, 'Email Confirmed!')).toContainText('You can now proceed with your subscription.')
    await expect(plansList(page).getByRole('group')).toHaveCount(3)

    const second = await signUpViaApi(page)
    await page.goto('/payment')
    await expect(page.getByRole('heading', { level: 1, name: 'Email Confirmation Required' })).toBeVisible()
    await page.getByRole('button', { name: 'Back to Sign In' }).click()
    await expect(page).toHaveURL(/\/auth/)
    expect(second.email).not.toBe(user.email)
  })

  test('shows the three plan cards from the server, Premium marked MOST POPULAR, and says it is testing mode', async ({ page }) => {
    const stripeRequests: string[] = []
    page.on('request', (request) => {
      if (request.url().includes('stripe.com')) stripeRequests.push(request.url())
    })
    const user = await signUpViaApi(page)
    await confirmEmail(page, user.email)

    const plans = plansList(page)
    await expect(plans.getByRole('group')).toHaveCount(3)
    for (const [name, price] of [
      ['Basic', '$50'],
      ['Premium', '$197'],
      ['Elite', '$497'],
    ] as const) {
      const card = plans.getByRole('group', { name })
      await expect(card).toContainText(price)
      await expect(card.getByRole('button', { name: `Choose ${name}` })).toBeEnabled()
    }
    await expect(plans.getByRole('group', { name: 'Premium' })).toContainText('MOST POPULAR')
    await expect(plans.getByText('MOST POPULAR')).toHaveCount(1)
    await expect(plans.getByRole('group', { name: 'Basic' })).toContainText('Daily 5-minute accountability calls')
    await expect(page.getByText('Testing mode.', { exact: false })).toBeVisible()
    // The banner every signed-in page shows in testing mode.
    await expect(testingBanner(page)).toHaveText('Testing mode: payments are not being taken.')
    expect(await seriousA11yViolations(page)).toEqual([])
    // Testing mode never loads Stripe.js.
    expect(stripeRequests).toEqual([])

    // It is on the other signed-in screens too, and not on the public ones once signed out.
    await page.goto('/courses')
    await expect(page.getByRole('heading', { level: 1, name: 'Course Platform' })).toBeVisible()
    await expect(testingBanner(page)).toBeVisible()
    await page.getByRole('button', { name: /Log ?out/i }).first().click()
    await expect(page).toHaveURL(/\/auth/)
    await expect(testingBanner(page)).toHaveCount(0)
  })

  test('choosing a plan activates it, then /opt-in, then /goal-intake', async ({ page }) => {
    const user = await signUpViaApi(page)
    await confirmEmail(page, user.email)

    await plansList(page).getByRole('button', { name: 'Choose Elite' }).click()
    await expect(toast(page, 'Testing Mode Active')).toContainText('Subscription activated without payment for testing')
    await expect(page).toHaveURL('/opt-in', { timeout: 10_000 })

    await expect(page.getByRole('heading', { level: 1, name: 'Get updates by text' })).toBeVisible()
    await expect(page.getByText('START', { exact: true })).toBeVisible()
    await expect(page.getByRole('link', { name: '(555) 555-0123' })).toBeVisible()
    const consent = page.getByTestId('opt-in-consent')
    await expect(consent).toContainText('Text START to (555) 555-0123')
    await expect(consent).toContainText('texting STOP')
    await expect(consent).toContainText('Standard message and data rates may apply.')
    expect(await seriousA11yViolations(page)).toEqual([])

    const me = await (await page.request.get('/api/me')).json()
    expect(me.user).toMatchObject({ hasCompletedPayment: true, subscriptionTier: 'elite', hasOptedIn: false })

    await page.getByRole('button', { name: "I've completed this step" }).click()
    await expect(page.getByRole('button', { name: 'Processing...' })).toBeDisabled()
    await expect(toast(page, 'Success')).toContainText("You're all set! You'll now receive important updates via text.")
    await expect(page).toHaveURL('/goal-intake')
    const after = await (await page.request.get('/api/me')).json()
    expect(after.user.hasOptedIn).toBe(true)

    // The plan started with the 7-day free trial: the dashboard says 'Trial' and when it ends.
    const subscription = await (await page.request.get('/api/billing/check-subscription')).json()
    expect(subscription).toMatchObject({ status: 'trialing', paid: true, source: 'testing' })
    const trialEnd = new Date(subscription.trial_end as string)
    expect(trialEnd.getTime() - Date.now()).toBeGreaterThan(6.9 * 24 * 3_600_000)
    await page.goto('/dashboard')
    await expect(page.getByTestId('subscription-badge')).toHaveText('Trial')
    await expect(testingBanner(page)).toBeVisible()
    const dateText = new Intl.DateTimeFormat('en-US', { month: 'long', day: 'numeric', year: 'numeric' }).format(trialEnd)
    await expect(page.getByRole('status').filter({ hasText: 'Your free trial ends on' })).toContainText(`Your free trial ends on ${dateText}.`)
    expect(await seriousA11yViolations(page)).toEqual([])
  })

  test('/opt-in needs a user (to /auth) and completed payment (to /payment)', async ({ page }) => {
    await page.goto('/opt-in')
    await expect(page).toHaveURL(/\/auth\?returnTo=%2Fopt-in/)
    await signUpViaApi(page)
    await page.goto('/opt-in')
    await expect(page).toHaveURL('/payment')
  })
})

test.describe('diagnostics', () => {
  test('signed out: Authentication Required', async ({ page }) => {
    await page.goto('/debug/edge-functions')
    await expect(page.getByRole('heading', { level: 1, name: 'Authentication Required' })).toBeVisible()
    await expect(page.getByText('Please sign in to access the Edge Functions Diagnostics page.')).toBeVisible()
    expect(await seriousA11yViolations(page)).toEqual([])
  })

  test('five functions, each with its status, duration and answer or error; the debug panel', async ({ page }) => {
    const user = await signUpViaApi(page, { paid: 'basic' })
    await page.goto('/debug/edge-functions')
    await expect(page.getByRole('heading', { level: 1, name: 'Edge Functions Diagnostics' })).toBeVisible()
    const panel = page.getByRole('definition')
    await expect(panel.filter({ hasText: user.email })).toHaveCount(1)
    await expect(page.getByText('(202) 523-4567')).toBeVisible()

    const expectations = {
      'check-subscription': { status: 'Success', text: '"subscribed": true' },
      'get-stripe-key': { status: 'Error', text: 'Payments are in testing mode' },
      'create-embedded-checkout': { status: 'Error', text: 'Payments are in testing mode' },
      'customer-portal': { status: 'Error', text: 'Payments are in testing mode' },
      'vapi-config': { status: 'Success', text: '"available"' },
    } as const
    for (const [name, expected] of Object.entries(expectations)) {
      const card = page.getByTestId(`function-${name}`)
      await expect(card.getByLabel('Status: Idle')).toBeVisible()
      await card.getByRole('button', { name: `Test ${name}` }).click()
      await expect(card.getByLabel(`Status: ${expected.status}`)).toBeVisible()
      await expect(card).toContainText(/\d+ ms/)
      await expect(card).toContainText(expected.text)
      if (expected.status === 'Success') await expect(toast(page, `${name} completed successfully`)).toBeVisible()
      else await expect(page.getByRole('region', { name: /Notifications/ })).toContainText(`${name} failed: `)
    }
    expect(await seriousA11yViolations(page)).toEqual([])
  })
})

// ---- Stripe mode: a fake Stripe and a second server pointed at it ------------------------------



const startStripeServer = (fake: FakeStripe): Promise<AppServer> => startAppServer(stripeEnv(fake))

test.describe('payment in Stripe mode', () => {
  // In order, in one worker (one fake and one server for the three tests; a failure does not skip the rest).
  test.describe.configure({ mode: 'default' })
  let fake: FakeStripe
  let server: AppServer
  let base = ''
  // The account the tests sign in with (made in beforeAll).
  const account = { email: uniqueEmail('stripe'), password: 'steady-maple-lantern-42', id: '' }

  test.beforeAll(async ({ playwright }) => {
    test.setTimeout(120_000)
    fake = await startFakeStripe()
    await setupStripe(createStripeClient({ secretKey: fake.secretKey, apiUrl: fake.url }))
    server = await startStripeServer(fake)
    base = server.baseUrl
    fake.setWebhookUrl(`${base}${STRIPE_WEBHOOK_PATH}`)

    // The account every test here signs in with: signed up and confirmed through the API.
    const api = await playwright.request.newContext({ baseURL: base, extraHTTPHeaders: { origin: base, 'x-forwarded-for': '10.250.0.1' } })
    const signup = await api.post('/api/auth/signup', {
      data: {
        fullName: 'Avery Stripe',
        email: account.email,
        phoneNumber: '2025876543',
        password: account.password,
        confirmPassword: account.password,
        communicationConsent: true,
        termsAccepted: true,
      },
    })
    expect(signup.status()).toBe(201)
    account.id = (await signup.json()).user.id
    const token = tokenOf(linkIn(await waitForEmail(account.email, CONFIRM_SUBJECT)))
    expect((await api.post('/api/auth/confirm-email', { data: { token } })).status()).toBe(200)
    await api.dispose()
  })
  test.afterAll(async () => {
    await server?.stop()
    await fake?.close()
  })

  async function signIn(page: Page) {
    const response = await page.request.post(`${base}/api/auth/login`, {
      headers: { origin: base },
      data: { email: account.email, password: account.password },
    })
    expect(response.status()).toBe(200)
  }

  test('the dialog opens, shows Setting up payment..., and with Stripe.js unreachable shows the inline error and hint', async ({ page }) => {
    await signIn(page)
    const checked = page.waitForResponse((response) => response.url().endsWith('/api/billing/check-subscription'))
    await page.goto(`${base}/payment`)
    await expect(page.getByRole('heading', { level: 1, name: 'Choose your plan' })).toBeVisible()
    await expect(page.getByText('Testing mode.', { exact: false })).toHaveCount(0)
    expect((await (await checked).json()).payment_mode).toBe('stripe')
    await expect(testingBanner(page)).toHaveCount(0)

    // Hold our own checkout request so the loading state can be seen; js.stripe.com is left alone
    // (unreachable here, as it is on this machine).
    const releaseCheckout = await holdRequests(page, '**/api/billing/embedded-checkout')
    await plansList(page).getByRole('button', { name: 'Choose Premium' }).click()

    const dialog = page.getByRole('dialog', { name: 'Complete Your Subscription' })
    await expect(dialog).toBeVisible()
    await expect(dialog).toContainText('Complete your payment to activate your subscription')
    await expect(dialog.getByText('Setting up payment...')).toBeVisible()
    expect(await seriousA11yViolations(page)).toEqual([])
    releaseCheckout()

    const alert = dialog.getByRole('alert')
    await expect(alert).toContainText('Failed to load payment system', { timeout: 20_000 })
    await expect(alert).toContainText('Please try refreshing the page')

    // The server made an embedded subscription session for Premium's price, for this user.
    const session = fake.latestSessionFor(account.id)
    const premium = [...fake.prices.values()].find((price) => price.lookup_key === priceLookupKey('premium'))!
    expect(session).toMatchObject({ ui_mode: 'embedded_page', mode: 'subscription', status: 'open' })
    expect(session?._lineItems[0]).toMatchObject({ price: premium.id })

    // Closing clears it.
    await dialog.getByRole('button', { name: 'Close' }).click()
    await expect(dialog).toHaveCount(0)
  })

  test("a signed webhook for the user's checkout unlocks the paid routes; cancelling locks them again", async ({ page }) => {
    await signIn(page)
    await page.goto(`${base}/opt-in`)
    await expect(page).toHaveURL(`${base}/payment`)

    // The checkout the dialog started (or, when this test runs alone, one made the same way).
    let session = fake.latestSessionFor(account.id)
    if (!session || session.status !== 'open') {
      const created = await page.request.post(`${base}/api/billing/embedded-checkout`, { headers: { origin: base }, data: { plan: 'premium' } })
      expect(created.status()).toBe(200)
      session = fake.sessions.get((await created.json()).session_id)!
    }
    const events = fake.completeCheckout(session.id as string)
    expect(await fake.deliver(events)).toEqual([200, 200, 200])

    await page.goto(`${base}/opt-in`)
    await expect(page.getByRole('heading', { level: 1, name: 'Get updates by text' })).toBeVisible()
    await expect(page).toHaveURL(`${base}/opt-in`)
    await page.goto(`${base}/goal-intake`)
    await expect(page).toHaveURL(`${base}/goal-intake`)
    const me = await (await page.request.get(`${base}/api/me`)).json()
    expect(me.user).toMatchObject({ hasSubscription: true, hasCompletedPayment: true, subscriptionTier: 'premium' })

    // The plans page now says so (the first checkout starts the free trial); choosing again is refused by the server.
    await page.goto(`${base}/payment`)
    await expect(page.getByText(/Your free trial of the Premium plan runs until/)).toBeVisible()
    await expect(page.getByRole('button', { name: 'Manage billing' })).toBeVisible()

    const subscriptionId = session.subscription as string
    expect(await fake.deliver(fake.cancel(subscriptionId))).toEqual([200])
    await page.goto(`${base}/opt-in`)
    await expect(page).toHaveURL(`${base}/payment`)
  })

  test('diagnostics: the five functions answer or give a clear error', async ({ page }) => {
    await signIn(page)
    await page.goto(`${base}/debug/edge-functions`)
    await expect(page.getByRole('heading', { level: 1, name: 'Edge Functions Diagnostics' })).toBeVisible()
    const expectations = {
      'check-subscription': { status: 'Success', text: '"payment_mode": "stripe"' },
      'get-stripe-key': { status: 'Success', text: '"publishable_key": "pk_test_' },
      'create-embedded-checkout': { status: 'Success', text: '"client_secret": "cs_test_' },
      'customer-portal': { status: 'Success', text: `"url": "${fake.url}/portal/bps_` },
      'vapi-config': { status: 'Success', text: '"available": false' },
    } as const
    for (const [name, expected] of Object.entries(expectations)) {
      const card = page.getByTestId(`function-${name}`)
      await card.getByRole('button', { name: `Test ${name}` }).click()
      await expect(card.getByLabel(`Status: ${expected.status}`)).toBeVisible()
      await expect(card).toContainText(/\d+ ms/)
      await expect(card).toContainText(expected.text)
    }
    expect(await seriousA11yViolations(page)).toEqual([])
  })
})
