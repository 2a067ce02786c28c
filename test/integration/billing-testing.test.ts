import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SessionUserResponseSchema } from '#common/auth'
import { buildTestApp } from '../helpers/app'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { signedInUser } from '../helpers/users'

let database: TestDatabase
let app: FastifyInstance
let stripeApp: FastifyInstance

beforeAll(async () => {
  database = await createTestDatabase()
  app = await buildTestApp({ database })
  stripeApp = await buildTestApp({
    database,
    env: { STRIPE_SECRET_KEY: 'sk_test_x', STRIPE_PUBLISHABLE_KEY: 'pk_test_x', STRIPE_WEBHOOK_SECRET: 'whsec_x' },
  })
})
afterAll(async () => {
  await app?.close()
  await stripeApp?.close()
  await database?.destroy()
})

describe('POST /api/billing/testing-activation', () => {
  it('records the plan as a testing activation that counts as paid', async () => {
    const { headers } = await signedInUser(app)
    const response = await app.inject({ method: 'POST', url: '/api/billing/testing-activation', headers, payload: { plan: 'premium' } })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toMatchObject({ subscribed: true, subscription_tier: 'premium', source: 'testing' })
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
