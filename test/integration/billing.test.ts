import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { and, eq, inArray, sql } from 'drizzle-orm'
import type { FastifyInstance, InjectOptions } from 'fastify'
import type Stripe from 'stripe'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SessionUserResponseSchema } from '#common/auth'
import { CheckSubscriptionResponseSchema, CreateCheckoutResponseSchema } from '#common/billing'
import type { PlanId } from '#common/plans'
import { hashPassword } from '#server/auth/password'
import { createSession } from '#server/auth/session'
import { processedWebhookEvents, profiles, subscribers, users, type Subscriber } from '#server/db/schema'
import { getAccess, paidUserCondition } from '#server/services/billing'
import { createBilling, type CheckoutPaymentContext } from '#server/services/billing'
import { createMailer } from '#server/integrations/mailer'
import { createStripeClient } from '#server/integrations/stripe'
import { priceLookupKey } from '#server/services/billing'
import { setupStripe } from '../../scripts/stripe-setup'
import { FAKE_PUBLISHABLE_KEY, startFakeStripe, stripeEnv, type FakeStripe } from '../fakes/stripe'
import { buildTestApp } from '../helpers/app'
import { createTestDatabase, hasPostgres, type TestDatabase } from '../helpers/db'
import { insertUser } from '../helpers/factories'
import { signedInUser, type SignedIn } from '../helpers/users'

const DAY = 24 * 3_600_000
const execFileAsync = promisify(execFile)

let database: TestDatabase
let fake: FakeStripe
let app: FastifyInstance
let testingApp: FastifyInstance

let ip = 0
/** Each call from its own client address (believed from the loopback proxy), so per-IP limits never trip. */
function call(target: FastifyInstance, options: InjectOptions) {
  ip += 1
  return target.inject({
    remoteAddress: '127.0.0.1',
    ...options,
    headers: { 'x-forwarded-for': `10.9.${Math.floor(ip / 250)}.${ip % 250}`, ...(options.headers ?? {}) },
  })
}

async function deliver(events: Stripe.Event[], target = app) {
  const responses = []
  for (const event of events) {
    const { payload, headers } = fake.sign(event)
    responses.push(await call(target, { method: 'POST', url: '/api/webhooks/stripe', headers, payload }))
  }
  return responses
}

async function checkSubscription(user: SignedIn, target = app) {
  const response = await call(target, { method: 'GET', url: '/api/billing/check-subscription', headers: user.headers })
  expect(response.statusCode).toBe(200)
  return CheckSubscriptionResponseSchema.parse(response.json())
}

async function me(user: SignedIn) {
  return SessionUserResponseSchema.parse((await call(app, { method: 'GET', url: '/api/me', headers: user.headers })).json()).user
}

async function startCheckout(user: SignedIn, body: Record<string, unknown>) {
  const response = await call(app, { method: 'POST', url: '/api/billing/embedded-checkout', headers: user.headers, payload: body })
  return response
}

/** A user who went through checkout for `plan`; returns the events Stripe would send (undelivered). */
async function checkedOut(plan: PlanId) {
  const user = await signedInUser(app)
  const response = await startCheckout(user, { plan })
  expect(response.statusCode).toBe(200)
  const { session_id } = CreateCheckoutResponseSchema.parse(response.json())
  const events = fake.completeCheckout(session_id)
  const subscriptionId = fake.sessions.get(session_id)!.subscription as string
  return { user, sessionId: session_id, subscriptionId, events }
}

const recorded = async (eventId: string) =>
  (
    await app.db
      .select()
      .from(processedWebhookEvents)
      .where(and(eq(processedWebhookEvents.provider, 'stripe'), eq(processedWebhookEvents.eventId, eventId)))
  ).length

beforeAll(async () => {
  database = await createTestDatabase()
  fake = await startFakeStripe()
  await setupStripe(createStripeClient({ secretKey: fake.secretKey, apiUrl: fake.url }))
  app = await buildTestApp({ database, env: stripeEnv(fake) })
  testingApp = await buildTestApp({ database })
})
afterAll(async () => {
  await app?.close()
  await testingApp?.close()
  await fake?.close()
  await database?.destroy()
})

describe('npm run stripe:setup', () => {
  it('creates the products, the monthly prices with lookup keys and a portal configuration once', async () => {
    const own = await startFakeStripe()
    try {
      const stripe = createStripeClient({ secretKey: own.secretKey, apiUrl: own.url })
      const first = await setupStripe(stripe)
      expect(Object.values(first.prices).every((price) => price.created)).toBe(true)
      const amounts = [...own.prices.values()].map((price) => [price.lookup_key, price.unit_amount, (price.recurring as { interval: string }).interval])
      expect(amounts).toEqual([
        [priceLookupKey('basic'), 5000, 'month'],
        [priceLookupKey('premium'), 19700, 'month'],
        [priceLookupKey('elite'), 49700, 'month'],
      ])
      expect(first.portalConfiguration.created).toBe(true)

      const again = await setupStripe(stripe)
      expect(Object.values(again.prices).some((price) => price.created)).toBe(false)
      expect(again.portalConfiguration).toMatchObject({ id: first.portalConfiguration.id, created: false, updated: false })
      expect(own.prices.size).toBe(3)
      expect(own.products.size).toBe(3)
      expect(own.portalConfigurations.size).toBe(1)

      // A price whose amount is wrong is replaced: the key moves, the old price is archived.
      const basic = own.prices.get(first.prices.basic.id)!
      basic.unit_amount = 4000
      const fixed = await setupStripe(stripe)
      expect(fixed.prices.basic.created).toBe(true)
      expect(own.prices.get(first.prices.basic.id)).toMatchObject({ active: false, lookup_key: null })
      expect(own.prices.get(fixed.prices.basic.id)).toMatchObject({ active: true, unit_amount: 5000, lookup_key: priceLookupKey('basic') })
      expect(fixed.portalConfiguration.updated).toBe(true)
    } finally {
      await own.close()
    }
  })

  it('runs as a command: prints what it did and the webhook to configure; refuses a bad key', async () => {
    const own = await startFakeStripe()
    try {
      const run = (env: Record<string, string>) =>
        execFileAsync(process.execPath, ['--import', 'tsx', 'scripts/stripe-setup.ts'], { env: { ...process.env, APP_URL: 'https://coach.example.com', ...env } })
      const { stdout } = await run({ STRIPE_SECRET_KEY: own.secretKey, STRIPE_API_URL: own.url })
      expect(stdout).toContain(`with lookup key ${priceLookupKey('premium')}`)
      expect(stdout).toContain('Webhook endpoint: https://coach.example.com/api/webhooks/stripe')
      expect(own.prices.size).toBe(3)
      await expect(run({ STRIPE_SECRET_KEY: 'not-a-key' })).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('STRIPE_SECRET_KEY must look like') })
    } finally {
      await own.close()
    }
  })
})

describe('POST /api/billing/embedded-checkout', () => {
  it("creates an embedded subscription session for the plan's price, reusing one customer per user", async () => {
    const user = await signedInUser(app)
    const customersBefore = fake.requestsTo('/v1/customers', 'POST').length
    const first = await startCheckout(user, { plan: 'premium' })
    expect(first.statusCode).toBe(200)
    const { client_secret, session_id } = CreateCheckoutResponseSchema.parse(first.json())
    expect(client_secret).toMatch(new RegExp(`^${session_id}_secret_`))

    const customerCalls = fake.requestsTo('/v1/customers', 'POST').slice(customersBefore)
    expect(customerCalls).toHaveLength(1)
    expect(customerCalls[0]).toMatchObject({ idempotencyKey: `customer:${user.user.id}`, params: { email: user.user.email, metadata: { userId: user.user.id } } })
    const [row] = await app.db.select().from(subscribers).where(eq(subscribers.userId, user.user.id))
    expect(row?.stripeCustomerId).toMatch(/^cus_/)

    const sent = fake.requestsTo('/v1/checkout/sessions', 'POST').at(-1)!
    const premiumPrice = [...fake.prices.values()].find((price) => price.lookup_key === priceLookupKey('premium'))!
    expect(sent.params).toMatchObject({
      ui_mode: 'embedded_page',
      mode: 'subscription',
      customer: row!.stripeCustomerId,
      line_items: [{ price: premiumPrice.id, quantity: '1' }],
      client_reference_id: user.user.id,
      metadata: { userId: user.user.id, tier: 'premium' },
      subscription_data: { metadata: { userId: user.user.id, tier: 'premium' } },
      return_url: 'http://localhost:3000/payment?session_id={CHECKOUT_SESSION_ID}',
    })
    expect(sent.params).not.toHaveProperty('payment_method_types')
    expect(sent.params).not.toHaveProperty('customer_email')
    expect(sent.idempotencyKey).toMatch(new RegExp(`^checkout:${user.user.id}:premium:`))

    // The next checkout (selectedPlan names the plan) reuses the customer and sends that plan's price.
    const second = await startCheckout(user, { selectedPlan: 'elite' })
    expect(second.statusCode).toBe(200)
    expect(fake.requestsTo('/v1/customers', 'POST').length).toBe(customersBefore + 1)
    const elitePrice = [...fake.prices.values()].find((price) => price.lookup_key === priceLookupKey('elite'))!
    expect(fake.requestsTo('/v1/checkout/sessions', 'POST').at(-1)!.params).toMatchObject({
      customer: row!.stripeCustomerId,
      line_items: [{ price: elitePrice.id }],
    })
  })

  it('replays the same session for a repeated attempt id (idempotency key)', async () => {
    const user = await signedInUser(app)
    const a = CreateCheckoutResponseSchema.parse((await startCheckout(user, { plan: 'basic', attempt: 'attempt-0001' })).json())
    const b = CreateCheckoutResponseSchema.parse((await startCheckout(user, { plan: 'basic', attempt: 'attempt-0001' })).json())
    const c = CreateCheckoutResponseSchema.parse((await startCheckout(user, { plan: 'basic', attempt: 'attempt-0002' })).json())
    expect(b.session_id).toBe(a.session_id)
    expect(c.session_id).not.toBe(a.session_id)
    expect(fake.requestsTo('/v1/checkout/sessions', 'POST').filter((r) => r.replayed).length).toBeGreaterThanOrEqual(1)
  })

  it('needs a session, a plan and Stripe', async () => {
    expect((await call(app, { method: 'POST', url: '/api/billing/embedded-checkout', headers: { origin: 'http://localhost:3000' }, payload: { plan: 'basic' } })).statusCode).toBe(401)
    const user = await signedInUser(app)
    const monthly = await startCheckout(user, { selectedPlan: 'monthly' })
    expect(monthly.statusCode).toBe(400)
    expect(monthly.json().error.field).toBe('plan')
    const unknown = await startCheckout(user, { plan: 'platinum' })
    expect(unknown.statusCode).toBe(400)
    expect(unknown.json().error.field).toBe('plan')

    const testingUser = await signedInUser(testingApp)
    const testing = await call(testingApp, { method: 'POST', url: '/api/billing/embedded-checkout', headers: testingUser.headers, payload: { plan: 'basic' } })
    expect(testing.statusCode).toBe(409)
    expect(testing.json().error.code).toBe('PAYMENTS_NOT_CONFIGURED')
  })

  it('refuses an unconfirmed email with 403 EMAIL_NOT_CONFIRMED before anything is made at Stripe', async () => {
    const user = await signedInUser(app, { confirmed: false })
    const requestsBefore = fake.requests.length
    const response = await startCheckout(user, { plan: 'basic' })
    expect(response.statusCode).toBe(403)
    expect(response.json().error.code).toBe('EMAIL_NOT_CONFIRMED')
    expect(fake.requests.length).toBe(requestsBefore)
    const [row] = await app.db.select().from(subscribers).where(eq(subscribers.userId, user.user.id))
    expect(row).toBeUndefined()
  })

  it('refuses a second subscription while one is active', async () => {
    const { user, events } = await checkedOut('basic')
    await deliver(events)
    const again = await startCheckout(user, { plan: 'elite' })
    expect(again.statusCode).toBe(409)
    expect(again.json().error.code).toBe('ALREADY_SUBSCRIBED')
  })

  it('answers 503 when the plan has no price in Stripe, and when Stripe is unreachable', async () => {
    const empty = await startFakeStripe()
    const bare = await buildTestApp({ database, env: stripeEnv(empty) })
    const user = await signedInUser(bare)
    const noPrice = await call(bare, { method: 'POST', url: '/api/billing/embedded-checkout', headers: user.headers, payload: { plan: 'basic' } })
    expect(noPrice.statusCode).toBe(503)
    expect(noPrice.json().error.code).toBe('PLAN_PRICE_MISSING')
    await bare.close()
    await empty.close()

    const down = await buildTestApp({ database, env: { ...stripeEnv(empty) } })
    const other = await signedInUser(down)
    const unreachable = await call(down, { method: 'POST', url: '/api/billing/embedded-checkout', headers: other.headers, payload: { plan: 'basic' } })
    expect(unreachable.statusCode).toBe(503)
    expect(unreachable.json().error).toMatchObject({ code: 'PAYMENT_PROVIDER_UNREACHABLE' })
    await down.close()
  })
})

describe('the free trial in Stripe mode', () => {
  it('a first checkout asks Stripe for the 7-day trial; a member who has had one checks out without it', async () => {
    const { user, subscriptionId, sessionId, events } = await checkedOut('basic')
    const sent = fake.requestsTo('/v1/checkout/sessions', 'POST').filter((request) => request.params.client_reference_id === user.user.id)
    expect(sent.at(-1)!.params.subscription_data).toEqual({ trial_period_days: '7', metadata: { userId: user.user.id, tier: 'basic' } })
    expect(fake.sessions.get(sessionId)).toMatchObject({ payment_status: 'no_payment_required' })
    await deliver(events)
    expect(await checkSubscription(user)).toMatchObject({ paid: true, status: 'trialing' })

    // Cancelled during the trial, then back: no second trial, the plan starts paid at once.
    await deliver(fake.cancel(subscriptionId))
    const again = CreateCheckoutResponseSchema.parse((await startCheckout(user, { plan: 'elite' })).json())
    expect(fake.requestsTo('/v1/checkout/sessions', 'POST').at(-1)!.params.subscription_data).toEqual({ metadata: { userId: user.user.id, tier: 'elite' } })
    await deliver(fake.completeCheckout(again.session_id))
    expect(await checkSubscription(user)).toMatchObject({ paid: true, status: 'active', subscription_tier: 'elite', trial_end: null })
    expect(fake.sessions.get(again.session_id)).toMatchObject({ payment_status: 'paid' })
  })

  it('an address whose account was deleted after its trial checks out without one on a new account', async () => {
    const { user, events } = await checkedOut('basic')
    await deliver(events)
    expect(await checkSubscription(user)).toMatchObject({ status: 'trialing' })
    const password = 'amber-canyon-lighthouse-7'
    await app.db.update(users).set({ passwordHash: await hashPassword(password) }).where(eq(users.id, user.user.id))
    const deleted = await call(app, { method: 'POST', url: '/api/account/delete', headers: user.headers, payload: { password, email: user.user.email } })
    expect(deleted.statusCode, deleted.body).toBe(204)

    const back = await insertUser(app.db, { email: user.user.email, emailConfirmedAt: new Date() })
    const { token } = await createSession(app.db, app.services.clock, back.id)
    const headers = { cookie: `session=${token}`, origin: app.config.appOrigin }
    const response = await call(app, { method: 'POST', url: '/api/billing/embedded-checkout', headers, payload: { plan: 'basic' } })
    expect(response.statusCode, response.body).toBe(200)
    const sent = fake.requestsTo('/v1/checkout/sessions', 'POST').filter((request) => request.params.client_reference_id === back.id)
    expect(sent.at(-1)!.params.subscription_data).toEqual({ metadata: { userId: back.id, tier: 'basic' } })
  })

  it('follows the trial to its end: trial_will_end re-reads it, the first payment makes it active', async () => {
    const { user, subscriptionId, events } = await checkedOut('premium')
    await deliver(events)
    const trialEnd = new Date((fake.subscriptions.get(subscriptionId)!.trial_end as number) * 1000)
    expect(trialEnd.getTime()).toBeGreaterThan(Date.now() + 6.9 * DAY)
    expect(trialEnd.getTime()).toBeLessThanOrEqual(Date.now() + 7 * DAY)
    const trialing = await checkSubscription(user)
    expect(trialing).toMatchObject({ status: 'trialing', trial_end: trialEnd.toISOString(), subscription_end: trialEnd.toISOString() })

    const [notice] = await deliver(fake.trialWillEnd(subscriptionId))
    expect(notice!.json()).toEqual({ received: true, duplicate: false })
    expect(await checkSubscription(user)).toMatchObject({ status: 'trialing', trial_end: trialEnd.toISOString() })

    await deliver(fake.endTrial(subscriptionId))
    const active = await checkSubscription(user)
    expect(active).toMatchObject({ paid: true, status: 'active', trial_end: null })
    expect(new Date(active.subscription_end!).getTime()).toBeGreaterThan(trialEnd.getTime())
    expect([...fake.charges.values()].filter((charge) => charge.customer === fake.subscriptions.get(subscriptionId)!.customer)).toHaveLength(1)
  })
})

describe('POST /api/webhooks/stripe', () => {
  it('unlocks access after checkout (the free trial counts as paid), with the events in Stripe’s usual order', async () => {
    const { user, subscriptionId, events } = await checkedOut('premium')
    expect((await checkSubscription(user)).subscribed).toBe(false)
    const responses = await deliver(events)
    expect(responses.map((r) => r.statusCode)).toEqual([200, 200, 200])
    expect(responses.map((r) => r.json().duplicate)).toEqual([false, false, false])
    const state = await checkSubscription(user)
    const sub = fake.subscriptions.get(subscriptionId)!
    const periodEnd = (sub.items as { data: Array<{ current_period_end: number }> }).data[0]!.current_period_end
    expect(sub.trial_end).toBe(periodEnd)
    expect(state).toMatchObject({
      subscribed: true,
      paid: true,
      subscription_tier: 'premium',
      status: 'trialing',
      source: 'stripe',
      subscription_end: new Date(periodEnd * 1000).toISOString(),
      trial_end: new Date((sub.trial_end as number) * 1000).toISOString(),
      in_grace_period: false,
      payment_mode: 'stripe',
    })
    expect(await me(user)).toMatchObject({ hasSubscription: true, hasCompletedPayment: true, subscriptionTier: 'premium' })
    const [row] = await app.db.select().from(subscribers).where(eq(subscribers.userId, user.user.id))
    expect(row).toMatchObject({ stripeSubscriptionId: subscriptionId, status: 'trialing', source: 'stripe', trialEnd: new Date((sub.trial_end as number) * 1000) })
  })

  it('converges whatever order the events arrive in', async () => {
    for (const order of [
      [2, 1, 0],
      [1, 2, 0],
      [2, 0, 1],
    ]) {
      const { user, events } = await checkedOut('elite')
      await deliver(order.map((i) => events[i]!))
      expect(await checkSubscription(user)).toMatchObject({ subscribed: true, subscription_tier: 'elite', status: 'trialing' })
    }
    // Only one of them arriving is enough: each re-reads the subscription from Stripe.
    for (const only of [0, 1, 2]) {
      const { user, events } = await checkedOut('basic')
      await deliver([events[only]!])
      expect(await checkSubscription(user)).toMatchObject({ subscribed: true, subscription_tier: 'basic' })
    }
  })

  it('ignores a replayed event: recorded once, nothing re-read, nothing changed', async () => {
    const { user, subscriptionId, events } = await checkedOut('basic')
    await deliver(events)
    const before = await app.db.select().from(subscribers).where(eq(subscribers.userId, user.user.id))
    const calls = fake.requests.length
    // Stripe's state moves on, but the old event delivered again must not re-apply anything.
    fake.subscriptions.get(subscriptionId)!.status = 'unpaid'
    const replay = await deliver([events[0]!])
    expect(replay[0]!.statusCode).toBe(200)
    expect(replay[0]!.json()).toEqual({ received: true, duplicate: true })
    expect(fake.requests.length).toBe(calls)
    expect(await app.db.select().from(subscribers).where(eq(subscribers.userId, user.user.id))).toEqual(before)
    expect(await recorded(events[0]!.id)).toBe(1)
    fake.subscriptions.get(subscriptionId)!.status = 'active'
  })

  it('keeps the record right through past due (7-day grace), renewal, unpaid and cancellation', async () => {
    const { user, subscriptionId, events } = await checkedOut('premium')
    await deliver(events)

    await deliver(fake.failPayment(subscriptionId))
    const pastDue = await checkSubscription(user)
    expect(pastDue).toMatchObject({ subscribed: true, paid: true, status: 'past_due', in_grace_period: true })
    const graceEnd = new Date(pastDue.grace_period_end!).getTime()
    expect(graceEnd).toBeGreaterThan(Date.now() + 6.9 * DAY)
    expect(graceEnd).toBeLessThanOrEqual(Date.now() + 7 * DAY)
    expect((await me(user)).hasCompletedPayment).toBe(true)

    // Another past-due update does not restart the grace.
    await deliver(fake.setSubscriptionStatus(subscriptionId, 'past_due'))
    expect((await checkSubscription(user)).grace_period_end).toBe(pastDue.grace_period_end)

    // Eight days later (moved in the record: the grace counts from past_due_since).
    const since = new Date(Date.now() - 8 * DAY)
    await app.db.update(subscribers).set({ pastDueSince: since }).where(eq(subscribers.userId, user.user.id))
    expect(await checkSubscription(user)).toMatchObject({
      subscribed: false,
      paid: false,
      status: 'past_due',
      in_grace_period: false,
      grace_period_end: new Date(since.getTime() + 7 * DAY).toISOString(),
    })
    expect((await me(user)).hasCompletedPayment).toBe(false)
    expect((await call(app, { method: 'GET', url: '/api/opt-in', headers: user.headers })).statusCode).toBe(403)

    const periodBefore = (await checkSubscription(user)).subscription_end!
    await deliver(fake.renew(subscriptionId))
    const renewed = await checkSubscription(user)
    expect(renewed).toMatchObject({ subscribed: true, status: 'active', in_grace_period: false, grace_period_end: null })
    expect(new Date(renewed.subscription_end!).getTime()).toBeGreaterThan(new Date(periodBefore).getTime())

    await deliver(fake.setSubscriptionStatus(subscriptionId, 'unpaid'))
    expect(await checkSubscription(user)).toMatchObject({ subscribed: false, paid: false, status: 'unpaid' })

    await deliver(fake.setSubscriptionStatus(subscriptionId, 'active'))
    expect((await checkSubscription(user)).paid).toBe(true)
  })

  it('a subscription cancelled in the portal stays paid and says when it ends; resumed, it renews again', async () => {
    const { user, subscriptionId, events } = await checkedOut('premium')
    await deliver(events)
    const renewing = await checkSubscription(user)
    expect(renewing.cancel_at).toBeNull()

    // The member cancels in Stripe's portal: at the end of the period, as the portal is configured.
    const stripeApi = createStripeClient({ secretKey: fake.secretKey, apiUrl: fake.url })
    await stripeApi.subscriptions.update(subscriptionId, { cancel_at_period_end: true })
    const status = fake.subscriptions.get(subscriptionId)!.status as string
    await deliver(fake.setSubscriptionStatus(subscriptionId, status))
    const ending = await checkSubscription(user)
    expect(ending).toMatchObject({ subscribed: true, paid: true, status, cancel_at: renewing.subscription_end })
    expect(ending.cancel_at).not.toBeNull()

    // Resumed before the end: it renews again.
    await stripeApi.subscriptions.update(subscriptionId, { cancel_at_period_end: false })
    await deliver(fake.setSubscriptionStatus(subscriptionId, status))
    expect((await checkSubscription(user)).cancel_at).toBeNull()
  })

  it('removes access when the subscription is deleted, even if older events arrive afterwards', async () => {
    const { user, subscriptionId, events } = await checkedOut('basic')
    await deliver(events.slice(0, 1))
    expect((await me(user)).hasCompletedPayment).toBe(true)
    await deliver(fake.cancel(subscriptionId))
    expect(await checkSubscription(user)).toMatchObject({ subscribed: false, paid: false, status: 'canceled' })
    expect(await me(user)).toMatchObject({ hasSubscription: false, hasCompletedPayment: false })
    // The paid-only API refuses, so the web's guard sends the user to /payment.
    const optIn = await call(app, { method: 'GET', url: '/api/opt-in', headers: user.headers })
    expect(optIn.statusCode).toBe(403)
    expect(optIn.json().error.code).toBe('PAYMENT_REQUIRED')
    // The checkout's own events, delivered late, re-read the cancelled subscription: still no access.
    await deliver(events.slice(1))
    expect((await checkSubscription(user)).paid).toBe(false)
    // The user may subscribe again; the new subscription takes over, later news of the old one is ignored.
    const again = CreateCheckoutResponseSchema.parse((await startCheckout(user, { plan: 'premium' })).json())
    const newEvents = fake.completeCheckout(again.session_id)
    await deliver(newEvents)
    expect(await checkSubscription(user)).toMatchObject({ paid: true, subscription_tier: 'premium' })
    await deliver(fake.setSubscriptionStatus(subscriptionId, 'canceled'))
    expect(await checkSubscription(user)).toMatchObject({ paid: true, subscription_tier: 'premium', status: 'active' })
  })

  it('ends the subscription when its payment is fully refunded', async () => {
    const { user, subscriptionId, events } = await checkedOut('elite')
    await deliver(events)
    await deliver(fake.endTrial(subscriptionId)) // the first payment, when the trial ends
    const customer = fake.subscriptions.get(subscriptionId)!.customer as string
    const [response] = await deliver(fake.refundLatestCharge(customer))
    expect(response!.statusCode).toBe(200)
    expect(fake.subscriptions.get(subscriptionId)!.status).toBe('canceled')
    expect(fake.requestsTo(`/v1/subscriptions/${subscriptionId}`, 'DELETE')).toHaveLength(1)
    expect(await checkSubscription(user)).toMatchObject({ paid: false, status: 'canceled' })
  })

  it('leaves the event unrecorded when processing fails, so Stripe’s retry processes it', async () => {
    const { user, events } = await checkedOut('basic')
    const completed = events.find((event) => event.type === 'checkout.session.completed')!
    fake.failNextRequests(1)
    const [failed] = await deliver([completed])
    expect(failed!.statusCode).toBe(500)
    expect(await recorded(completed.id)).toBe(0)
    expect((await checkSubscription(user)).paid).toBe(false)
    const [retried] = await deliver([completed])
    expect(retried!.statusCode).toBe(200)
    expect(retried!.json().duplicate).toBe(false)
    expect(await recorded(completed.id)).toBe(1)
    expect((await checkSubscription(user)).paid).toBe(true)
  })

  it('refuses a missing, wrong or stale signature with 400 and records nothing', async () => {
    const { events } = await checkedOut('basic')
    const event = events[0]!
    const { payload, headers } = fake.sign(event)
    const missing = await call(app, { method: 'POST', url: '/api/webhooks/stripe', headers: { 'content-type': 'application/json' }, payload })
    expect(missing.statusCode).toBe(400)
    expect(missing.json().error.code).toBe('INVALID_SIGNATURE')
    const wrongSecret = fake.sign(event, { secret: 'whsec_someone_else' })
    expect((await call(app, { method: 'POST', url: '/api/webhooks/stripe', headers: wrongSecret.headers, payload })).statusCode).toBe(400)
    const tampered = payload.replace('"livemode":false', '"livemode":true')
    expect((await call(app, { method: 'POST', url: '/api/webhooks/stripe', headers, payload: tampered })).statusCode).toBe(400)
    const stale = fake.sign(event, { timestamp: Math.floor(Date.now() / 1000) - 301 })
    expect((await call(app, { method: 'POST', url: '/api/webhooks/stripe', headers: stale.headers, payload })).statusCode).toBe(400)
    // Re-serialised JSON (not the raw bytes) does not verify either.
    const reformatted = JSON.stringify(JSON.parse(payload), null, 2)
    expect((await call(app, { method: 'POST', url: '/api/webhooks/stripe', headers, payload: reformatted })).statusCode).toBe(400)
    expect(await recorded(event.id)).toBe(0)
    // The genuine delivery still works, with no session or same-origin header.
    expect((await call(app, { method: 'POST', url: '/api/webhooks/stripe', headers, payload })).statusCode).toBe(200)
  })

  it('is 404 in testing mode', async () => {
    const { payload, headers } = fake.sign((await checkedOut('basic')).events[0]!)
    expect((await call(testingApp, { method: 'POST', url: '/api/webhooks/stripe', headers, payload })).statusCode).toBe(404)
  })

  it('acknowledges events of other types and records them once', async () => {
    const customer = fake.customers.values().next().value!
    const [response] = await deliver([
      {
        id: 'evt_other_type_1',
        object: 'event',
        type: 'customer.updated',
        created: 1,
        api_version: '2026-10-28.endive',
        livemode: false,
        pending_webhooks: 1,
        request: { id: null, idempotency_key: null },
        data: { object: customer },
      } as unknown as Stripe.Event,
    ])
    expect(response!.json()).toEqual({ received: true, duplicate: false })
    expect(await recorded('evt_other_type_1')).toBe(1)
  })
})

describe('one-time checkouts (the extension point for courses)', () => {
  it('hands a paid payment-mode session to the handler of its kind, in the event’s transaction', async () => {
    const stripe = createStripeClient({ secretKey: fake.secretKey, apiUrl: fake.url })
    const calls: CheckoutPaymentContext[] = []
    let fail = true
    const billing = createBilling({
      db: app.db,
      stripe: { client: stripe, publishableKey: 'pk_test_unused', webhookSecret: 'whsec_unused' },
      appUrl: 'http://localhost:3000',
      clock: app.services.clock,
      log: app.log as never,
      mailer: createMailer({ smtpUrl: undefined, from: 'test@example.com', log: app.log as never, logLinks: true }),
    })
    billing.registerPaymentKind('course', {
      checkoutCompleted: async (context) => {
        calls.push(context)
        if (fail) throw new Error('handler failed')
      },
    })
    const user = await signedInUser(app)
    const customer = await billing.ensureCustomer({ id: user.user.id, email: user.user.email, fullName: user.user.fullName, emailConfirmed: true })
    const product = await stripe.products.create({ name: 'Course' })
    const price = await stripe.prices.create({ currency: 'usd', unit_amount: 4900, product: product.id })
    const session = await stripe.checkout.sessions.create({
      ui_mode: 'embedded_page',
      mode: 'payment',
      customer,
      line_items: [{ price: price.id, quantity: 1 }],
      return_url: 'http://localhost:3000/courses/x?session_id={CHECKOUT_SESSION_ID}',
      client_reference_id: user.user.id,
      metadata: { userId: user.user.id, kind: 'course', courseId: 'course-1' },
      payment_intent_data: { metadata: { userId: user.user.id, kind: 'course', courseId: 'course-1' } },
    })
    const [event] = fake.completeCheckout(session.id)
    await expect(billing.handleEvent(event!)).rejects.toThrow('handler failed')
    expect(await recorded(event!.id)).toBe(0)
    fail = false
    expect(await billing.handleEvent(event!)).toBe('processed')
    expect(await billing.handleEvent(event!)).toBe('duplicate')
    expect(calls).toHaveLength(2)
    expect(calls[1]).toMatchObject({ userId: user.user.id, session: { id: session.id, mode: 'payment', payment_status: 'paid', metadata: { courseId: 'course-1' } } })
  })
})

/** Connections of this file's database left inside a transaction, and the advisory locks held in it. */
async function transactionsAndLocks() {
  const idle = await app.db.execute(sql`
    select count(*)::int as n from pg_stat_activity
    where datname = current_database() and pid <> pg_backend_pid() and state like 'idle in transaction%'`)
  const locks = await app.db.execute(sql`
    select count(*)::int as n from pg_locks
    where locktype = 'advisory' and database = (select oid from pg_database where datname = current_database())`)
  const count = (result: unknown) => Number(((Array.isArray(result) ? result : (result as { rows: unknown[] }).rows)[0] as { n: number }).n)
  return { idleInTransaction: count(idle), advisoryLocks: count(locks) }
}

/** Whether another connection can take the customer's lock now (without waiting for it). */
async function customerLockIsFree(customer: string): Promise<boolean> {
  return app.db.transaction(async (tx) => {
    const result = await tx.execute(sql`select pg_try_advisory_xact_lock(hashtext(${`stripe:${customer}`})) as free`)
    return Boolean(((Array.isArray(result) ? result : (result as { rows: unknown[] }).rows)[0] as { free: boolean }).free)
  })
}

// On a real PostgreSQL server (PGlite has a single connection, so nothing else could look meanwhile).
describe.runIf(hasPostgres())('Stripe calls are made outside database transactions', () => {
  it('webhook: while Stripe is slow to answer, no transaction and no advisory lock is held', async () => {
    const { user, subscriptionId, events } = await checkedOut('premium')
    const customer = fake.subscriptions.get(subscriptionId)!.customer as string
    const completed = events.find((event) => event.type === 'checkout.session.completed')!
    const held = fake.hold('GET', new RegExp(`^/v1/subscriptions/${subscriptionId}$`))
    const delivery = deliver([completed])
    try {
      await held.arrived
      expect(await transactionsAndLocks()).toEqual({ idleInTransaction: 0, advisoryLocks: 0 })
      expect(await customerLockIsFree(customer)).toBe(true)
    } finally {
      held.release()
    }
    const [response] = await delivery
    expect(response!.statusCode).toBe(200)
    expect(await recorded(completed.id)).toBe(1)
    expect(await checkSubscription(user)).toMatchObject({ paid: true, subscription_tier: 'premium' })
  })

  it('checkout return: the session and subscription are read before the short transaction', async () => {
    const { user, sessionId, subscriptionId } = await checkedOut('elite')
    const customer = fake.subscriptions.get(subscriptionId)!.customer as string
    const held = fake.hold('GET', new RegExp(`^/v1/subscriptions/${subscriptionId}$`))
    const status = call(app, { method: 'GET', url: `/api/billing/checkout-session/${sessionId}`, headers: user.headers })
    try {
      await held.arrived
      expect(await transactionsAndLocks()).toEqual({ idleInTransaction: 0, advisoryLocks: 0 })
      expect(await customerLockIsFree(customer)).toBe(true)
    } finally {
      held.release()
    }
    const response = await status
    expect(response.statusCode).toBe(200)
    expect(response.json()).toMatchObject({ status: 'complete', subscribed: true, subscription_tier: 'elite' })
  })

  it('a slow, older read of a subscription never overwrites a newer one applied meanwhile', async () => {
    const { user, subscriptionId, events } = await checkedOut('basic')
    await deliver(events)
    // An update is read from Stripe (still active) and its answer is slow to arrive...
    const held = fake.hold('GET', new RegExp(`^/v1/subscriptions/${subscriptionId}$`))
    const [olderEvent] = fake.setSubscriptionStatus(subscriptionId, 'active')
    const older = deliver([olderEvent!])
    try {
      await held.arrived
      // ...meanwhile the subscription is cancelled, and that event is read and applied first.
      const [cancelled] = await deliver(fake.cancel(subscriptionId))
      expect(cancelled!.statusCode).toBe(200)
      expect(await checkSubscription(user)).toMatchObject({ paid: false, status: 'canceled' })
    } finally {
      held.release()
    }
    const [late] = await older
    expect(late!.statusCode).toBe(200)
    expect(await checkSubscription(user)).toMatchObject({ paid: false, status: 'canceled' })
  })
})

describe('checkout return and status', () => {
  it("syncs the user's completed session before the webhook arrives; another user's is 404", async () => {
    const { user, sessionId } = await checkedOut('premium')
    const response = await call(app, { method: 'GET', url: `/api/billing/checkout-session/${sessionId}`, headers: user.headers })
    expect(response.statusCode).toBe(200)
    // The trial defers the first payment, so Stripe reports none required at checkout.
    expect(response.json()).toMatchObject({ status: 'complete', payment_status: 'no_payment_required', subscribed: true, subscription_tier: 'premium' })
    const other = await signedInUser(app)
    expect((await call(app, { method: 'GET', url: `/api/billing/checkout-session/${sessionId}`, headers: other.headers })).statusCode).toBe(404)
    expect((await call(app, { method: 'GET', url: '/api/billing/checkout-session/cs_test_nope', headers: other.headers })).statusCode).toBe(404)
    expect((await call(app, { method: 'GET', url: '/api/billing/checkout-session/not-a-session', headers: other.headers })).statusCode).toBe(400)
  })
})

describe('POST /api/billing/customer-portal', () => {
  it("opens the portal for the user's customer with the app's configuration", async () => {
    const { user, events } = await checkedOut('basic')
    await deliver(events)
    const response = await call(app, { method: 'POST', url: '/api/billing/customer-portal', headers: user.headers })
    expect(response.statusCode).toBe(200)
    const { url } = response.json() as { url: string }
    expect(url.startsWith(`${fake.url}/portal/bps_`)).toBe(true)
    const sent = fake.requestsTo('/v1/billing_portal/sessions', 'POST').at(-1)!
    const [row] = await app.db.select().from(subscribers).where(eq(subscribers.userId, user.user.id))
    expect(sent.params).toMatchObject({ customer: row!.stripeCustomerId, return_url: 'http://localhost:3000/dashboard' })
    expect(String(sent.params.configuration)).toMatch(/^bpc_/)
  })

  it('is 409 without a billing account, and in testing mode', async () => {
    const user = await signedInUser(app)
    const none = await call(app, { method: 'POST', url: '/api/billing/customer-portal', headers: user.headers })
    expect(none.statusCode).toBe(409)
    expect(none.json().error.code).toBe('NO_BILLING_ACCOUNT')
    const testingUser = await signedInUser(testingApp, { paid: 'basic' })
    const testing = await call(testingApp, { method: 'POST', url: '/api/billing/customer-portal', headers: testingUser.headers })
    expect(testing.statusCode).toBe(409)
    expect(testing.json().error.code).toBe('PAYMENTS_NOT_CONFIGURED')
  })
})

describe('GET /api/billing/publishable-key and check-subscription', () => {
  it('gives the publishable key in Stripe mode only', async () => {
    const user = await signedInUser(app)
    expect((await call(app, { method: 'GET', url: '/api/billing/publishable-key', headers: user.headers })).json()).toEqual({ publishable_key: FAKE_PUBLISHABLE_KEY })
    const testingUser = await signedInUser(testingApp)
    const testing = await call(testingApp, { method: 'GET', url: '/api/billing/publishable-key', headers: testingUser.headers })
    expect(testing.statusCode).toBe(409)
    expect(testing.json().error.code).toBe('PAYMENTS_NOT_CONFIGURED')
    expect((await call(app, { method: 'GET', url: '/api/billing/publishable-key' })).statusCode).toBe(401)
  })

  it('reports testing activations and payment_status = paid', async () => {
    const tester = await signedInUser(testingApp, { paid: 'elite' })
    expect(await checkSubscription(tester, testingApp)).toMatchObject({
      subscribed: true,
      paid: true,
      subscription_tier: 'elite',
      source: 'testing',
      subscription_end: null,
      payment_mode: 'testing',
    })
    const legacy = await signedInUser(testingApp)
    await testingApp.db.update(profiles).set({ paymentStatus: 'paid' }).where(eq(profiles.id, legacy.user.id))
    expect(await checkSubscription(legacy, testingApp)).toMatchObject({ subscribed: false, paid: true })
    const nobody = await signedInUser(testingApp)
    expect(await checkSubscription(nobody, testingApp)).toMatchObject({ subscribed: false, paid: false, status: null })
    expect((await call(testingApp, { method: 'GET', url: '/api/billing/check-subscription' })).statusCode).toBe(401)
  })

  it('tells the web which payment mode applies', async () => {
    expect((await call(app, { method: 'GET', url: '/api/plans' })).json().paymentMode).toBe('stripe')
    expect((await call(testingApp, { method: 'GET', url: '/api/plans' })).json().paymentMode).toBe('testing')
  })
})

describe('the paid rule', () => {
  it('is the same in getAccess and in the SQL condition the scheduler uses', async () => {
    const now = new Date()
    type Case = { record: Partial<Subscriber> | null; paymentStatus?: 'paid' | 'unpaid'; paid: boolean }
    const cases: Case[] = [
      { record: null, paid: false },
      { record: null, paymentStatus: 'paid', paid: true },
      { record: { source: 'testing', subscribed: true, status: 'active' }, paid: true },
      { record: { source: 'testing', subscribed: false }, paid: false },
      { record: { source: 'stripe', subscribed: true, status: 'active' }, paid: true },
      { record: { source: 'stripe', subscribed: true, status: 'trialing' }, paid: true },
      { record: { source: 'stripe', subscribed: true, status: 'past_due', pastDueSince: new Date(now.getTime() - 6 * DAY) }, paid: true },
      { record: { source: 'stripe', subscribed: true, status: 'past_due', pastDueSince: new Date(now.getTime() - 8 * DAY) }, paid: false },
      { record: { source: 'stripe', subscribed: false, status: 'canceled' }, paid: false },
      { record: { source: 'stripe', subscribed: false, status: 'canceled' }, paymentStatus: 'paid', paid: true },
      { record: { source: 'stripe', subscribed: false, status: 'unpaid' }, paid: false },
      { record: { source: 'stripe', subscribed: false, status: 'incomplete' }, paid: false },
      { record: { source: 'stripe', subscribed: false, status: 'paused' }, paid: false },
      // A customer record made at checkout, before any subscription.
      { record: { stripeCustomerId: 'cus_rule_only' }, paid: false },
    ]
    const ids: string[] = []
    for (const c of cases) {
      const { user } = await signedInUser(testingApp)
      ids.push(user.id)
      if (c.paymentStatus) await testingApp.db.update(profiles).set({ paymentStatus: c.paymentStatus }).where(eq(profiles.id, user.id))
      if (c.record) await testingApp.db.insert(subscribers).values({ userId: user.id, ...c.record })
      expect((await getAccess(testingApp.db, user.id, now)).paid, JSON.stringify(c)).toBe(c.paid)
    }
    const paidIds = new Set(
      (
        await testingApp.db
          .select({ id: profiles.id })
          .from(profiles)
          .leftJoin(subscribers, eq(subscribers.userId, profiles.id))
          .where(and(inArray(profiles.id, ids), paidUserCondition(now)))
      ).map((row) => row.id),
    )
    expect(ids.map((id) => paidIds.has(id))).toEqual(cases.map((c) => c.paid))
  })
})
