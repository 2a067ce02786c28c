/**
 * `npm run stripe:setup`: makes the configured Stripe account ready for the app, once and
 * idempotently (running it again changes nothing):
 * - one product per plan (`prod_momentum_<plan>`) and its monthly USD price with the lookup key
 *   the server resolves at checkout (`priceLookupKey`); a price whose amount changed is replaced
 *   (the lookup key moves to the new price, the old one is archived);
 * - a billing portal configuration (tagged `metadata.app`) that lets customers update their card,
 *   see invoices, switch between the three plans and cancel at the period end.
 * Reads STRIPE_SECRET_KEY (and STRIPE_API_URL, for a Stripe-compatible test server).
 */
import { randomBytes } from 'node:crypto'
import { pathToFileURL } from 'node:url'
import type Stripe from 'stripe'
import type { PlanId } from '#common/plans'
import { STRIPE_WEBHOOK_PATH } from '#common/webhooks'
import { EnvSchema } from '#server/config'
import { createStripeClient, STRIPE_APP_TAG } from '#server/integrations/stripe'
import { PLANS, priceLookupKey } from '#server/services/billing'

export const productIdFor = (plan: PlanId) => `prod_momentum_${plan}`

/** The events the app's webhook endpoint should be subscribed to. */
export const WEBHOOK_EVENTS = [
  'checkout.session.completed',
  'checkout.session.async_payment_succeeded',
  'customer.subscription.created',
  'customer.subscription.updated',
  'customer.subscription.deleted',
  'customer.subscription.paused',
  'customer.subscription.resumed',
  'customer.subscription.trial_will_end',
  'invoice.paid',
  'invoice.payment_failed',
  'charge.refunded',
] as const

export type SetupResult = {
  prices: Record<PlanId, { id: string; lookupKey: string; created: boolean }>
  portalConfiguration: { id: string; created: boolean; updated: boolean }
}

function isMissing(error: unknown): boolean {
  return (error as { statusCode?: number; code?: string })?.code === 'resource_missing' || (error as { statusCode?: number })?.statusCode === 404
}

async function ensureProduct(stripe: Stripe, plan: (typeof PLANS)[number], run: string): Promise<string> {
  const id = productIdFor(plan.id)
  try {
    await stripe.products.retrieve(id)
    return id
  } catch (error) {
    if (!isMissing(error)) throw error
  }
  await stripe.products.create(
    {
      id,
      name: `Momentum Coach ${plan.name}`,
      description: plan.features.join(' · '),
      metadata: { app: STRIPE_APP_TAG, tier: plan.id },
    },
    { idempotencyKey: `setup:${run}:product:${id}` },
  )
  return id
}

/**
 * Whether a step is needed is decided by reading the account first; the idempotency keys (one
 * set per run) only make the SDK's retries of a step safe.
 */
export async function setupStripe(stripe: Stripe, log: (line: string) => void = () => {}): Promise<SetupResult> {
  const run = randomBytes(6).toString('hex')
  const lookupKeys = PLANS.map((plan) => priceLookupKey(plan.id))
  const existing = await stripe.prices.list({ lookup_keys: lookupKeys, active: true, limit: 100 })
  const prices = {} as SetupResult['prices']

  for (const plan of PLANS) {
    const lookupKey = priceLookupKey(plan.id)
    const amount = plan.priceMonthly * 100
    const current = existing.data.find((price) => price.lookup_key === lookupKey)
    const fits =
      current &&
      current.unit_amount === amount &&
      current.currency === 'usd' &&
      current.recurring?.interval === 'month' &&
      current.recurring.interval_count === 1
    if (current && fits) {
      prices[plan.id] = { id: current.id, lookupKey, created: false }
      log(`${plan.name}: ${lookupKey} → ${current.id} (already set up)`)
      continue
    }
    const product = await ensureProduct(stripe, plan, run)
    const price = await stripe.prices.create(
      {
        currency: 'usd',
        unit_amount: amount,
        recurring: { interval: 'month' },
        product,
        lookup_key: lookupKey,
        ...(current ? { transfer_lookup_key: true } : {}),
        nickname: `${plan.name} monthly`,
        metadata: { app: STRIPE_APP_TAG, tier: plan.id },
      },
      { idempotencyKey: `setup:${run}:price:${lookupKey}:${amount}` },
    )
    if (current) {
      await stripe.prices.update(current.id, { active: false })
      log(`${plan.name}: ${lookupKey} moved from ${current.id} (${current.unit_amount ?? '?'} ${current.currency}) to ${price.id}; the old price is archived`)
    } else {
      log(`${plan.name}: created ${price.id} with lookup key ${lookupKey} ($${plan.priceMonthly}/month)`)
    }
    prices[plan.id] = { id: price.id, lookupKey, created: true }
  }

  const wanted = PLANS.map((plan) => ({ product: productIdFor(plan.id), prices: [prices[plan.id].id] }))
  const features: Stripe.BillingPortal.ConfigurationCreateParams.Features = {
    customer_update: { enabled: true, allowed_updates: ['email', 'name', 'phone', 'address'] },
    invoice_history: { enabled: true },
    payment_method_update: { enabled: true },
    subscription_cancel: { enabled: true, mode: 'at_period_end' },
    subscription_update: { enabled: true, default_allowed_updates: ['price'], proration_behavior: 'create_prorations', products: wanted },
  }
  const configurations = await stripe.billingPortal.configurations.list({ active: true, limit: 100 })
  const ours = configurations.data.find((configuration) => configuration.metadata?.app === STRIPE_APP_TAG)
  let portalConfiguration: SetupResult['portalConfiguration']
  if (!ours) {
    const created = await stripe.billingPortal.configurations.create(
      { features, business_profile: { headline: 'Momentum Coach: manage your coaching plan' }, metadata: { app: STRIPE_APP_TAG } },
      { idempotencyKey: `setup:${run}:portal` },
    )
    portalConfiguration = { id: created.id, created: true, updated: false }
    log(`Billing portal: created configuration ${created.id}`)
  } else {
    const configured = ours.features?.subscription_update?.products ?? []
    const same =
      configured.length === wanted.length &&
      wanted.every((entry) => configured.some((p) => p.product === entry.product && p.prices.length === 1 && p.prices[0] === entry.prices[0]))
    if (!same) await stripe.billingPortal.configurations.update(ours.id, { features })
    portalConfiguration = { id: ours.id, created: false, updated: !same }
    log(`Billing portal: configuration ${ours.id} ${same ? '(already set up)' : 'updated with the current prices'}`)
  }
  return { prices, portalConfiguration }
}

async function main() {
  const parsed = EnvSchema.pick({ STRIPE_SECRET_KEY: true, STRIPE_API_URL: true, APP_URL: true, PORT: true }).safeParse({
    STRIPE_SECRET_KEY: process.env.STRIPE_SECRET_KEY,
    STRIPE_API_URL: process.env.STRIPE_API_URL,
    APP_URL: process.env.APP_URL,
    PORT: process.env.PORT,
  })
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!
    console.error(`stripe:setup: ${String(issue.path[0])} ${issue.message}`)
    process.exit(1)
  }
  const { STRIPE_SECRET_KEY: secretKey, STRIPE_API_URL: apiUrl } = parsed.data
  if (!secretKey) {
    console.error('stripe:setup: STRIPE_SECRET_KEY is not set (use a test key, sk_test_…, first).')
    process.exit(1)
  }
  const stripe = createStripeClient({ secretKey, apiUrl })
  try {
    await setupStripe(stripe, (line) => console.log(line))
  } catch (error) {
    console.error(`stripe:setup failed: ${error instanceof Error ? error.message : String(error)}`)
    process.exit(1)
  }
  const appUrl = (parsed.data.APP_URL ?? `http://localhost:${parsed.data.PORT ?? 3000}`).replace(/\/+$/, '')
  console.log('')
  console.log(`Webhook endpoint: ${appUrl}${STRIPE_WEBHOOK_PATH} (API version 2026-10-28.endive)`)
  console.log(`Events: ${WEBHOOK_EVENTS.join(', ')}`)
  console.log(`Put its signing secret (whsec_…) in STRIPE_WEBHOOK_SECRET. Locally: stripe listen --forward-to localhost:3000${STRIPE_WEBHOOK_PATH}`)
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main()
