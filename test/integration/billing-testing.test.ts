import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eq } from 'drizzle-orm'
import { SessionUserResponseSchema } from '#common/auth'
import { CheckSubscriptionResponseSchema } from '#common/billing'
import { hashPassword } from '#server/auth/password'
import { createSession } from '#server/auth/session'
import { subscribers, trialClaims, users } from '#server/db/schema'
import { emailDigest } from '#server/services/billing'
import { buildTestApp } from '../helpers/app'
import { fakeClock } from '../helpers/clock'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { freePort, spawnEntry } from '../helpers/process'
import { insertUser } from '../helpers/factories'
import { signedInUser } from '../helpers/users'

let database: TestDatabase
let app: FastifyInstance
let stripeApp: FastifyInstance
let trialApp: FastifyInstance
const clock = fakeClock()
const DAY = 24 * 3_600_000

beforeAll(async () => {
  database = await createTestDatabase()
  app = await buildTestApp({ database })
  trialApp = await buildTestApp({ database, clock })
  stripeApp = await buildTestApp({
    database,
    env: { STRIPE_SECRET_KEY: 'sk_test_x', STRIPE_PUBLISHABLE_KEY: 'pk_test_x', STRIPE_WEBHOOK_SECRET: 'whsec_x' },
  })
})
afterAll(async () => {
  await app?.close()
  await stripeApp?.close()
  await trialApp?.close()
  await database?.destroy()
})

describe('the free trial in testing mode', () => {
  const activate = (headers: Record<string, string>, plan: string) =>
    trialApp.inject({ method: 'POST', url: '/api/billing/testing-activation', headers, payload: { plan } })
  const checkSubscription = async (headers: Record<string, string>) =>
    CheckSubscriptionResponseSchema.parse((await trialApp.inject({ method: 'GET', url: '/api/billing/check-subscription', headers })).json())

  it('starts a 7-day trial (trialing, paid), keeps its end across plan changes, then becomes active; once per member', async () => {
    clock.set(new Date('2026-11-21T12:00:00Z'))
    const { headers, user } = await signedInUser(trialApp)
    const first = await activate(headers, 'basic')
    expect(first.statusCode).toBe(200)
    const trialEnd = '2026-11-28T12:00:00.000Z'
    expect(first.json()).toEqual({ subscribed: true, subscription_tier: 'basic', subscription_end: null, source: 'testing', status: 'trialing', trial_end: trialEnd })
    expect(await checkSubscription(headers)).toMatchObject({ subscribed: true, paid: true, status: 'trialing', trial_end: trialEnd, subscription_tier: 'basic' })
    const [row] = await trialApp.db.select().from(subscribers).where(eq(subscribers.userId, user.id))
    expect(row).toMatchObject({ status: 'trialing', source: 'testing', trialEnd: new Date(trialEnd), trialReminderSentAt: null })

    // Choosing another plan two days in keeps the trial's end.
    clock.advance(2 * DAY)
    expect((await activate(headers, 'elite')).json()).toMatchObject({ subscription_tier: 'elite', status: 'trialing', trial_end: trialEnd })

    // The trial ends: testing mode takes no payment, the plan simply continues.
    clock.set(new Date(trialEnd))
    expect(await checkSubscription(headers)).toMatchObject({ subscribed: true, paid: true, status: 'active', trial_end: null, subscription_tier: 'elite' })
    const me = SessionUserResponseSchema.parse((await trialApp.inject({ method: 'GET', url: '/api/me', headers })).json())
    expect(me.user).toMatchObject({ hasSubscription: true, hasCompletedPayment: true, subscriptionTier: 'elite' })

    // No second trial.
    clock.advance(DAY)
    expect((await activate(headers, 'premium')).json()).toMatchObject({ subscription_tier: 'premium', status: 'active', trial_end: null })
    expect(await checkSubscription(headers)).toMatchObject({ status: 'active', trial_end: null })
  })

  it('once per email address: an account deleted after its trial leaves a digest of its address, and the same address signs up to a paid start', async () => {
    clock.set(new Date('2026-11-21T12:00:00Z'))
    const password = 'amber-canyon-lighthouse-7'
    const email = `trial-once-${Date.now().toString(36)}@example.com`
    const signUp = async (address: string) => {
      const user = await insertUser(trialApp.db, { email: address, passwordHash: await hashPassword(password), emailConfirmedAt: clock.now() })
      const { token } = await createSession(trialApp.db, clock, user.id)
      return { user, headers: { cookie: `session=${token}`, origin: trialApp.config.appOrigin } }
    }
    const first = await signUp(email)
    expect((await activate(first.headers, 'basic')).json()).toMatchObject({ status: 'trialing' })
    expect(await checkSubscription(first.headers)).toMatchObject({ status: 'trialing', trial_available: false })
    // What is kept is the address's digest only, no user id and no address.
    const claims = await trialApp.db.select().from(trialClaims).where(eq(trialClaims.emailDigest, emailDigest(email)))
    expect(claims).toEqual([{ emailDigest: emailDigest(email), claimedAt: clock.now() }])
    expect(JSON.stringify(claims)).not.toContain(email)

    clock.advance(DAY)
    const deleted = await trialApp.inject({ method: 'POST', url: '/api/account/delete', remoteAddress: '127.0.0.1', headers: first.headers, payload: { password, email } })
    expect(deleted.statusCode, deleted.body).toBe(204)
    expect(await trialApp.db.select().from(users).where(eq(users.id, first.user.id))).toEqual([])

    // The same address on a new account: the plan starts paid, no second trial.
    const again = await signUp(email)
    expect(await checkSubscription(again.headers)).toMatchObject({ subscribed: false, trial_available: false })
    expect((await activate(again.headers, 'basic')).json()).toMatchObject({ subscribed: true, status: 'active', trial_end: null })
    expect(await checkSubscription(again.headers)).toMatchObject({ paid: true, status: 'active', trial_end: null })
    // Another address still gets its trial.
    const other = await signUp(`trial-other-${Date.now().toString(36)}@example.com`)
    expect(await checkSubscription(other.headers)).toMatchObject({ subscribed: false, trial_available: true })
    expect((await activate(other.headers, 'basic')).json()).toMatchObject({ status: 'trialing' })

    // A trial from before addresses were remembered (no claim row): the deletion writes it.
    await trialApp.db.delete(trialClaims).where(eq(trialClaims.emailDigest, emailDigest(other.user.email)))
    const gone = await trialApp.inject({ method: 'POST', url: '/api/account/delete', remoteAddress: '127.0.0.1', headers: other.headers, payload: { password, email: other.user.email } })
    expect(gone.statusCode, gone.body).toBe(204)
    expect(await trialApp.db.select().from(trialClaims).where(eq(trialClaims.emailDigest, emailDigest(other.user.email)))).toHaveLength(1)
    const otherAgain = await signUp(other.user.email)
    expect((await activate(otherAgain.headers, 'basic')).json()).toMatchObject({ status: 'active', trial_end: null })
  })
})

describe('POST /api/billing/testing-activation', () => {
  it('records the plan as a testing activation that counts as paid', async () => {
    const { headers } = await signedInUser(app)
    const response = await app.inject({ method: 'POST', url: '/api/billing/testing-activation', headers, payload: { plan: 'premium' } })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toMatchObject({ subscribed: true, subscription_tier: 'premium', source: 'testing', status: 'trialing' })
    const me = SessionUserResponseSchema.parse((await app.inject({ method: 'GET', url: '/api/me', headers })).json())
    expect(me.user).toMatchObject({ hasSubscription: true, hasCompletedPayment: true, subscriptionTier: 'premium' })
  })

  it('needs a session and a known plan', async () => {
    const anonymous = await app.inject({ method: 'POST', url: '/api/billing/testing-activation', headers: { origin: 'http://localhost:3000' }, payload: { plan: 'basic' } })
    expect(anonymous.statusCode).toBe(401)
    const { headers } = await signedInUser(app)
    const unknown = await app.inject({ method: 'POST', url: '/api/billing/testing-activation', headers, payload: { plan: 'platinum' } })
    expect(unknown.statusCode).toBe(400)
    expect(unknown.json().error.field).toBe('plan')
  })

  it('refuses an unconfirmed email with 403 EMAIL_NOT_CONFIRMED and activates nothing', async () => {
    const { headers } = await signedInUser(app, { confirmed: false })
    const response = await app.inject({ method: 'POST', url: '/api/billing/testing-activation', headers, payload: { plan: 'basic' } })
    expect(response.statusCode).toBe(403)
    expect(response.json().error.code).toBe('EMAIL_NOT_CONFIRMED')
    const me = SessionUserResponseSchema.parse((await app.inject({ method: 'GET', url: '/api/me', headers })).json())
    expect(me.user).toMatchObject({ hasSubscription: false, hasCompletedPayment: false })
  })

  it('is refused when Stripe is configured', async () => {
    const { headers } = await signedInUser(stripeApp)
    const response = await stripeApp.inject({ method: 'POST', url: '/api/billing/testing-activation', headers, payload: { plan: 'basic' } })
    expect(response.statusCode).toBe(409)
    const me = SessionUserResponseSchema.parse((await stripeApp.inject({ method: 'GET', url: '/api/me', headers })).json())
    expect(me.user.hasCompletedPayment).toBe(false)
  })
})

/** The real entry, as `npm start` runs it in production (the Docker image sets NODE_ENV=production). */
describe('payment testing mode in production', () => {
  it('refuses to start without Stripe keys unless PAYMENT_MODE=testing, naming PAYMENT_MODE in one line', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'mc-payment-mode-'))
    const refused = spawnEntry('server/index.ts', { NODE_ENV: 'production', SMTP_URL: 'smtp://127.0.0.1:1', PORT: String(await freePort()), DATA_DIR: dataDir })
    expect((await refused.exited).code).toBe(1)
    const lines = refused.output().trim().split('\n')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(/^Invalid configuration: PAYMENT_MODE must be "testing" to run in production without Stripe keys/)

    const port = await freePort()
    const allowed = spawnEntry('server/index.ts', { NODE_ENV: 'production', PAYMENT_MODE: 'testing', SMTP_URL: 'smtp://127.0.0.1:1', PORT: String(port), DATA_DIR: dataDir })
    try {
      await allowed.waitFor(/Momentum Coach is ready/, 60_000)
      const plans = await fetch(`http://127.0.0.1:${port}/api/plans`)
      expect(((await plans.json()) as { paymentMode: string }).paymentMode).toBe('testing')
    } finally {
      allowed.child.kill('SIGTERM')
      await allowed.exited
    }
  }, 90_000)
})
