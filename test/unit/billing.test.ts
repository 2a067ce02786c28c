import type Stripe from 'stripe'
import { describe, expect, it } from 'vitest'
import { CreateCheckoutBodySchema, checkoutPlanOf } from '#common/billing'
import { displayPhoneNumber, optInConsentText, optInSentences } from '#common/opt-in'
import { decideAccess, planForLookupKey, priceLookupKey, subscriptionRecord, type AccessRow } from '#server/services/billing'
import { parseForm } from '../fakes/stripe'

const DAY = 86_400_000
const now = new Date('2026-11-21T12:00:00Z')
const row = (overrides: Partial<AccessRow>): AccessRow => ({
  subscribed: false,
  tier: null,
  status: null,
  source: null,
  end: null,
  pastDueSince: null,
  trialEnd: null,
  updatedAt: now,
  paymentStatus: 'unpaid',
  ...overrides,
})

describe('decideAccess', () => {
  it('counts active, trialing, testing activations and payment_status = paid', () => {
    expect(decideAccess(row({ source: 'stripe', status: 'active' }), now).paid).toBe(true)
    expect(decideAccess(row({ source: 'stripe', status: 'trialing' }), now).paid).toBe(true)
    expect(decideAccess(row({ source: 'testing', subscribed: true, status: 'active' }), now)).toMatchObject({ paid: true, hasSubscription: true })
    expect(decideAccess(row({ paymentStatus: 'paid' }), now)).toMatchObject({ paid: true, hasSubscription: false })
    expect(decideAccess(undefined, now).paid).toBe(false)
  })

  it('counts a free trial as paid, and a testing-mode trial becomes active at its end', () => {
    const end = new Date(now.getTime() + 7 * DAY)
    expect(decideAccess(row({ source: 'stripe', status: 'trialing', trialEnd: end }), now)).toMatchObject({ paid: true, status: 'trialing', trialEnd: end })
    const testing = row({ source: 'testing', subscribed: true, status: 'trialing', trialEnd: end })
    expect(decideAccess(testing, now)).toMatchObject({ paid: true, hasSubscription: true, status: 'trialing', trialEnd: end })
    expect(decideAccess(testing, new Date(end.getTime() - 1))).toMatchObject({ status: 'trialing', trialEnd: end })
    expect(decideAccess(testing, end)).toMatchObject({ paid: true, hasSubscription: true, status: 'active', trialEnd: null })
    // Stripe decides its own statuses: a trialing subscription stays trialing until Stripe says otherwise.
    expect(decideAccess(row({ source: 'stripe', status: 'trialing', trialEnd: end }), end)).toMatchObject({ paid: true, status: 'trialing' })
    // The end of a past trial is kept on the row, but only a running trial reports it.
    expect(decideAccess(row({ source: 'stripe', status: 'active', trialEnd: end }), now).trialEnd).toBeNull()
  })

  it('gives a past-due subscription seven days of grace from past_due_since', () => {
    const inside = decideAccess(row({ source: 'stripe', status: 'past_due', pastDueSince: new Date(now.getTime() - 7 * DAY) }), now)
    expect(inside).toMatchObject({ paid: true, inGrace: true, graceUntil: now })
    const beyond = decideAccess(row({ source: 'stripe', status: 'past_due', pastDueSince: new Date(now.getTime() - 7 * DAY - 1) }), now)
    expect(beyond).toMatchObject({ paid: false, inGrace: false })
  })

  it('refuses cancelled, unpaid, incomplete and paused subscriptions, whatever the subscribed flag says', () => {
    for (const status of ['canceled', 'unpaid', 'incomplete', 'incomplete_expired', 'paused'] as const) {
      expect(decideAccess(row({ source: 'stripe', status, subscribed: true }), now).paid).toBe(false)
    }
  })
})

describe('subscriptionRecord', () => {
  it('reads the tier from the lookup key and the period end from the items', () => {
    const sub = {
      id: 'sub_1',
      status: 'active',
      metadata: {},
      items: {
        data: [
          { current_period_end: 1_800_000_000, price: { lookup_key: priceLookupKey('elite'), metadata: {} } },
          { current_period_end: 1_800_000_100, price: { lookup_key: null, metadata: {} } },
        ],
      },
    } as unknown as Stripe.Subscription
    expect(subscriptionRecord(sub)).toEqual({ tier: 'elite', status: 'active', currentPeriodEnd: new Date(1_800_000_100_000), trialEnd: null, cancelScheduled: false, cancelAt: null })
    expect(subscriptionRecord({ ...sub, status: 'trialing', trial_end: 1_800_000_000 } as Stripe.Subscription)).toMatchObject({
      status: 'trialing',
      trialEnd: new Date(1_800_000_000_000),
      cancelScheduled: false,
    })
    // Cancelled: at the period's end (Stripe's own cancel_at, or the period end if it gave none), or at a date.
    expect(subscriptionRecord({ ...sub, cancel_at_period_end: true, cancel_at: 1_800_000_100 } as Stripe.Subscription)).toMatchObject({ cancelScheduled: true, cancelAt: new Date(1_800_000_100_000) })
    expect(subscriptionRecord({ ...sub, cancel_at_period_end: true } as Stripe.Subscription)).toMatchObject({ cancelScheduled: true, cancelAt: new Date(1_800_000_100_000) })
    expect(subscriptionRecord({ ...sub, cancel_at_period_end: false, cancel_at: 1_800_000_000 } as Stripe.Subscription)).toMatchObject({ cancelScheduled: true, cancelAt: new Date(1_800_000_000_000) })
    const byMetadata = { ...sub, items: { data: [{ current_period_end: 5, price: { lookup_key: 'other', metadata: { tier: 'basic' } } }] } } as unknown as Stripe.Subscription
    expect(subscriptionRecord(byMetadata).tier).toBe('basic')
    expect(planForLookupKey('nope')).toBeNull()
  })
})

describe('the checkout body', () => {
  it('takes the plan from plan or selectedPlan; "monthly" alone names none', () => {
    expect(checkoutPlanOf(CreateCheckoutBodySchema.parse({ plan: 'premium' }))).toBe('premium')
    expect(checkoutPlanOf(CreateCheckoutBodySchema.parse({ selectedPlan: 'elite' }))).toBe('elite')
    expect(checkoutPlanOf(CreateCheckoutBodySchema.parse({ selectedPlan: 'monthly', plan: 'basic' }))).toBe('basic')
    expect(CreateCheckoutBodySchema.safeParse({ selectedPlan: 'monthly' }).success).toBe(false)
    expect(CreateCheckoutBodySchema.safeParse({ plan: 'basic', attempt: 'x y' }).success).toBe(false)
  })
})

describe('the opt-in text', () => {
  it('shows START, the number, STOP and the rates notice, and records exactly that', () => {
    expect(displayPhoneNumber('+15555550123')).toBe('(555) 555-0123')
    expect(displayPhoneNumber('+442071234567')).toBe('+442071234567')
    const { instruction, optOut, rates } = optInSentences('+15555550123')
    expect(instruction).toContain('Text START to (555) 555-0123')
    expect(optOut).toContain('STOP')
    expect(rates).toBe('Standard message and data rates may apply.')
    expect(optInConsentText('+15555550123')).toBe(`${instruction} ${optOut} ${rates}`)
  })
})

describe('the fake Stripe form decoding', () => {
  it('nests qs-style brackets and makes indexed keys arrays', () => {
    expect(
      parseForm('ui_mode=embedded_page&line_items[0][price]=price_1&line_items[0][quantity]=1&metadata[userId]=u%201&expand[0]=data.product&return_url=http%3A%2F%2Fx%2F%3Fs%3D%7BCHECKOUT_SESSION_ID%7D'),
    ).toEqual({
      ui_mode: 'embedded_page',
      line_items: [{ price: 'price_1', quantity: '1' }],
      metadata: { userId: 'u 1' },
      expand: ['data.product'],
      return_url: 'http://x/?s={CHECKOUT_SESSION_ID}',
    })
    expect(parseForm('')).toEqual({})
  })
})
