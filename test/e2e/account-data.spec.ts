import { readFileSync } from 'node:fs'
import type { Page } from '@playwright/test'
import { STRIPE_WEBHOOK_PATH } from '#common/webhooks'
import { createStripeClient } from '#server/integrations/stripe'
import { setupStripe } from '../../scripts/stripe-setup'
import { startFakeStripe, stripeEnv, type FakeStripe } from '../fakes/stripe'
import { readZip } from '../helpers/zip'
import { startAppServer, type AppServer } from './support/app-server'
import { expect, test } from './support/fixtures'
import { waitForEmail } from './support/mail'
import { seriousA11yViolations, toast } from './support/page-checks'
import { signUpViaApi } from './support/users'

/**
 * "Export my data" and "Delete my account" on /account (issue 16) in Chromium: the archive the
 * browser downloads opens and holds what the person saved; deleting the account (Stripe mode, the
 * Stripe fake behind a second server) cancels the subscription there, signs out to the landing
 * page, sends the last email, and the email can sign up again.
 */

const ORIGIN = () => process.env.E2E_BASE_URL!
const dataRegion = (page: Page) => page.getByRole('region', { name: 'Your data' })

test.describe('export my data', () => {
  test('downloads one ZIP whose files parse and hold what the person saved; a second export within 10 minutes is refused with the wait', async ({ page }) => {
    const user = await signUpViaApi(page, { paid: 'basic', fullName: 'Robin Archive' })
    const marker = `kept-${Date.now().toString(36)}`
    // What the person saved: a conversation, the goal intake, a free course.
    const conversation = await page.request.post('/api/conversations', { headers: { origin: ORIGIN() }, data: { title: `Chat about ${marker}` } })
    expect(conversation.status()).toBe(201)
    const goals = await page.request.put('/api/goals', {
      headers: { origin: ORIGIN() },
      data: {
        areas: Object.fromEntries(
          ['faith', 'family', 'fitness', 'finance', 'friends', 'fun', 'service', 'personal_development'].map((area) => [area, { selectedOptions: [], satisfactionScore: 7, customNotes: area === 'fitness' ? `Notes ${marker}` : '' }]),
        ),
        workCareer: { company: null, industry: null, role: '' },
        specificGoals: { goal90Days: `Goal ${marker}`, goal12Months: '', goal5Years: '', obstacles: '' },
        callTime: { time: null, period: null, timezone: null },
      },
    })
    expect(goals.status(), await goals.text()).toBe(200)
    const catalogue = (await (await page.request.get('/api/courses')).json()) as { courses: Array<{ id: string; title: string; isPremium: boolean }> }
    const course = catalogue.courses.find((item) => !item.isPremium)!
    expect((await page.request.post(`/api/courses/${course.id}/enroll`, { headers: { origin: ORIGIN() } })).status()).toBe(200)

    await page.goto('/account')
    await expect(page.getByRole('heading', { level: 1, name: 'Account' })).toBeVisible()
    await expect(dataRegion(page)).toBeVisible()
    expect(await seriousA11yViolations(page)).toEqual([])

    const downloading = page.waitForEvent('download')
    await dataRegion(page).getByRole('button', { name: 'Export my data' }).click()
    const download = await downloading
    expect(download.suggestedFilename()).toMatch(/^momentum-coach-data-\d{4}-\d{2}-\d{2}\.zip$/)
    await expect(toast(page, 'Your data is downloading')).toBeVisible()

    const files = await readZip(readFileSync((await download.path())!))
    expect([...files.keys()]).toEqual(expect.arrayContaining(['README.md', 'account.json', 'goals.json', 'calls.json', 'conversations.json', 'courses.json', 'consent.json', 'billing.json', 'sessions.json']))
    expect(files.get('README.md')).toContain(`Everything Momentum Coach keeps about the account ${user.email}`)
    const json = (name: string) => JSON.parse(files.get(name)!) as Record<string, Array<Record<string, unknown>>>
    expect(json('account.json').account).toEqual([expect.objectContaining({ email: user.email, full_name: 'Robin Archive' })])
    expect(json('account.json').account![0]).not.toHaveProperty('password_hash')
    expect(json('goals.json').goals).toEqual(expect.arrayContaining([expect.objectContaining({ life_area: 'fitness', custom_notes: `Notes ${marker}` })]))
    expect(JSON.stringify(json('goals.json'))).toContain(`Goal ${marker}`)
    expect(json('conversations.json').conversations).toEqual([expect.objectContaining({ title: `Chat about ${marker}` })])
    expect(json('courses.json').enrollments).toEqual([expect.objectContaining({ course_id: course.id, course_title: course.title })])
    expect(json('consent.json').ledger).toEqual(expect.arrayContaining([expect.objectContaining({ channel: 'calls', action: 'granted', source: 'sign_up' })]))
    expect(json('billing.json').subscription).toEqual([expect.objectContaining({ tier: 'basic', source: 'testing' })])
    expect(json('sessions.json').sessions!.length).toBeGreaterThan(0)

    // Again at once: refused, saying how long to wait.
    await dataRegion(page).getByRole('button', { name: 'Export my data' }).click()
    await expect(toast(page, 'Export not available yet')).toContainText('You can export your data once every 10 minutes. Please try again in 10 minutes.')
  })
})

test.describe('delete my account (Stripe mode)', () => {
  let fake: FakeStripe
  let server: AppServer
  let base = ''

  test.beforeAll(async () => {
    test.setTimeout(120_000)
    fake = await startFakeStripe()
    await setupStripe(createStripeClient({ secretKey: fake.secretKey, apiUrl: fake.url }))
    server = await startAppServer(stripeEnv(fake))
    base = server.baseUrl
    fake.setWebhookUrl(`${base}${STRIPE_WEBHOOK_PATH}`)
  })
  test.afterAll(async () => {
    await server?.stop()
    await fake?.close()
  })

  test('a plan cancelled in the billing portal says on the account page when it ends, and that nothing more will be charged', async ({ page }) => {
    await signUpViaApi(page, { origin: base, confirmed: true, fullName: 'Pat Pausing' })
    const checkout = await page.request.post(`${base}/api/billing/embedded-checkout`, { headers: { origin: base }, data: { plan: 'basic' } })
    expect(checkout.status(), await checkout.text()).toBe(200)
    const sessionId = ((await checkout.json()) as { session_id: string }).session_id
    expect(await fake.deliver(fake.completeCheckout(sessionId))).toEqual([200, 200, 200])
    const subscriptionId = fake.sessions.get(sessionId)!.subscription as string

    await page.goto(`${base}/account`)
    const billing = page.getByTestId('billing-summary')
    await expect(billing.getByText('Free trial')).toBeVisible()
    await expect(billing.getByText('Cancelled')).toHaveCount(0)

    // Cancelled in Stripe's portal (at the period's end); Stripe tells the app.
    await createStripeClient({ secretKey: fake.secretKey, apiUrl: fake.url }).subscriptions.update(subscriptionId, { cancel_at_period_end: true })
    expect(await fake.deliver(fake.setSubscriptionStatus(subscriptionId, 'trialing'))).toEqual([200])

    await page.reload()
    await expect(billing.getByText(/^Your plan ends on .+; no further payment will be taken$/)).toBeVisible()
    expect(await seriousA11yViolations(page)).toEqual([])
  })

  test('asks for the password and the email in a dialog, cancels the subscription in Stripe, signs out to the landing page, emails, and the email can sign up again', async ({ page }) => {
    const user = await signUpViaApi(page, { origin: base, confirmed: true, fullName: 'Sam Leaving' })
    // A Premium subscription through Stripe's checkout (completed in the fake; its webhooks delivered).
    const checkout = await page.request.post(`${base}/api/billing/embedded-checkout`, { headers: { origin: base }, data: { plan: 'premium' } })
    expect(checkout.status(), await checkout.text()).toBe(200)
    const sessionId = ((await checkout.json()) as { session_id: string }).session_id
    expect(await fake.deliver(fake.completeCheckout(sessionId))).toEqual([200, 200, 200])
    const subscriptionId = fake.sessions.get(sessionId)!.subscription as string
    expect(fake.subscriptions.get(subscriptionId)!.status).toBe('trialing')

    await page.goto(`${base}/account`)
    const region = dataRegion(page)
    await region.getByRole('button', { name: 'Delete my account' }).click()
    const dialog = page.getByRole('dialog', { name: 'Delete your account?' })
    await expect(dialog).toBeVisible()
    expect(await seriousA11yViolations(page)).toEqual([])

    // Keyboard only: the fields are labelled, the errors named under them.
    await dialog.getByRole('button', { name: 'Delete my account' }).click()
    await expect(dialog.getByText('Enter your password')).toBeVisible()
    await expect(dialog.getByLabel('Your password', { exact: true })).toBeFocused()
    await page.keyboard.type('not-my-password-at-all')
    await dialog.getByLabel(`Type your email (${user.email}) to confirm`).fill(user.email.toUpperCase())
    await page.keyboard.press('Enter')
    await expect(dialog.getByText('The password is not correct.')).toBeVisible()
    await expect(dialog.getByLabel('Your password', { exact: true })).toBeFocused()
    expect(fake.subscriptions.get(subscriptionId)!.status).toBe('trialing')

    await dialog.getByLabel('Your password', { exact: true }).fill(user.password)
    await dialog.getByRole('button', { name: 'Delete my account' }).click()
    await expect(page).toHaveURL(`${base}/`)
    await expect(toast(page, 'Your account has been deleted')).toContainText(`We sent a last email to ${user.email}.`)

    // Stripe: cancelled at once. The session: gone. The last email: sent.
    expect(fake.subscriptions.get(subscriptionId)!.status).toBe('canceled')
    expect((await page.request.get(`${base}/api/me`)).status()).toBe(401)
    await waitForEmail(user.email, /^Your Momentum Coach account has been deleted$/)

    // The email signs up again.
    const again = await page.request.post(`${base}/api/auth/signup`, {
      headers: { origin: base },
      data: { fullName: 'Sam Returning', email: user.email, phoneNumber: '2025234567', password: user.password, confirmPassword: user.password, communicationConsent: true, termsAccepted: true },
    })
    expect(again.status(), await again.text()).toBe(201)
  })
})
