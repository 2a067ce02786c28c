/**
 * Stripe billing: the client, one customer per user, embedded Checkout Sessions for the plans,
 * the billing portal, and the webhook handler that keeps `subscribers` right.
 *
 * Facts this relies on (../shared/briefs/stripe.md): `ui_mode: 'embedded_page'`; no
 * `payment_method_types`; the period end lives on subscription items; metadata is not inherited
 * (the user id goes in `subscription_data.metadata` too); `customer` xor `customer_email`;
 * `new Stripe('')` throws, so the client exists only when the keys are configured.
 *
 * Webhooks never apply an event's payload as a transition: they re-read the object from Stripe
 * and write its current state, under a per-customer lock, so any order of delivery converges.
 */
import { and, eq, sql } from 'drizzle-orm'
import type { Logger } from 'pino'
import Stripe from 'stripe'
import { SUBSCRIPTION_STATUSES, type SubscriptionStatus } from '#common/domain'
import { PLAN_IDS, type PlanId } from '#common/plans'
import type { Config } from '../config'
import type { Db, DbExecutor } from '../db/client'
import { processedWebhookEvents, subscribers, users } from '../db/schema'
import { AppError } from '../lib/app-error'
import type { Clock } from '../lib/clock'
import { getAccess, type Access } from './access'
import {
  checkoutPaymentHandlers as defaultCheckoutHandlers,
  refundHandlers as defaultRefundHandlers,
  type CheckoutPaymentHandlers,
  type RefundHandlers,
} from './billing-handlers'
import { findPlan, planForLookupKey, priceLookupKey } from './plans'

export type StripeSettings = NonNullable<Config['stripe']>

/** Marks the objects this app creates in Stripe (products, prices, the portal configuration). */
export const STRIPE_APP_TAG = 'momentum-coach'

/**
 * The Stripe client for the configured keys. `STRIPE_API_URL` (a local fake in tests) becomes
 * host/port/protocol: the SDK has no base-URL option and always requests `/v1/...`.
 */
export function createStripeClient(settings: Pick<StripeSettings, 'secretKey' | 'apiUrl'>): Stripe {
  const config: Stripe.StripeConfig = {
    timeout: 10_000,
    // Against a fake, fail at once instead of retrying with back-off.
    maxNetworkRetries: settings.apiUrl ? 0 : 2,
    telemetry: false,
    appInfo: { name: STRIPE_APP_TAG },
  }
  if (settings.apiUrl) {
    const url = new URL(settings.apiUrl)
    const protocol = url.protocol === 'http:' ? 'http' : 'https'
    config.host = url.hostname
    config.port = url.port || (protocol === 'http' ? 80 : 443)
    config.protocol = protocol
  }
  return new Stripe(settings.secretKey, config)
}

export type BillingDeps = {
  db: Db
  stripe: Stripe
  appUrl: string
  clock: Clock
  log: Logger
  checkoutHandlers?: CheckoutPaymentHandlers
  refundHandlers?: RefundHandlers
}

export type CheckoutUser = { id: string; email: string; fullName: string }

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
/** Statuses under which a Stripe subscription still counts as the user's subscription. */
const STANDING_STATUSES = new Set<string>(['active', 'trialing', 'past_due'])
const PRICE_CACHE_MS = 10 * 60_000

const idOf = (value: string | { id: string } | null | undefined): string | null =>
  value == null ? null : typeof value === 'string' ? value : value.id

/** Stripe failures as the API's errors: unreachable → 503, refused → 502; details go to the log only. */
export function providerError(error: unknown, log: Logger, what: string): AppError {
  if (error instanceof AppError) return error
  if (error instanceof Stripe.errors.StripeConnectionError) {
    log.warn({ err: error }, `stripe unreachable: ${what}`)
    return new AppError('PAYMENT_PROVIDER_ERROR', 'The payment service could not be reached. Please try again in a moment.', {
      status: 503,
    })
  }
  if (error instanceof Stripe.errors.StripeError) {
    log.error({ err: error, stripeCode: error.code, requestId: error.requestId }, `stripe refused: ${what}`)
    return new AppError('PAYMENT_PROVIDER_ERROR', 'The payment service refused the request. Please try again later.', { status: 502 })
  }
  throw error
}

/** The record a Stripe subscription maps to; the tier from its price's lookup key (or metadata). */
export function subscriptionRecord(sub: Stripe.Subscription): {
  tier: PlanId | null
  status: SubscriptionStatus
  currentPeriodEnd: Date | null
} {
  const items = sub.items?.data ?? []
  let tier: PlanId | null = null
  for (const item of items) {
    tier = planForLookupKey(item.price?.lookup_key) ?? asPlan(item.price?.metadata?.tier)
    if (tier) break
  }
  tier ??= asPlan(sub.metadata?.tier)
  const ends = items.map((item) => item.current_period_end).filter((end): end is number => typeof end === 'number')
  const status = (SUBSCRIPTION_STATUSES as readonly string[]).includes(sub.status) ? (sub.status as SubscriptionStatus) : 'incomplete'
  return { tier, status, currentPeriodEnd: ends.length > 0 ? new Date(Math.max(...ends) * 1000) : null }
}

function asPlan(value: unknown): PlanId | null {
  return typeof value === 'string' && (PLAN_IDS as readonly string[]).includes(value) ? (value as PlanId) : null
}

/** Serialises everything written for one Stripe customer (transaction-scoped advisory lock). */
async function lockCustomer(tx: DbExecutor, key: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`stripe:${key}`}))`)
}

export type Billing = ReturnType<typeof createBilling>

export function createBilling(deps: BillingDeps) {
  const { db, stripe, log } = deps
  const checkoutHandlers = deps.checkoutHandlers ?? defaultCheckoutHandlers
  const refundHandlers = deps.refundHandlers ?? defaultRefundHandlers
  const priceCache = new Map<PlanId, { id: string; expiresAt: number }>()
  let portalConfiguration: { id: string | null; expiresAt: number } | undefined

  async function userExists(tx: DbExecutor, userId: string | null | undefined): Promise<string | null> {
    if (!userId || !UUID.test(userId)) return null
    const [row] = await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).limit(1)
    return row?.id ?? null
  }

  async function storedCustomer(tx: DbExecutor, userId: string): Promise<string | null> {
    const [row] = await tx.select({ customer: subscribers.stripeCustomerId }).from(subscribers).where(eq(subscribers.userId, userId)).limit(1)
    return row?.customer ?? null
  }

  /** Records the customer on the user's subscriber record unless one is already there. */
  async function rememberCustomer(tx: DbExecutor, userId: string, customerId: string, now: Date): Promise<string> {
    await tx
      .insert(subscribers)
      .values({ userId, stripeCustomerId: customerId, createdAt: now, updatedAt: now })
      .onConflictDoUpdate({
        target: subscribers.userId,
        set: { stripeCustomerId: sql`coalesce(${subscribers.stripeCustomerId}, excluded.stripe_customer_id)`, updatedAt: now },
      })
    return (await storedCustomer(tx, userId)) ?? customerId
  }

  /** One Stripe customer per user: the stored one, else created once (idempotency key per user). */
  async function ensureCustomer(user: CheckoutUser): Promise<string> {
    const existing = await storedCustomer(db, user.id)
    if (existing) return existing
    const customer = await stripe.customers.create(
      { email: user.email, name: user.fullName, metadata: { userId: user.id } },
      { idempotencyKey: `customer:${user.id}` },
    )
    return rememberCustomer(db, user.id, customer.id, deps.clock.now())
  }

  /** The plan's monthly price, found by lookup key (made by `npm run stripe:setup`), cached 10 min. */
  async function priceFor(plan: PlanId): Promise<string> {
    const now = Date.now()
    const cached = priceCache.get(plan)
    if (cached && cached.expiresAt > now) return cached.id
    const prices = await stripe.prices.list({ lookup_keys: [priceLookupKey(plan)], active: true, limit: 1 })
    const price = prices.data[0]
    if (!price) {
      log.error({ plan, lookupKey: priceLookupKey(plan) }, 'no Stripe price for the plan: run npm run stripe:setup')
      throw new AppError('PAYMENTS_NOT_CONFIGURED', `The ${findPlan(plan).name} plan is not set up for payment yet. Please try again later.`, {
        status: 503,
      })
    }
    priceCache.set(plan, { id: price.id, expiresAt: now + PRICE_CACHE_MS })
    return price.id
  }

  /** POST /api/billing/embedded-checkout: an embedded Checkout Session in subscription mode. */
  async function createEmbeddedCheckout(user: CheckoutUser, plan: PlanId, attempt: string | undefined) {
    const now = deps.clock.now()
    const access = await getAccess(db, user.id, now)
    if (access.source === 'stripe' && access.hasSubscription) {
      throw new AppError('ALREADY_SUBSCRIBED', 'You already have an active subscription. You can change it from the billing portal.', {
        status: 409,
      })
    }
    try {
      const customer = await ensureCustomer(user)
      const price = await priceFor(plan)
      // Without a client attempt id, repeats within the same minute replay the same session.
      const nonce = attempt ?? `m${Math.floor(now.getTime() / 60_000)}`
      const session = await stripe.checkout.sessions.create(
        {
          ui_mode: 'embedded_page',
          mode: 'subscription',
          customer,
          line_items: [{ price, quantity: 1 }],
          return_url: `${deps.appUrl}/payment?session_id={CHECKOUT_SESSION_ID}`,
          redirect_on_completion: 'if_required',
          client_reference_id: user.id,
          metadata: { userId: user.id, kind: 'plan', tier: plan },
          subscription_data: { metadata: { userId: user.id, tier: plan } },
        },
        { idempotencyKey: `checkout:${user.id}:${plan}:${nonce}` },
      )
      if (!session.client_secret) {
        log.error({ session: session.id }, 'stripe returned an embedded session without a client secret')
        throw new AppError('PAYMENT_PROVIDER_ERROR', 'Invalid response from payment service', { status: 502 })
      }
      return { client_secret: session.client_secret, session_id: session.id }
    } catch (error) {
      throw providerError(error, log, 'create checkout session')
    }
  }

  /**
   * Writes a Stripe subscription's current state to its user's record. A different subscription
   * than the stored one does not replace a stored one in good standing unless it is in good
   * standing itself, so a late event about an old, cancelled subscription never overwrites the
   * current one. Returns the user id, or null when the user is unknown.
   */
  async function applySubscription(tx: DbExecutor, sub: Stripe.Subscription, hintUserId: string | null, now: Date): Promise<string | null> {
    const customerId = idOf(sub.customer)
    let userId = (await userExists(tx, sub.metadata?.userId)) ?? (await userExists(tx, hintUserId))
    if (!userId && customerId) {
      const [row] = await tx.select({ userId: subscribers.userId }).from(subscribers).where(eq(subscribers.stripeCustomerId, customerId)).limit(1)
      userId = row?.userId ?? null
    }
    if (!userId) {
      log.warn({ subscription: sub.id, customer: customerId }, 'stripe subscription for an unknown user: ignored')
      return null
    }
    const [current] = await tx.select().from(subscribers).where(eq(subscribers.userId, userId)).limit(1).for('update')
    const record = subscriptionRecord(sub)
    const superseded =
      current?.stripeSubscriptionId &&
      current.stripeSubscriptionId !== sub.id &&
      STANDING_STATUSES.has(current.status ?? '') &&
      !STANDING_STATUSES.has(record.status)
    if (superseded) {
      log.info({ subscription: sub.id, current: current.stripeSubscriptionId }, 'event about a superseded subscription: ignored')
      return userId
    }
    const sameSubscription = current?.stripeSubscriptionId === sub.id
    const pastDueSince =
      record.status === 'past_due'
        ? sameSubscription && current?.status === 'past_due' && current.pastDueSince
          ? current.pastDueSince
          : pastDueStart(sub, now)
        : null
    const values = {
      subscribed: STANDING_STATUSES.has(record.status),
      tier: record.tier ?? (sameSubscription ? (current?.tier ?? null) : null),
      status: record.status,
      source: 'stripe' as const,
      currentPeriodEnd: record.currentPeriodEnd,
      pastDueSince,
      stripeSubscriptionId: sub.id,
      updatedAt: now,
    }
    await tx
      .insert(subscribers)
      .values({ userId, ...values, stripeCustomerId: customerId, createdAt: now })
      .onConflictDoUpdate({
        target: subscribers.userId,
        set: { ...values, stripeCustomerId: current?.stripeCustomerId ?? customerId },
      })
    return userId
  }

  /** When the unpaid invoice behind a past-due status was finalised (else now). */
  function pastDueStart(sub: Stripe.Subscription, now: Date): Date {
    const invoice = sub.latest_invoice
    const at = invoice && typeof invoice !== 'string' ? (invoice.status_transitions?.finalized_at ?? invoice.created) : null
    return typeof at === 'number' && at * 1000 < now.getTime() ? new Date(at * 1000) : now
  }

  const retrieveSubscription = (id: string) => stripe.subscriptions.retrieve(id, { expand: ['latest_invoice'] })

  /** Re-reads a subscription from Stripe and writes it (the caller holds the customer lock). */
  async function syncSubscriptionById(tx: DbExecutor, subscriptionId: string, hintUserId: string | null, now: Date) {
    const sub = await retrieveSubscription(subscriptionId)
    return applySubscription(tx, sub, hintUserId, now)
  }

  /** The user a checkout session was made for (client_reference_id, else metadata.userId). */
  async function sessionUser(tx: DbExecutor, session: Stripe.Checkout.Session): Promise<string | null> {
    return (await userExists(tx, session.client_reference_id)) ?? (await userExists(tx, session.metadata?.userId))
  }

  async function completeCheckoutSession(tx: DbExecutor, session: Stripe.Checkout.Session, event: Stripe.Event | null, now: Date) {
    const userId = await sessionUser(tx, session)
    const customerId = idOf(session.customer)
    if (userId && customerId) await rememberCustomer(tx, userId, customerId, now)
    if (session.mode === 'subscription') {
      const subscriptionId = idOf(session.subscription)
      if (session.status === 'complete' && subscriptionId) await syncSubscriptionById(tx, subscriptionId, userId, now)
      return userId
    }
    if (session.mode === 'payment' && event) {
      if (session.payment_status !== 'paid') return userId // a delayed method: async_payment_succeeded follows
      const kind = session.metadata?.kind ?? ''
      const handler = checkoutHandlers[kind]
      if (!handler) log.warn({ session: session.id, kind }, 'paid checkout of an unknown kind: ignored')
      else await handler({ tx, stripe, session, userId, event, now, log })
    }
    return userId
  }

  /**
   * A full refund of a subscription payment ends the subscription (cancelled at once in Stripe,
   * which the record then follows); one-time payments go to their kind's refund handler.
   */
  async function handleRefund(tx: DbExecutor, chargeId: string, event: Stripe.Event, now: Date) {
    const charge = await stripe.charges.retrieve(chargeId, { expand: ['payment_intent'] })
    if (!charge.refunded) return
    const intent = charge.payment_intent && typeof charge.payment_intent !== 'string' ? charge.payment_intent : null
    const metadata = intent?.metadata ?? charge.metadata ?? {}
    const kind = metadata.kind
    if (kind && kind !== 'plan') {
      const handler = refundHandlers[kind]
      if (!handler) log.warn({ charge: charge.id, kind }, 'refund of an unknown kind: ignored')
      else await handler({ tx, stripe, charge, metadata, event, now, log })
      return
    }
    const customerId = idOf(charge.customer)
    if (!customerId) return
    const [row] = await tx.select().from(subscribers).where(eq(subscribers.stripeCustomerId, customerId)).limit(1)
    if (!row?.stripeSubscriptionId) return
    const sub = await retrieveSubscription(row.stripeSubscriptionId)
    if (sub.status === 'canceled' || sub.status === 'incomplete_expired') {
      await applySubscription(tx, sub, row.userId, now)
      return
    }
    log.info({ charge: charge.id, subscription: sub.id }, 'subscription payment refunded: cancelling the subscription')
    const canceled = await stripe.subscriptions.cancel(sub.id, undefined, { idempotencyKey: `refund-cancel:${charge.id}` })
    await applySubscription(tx, canceled, row.userId, now)
  }

  /** The customer whose records an event touches (its lock key). */
  function customerOf(event: Stripe.Event): string {
    const object = event.data.object as { customer?: string | { id: string } | null }
    return idOf(object.customer) ?? event.id
  }

  /** Runs the event's effect; the caller has recorded the event id in `tx` and holds the lock. */
  async function applyEvent(tx: DbExecutor, event: Stripe.Event, now: Date): Promise<void> {
    switch (event.type) {
      case 'checkout.session.completed':
      case 'checkout.session.async_payment_succeeded': {
        const session = await stripe.checkout.sessions.retrieve(event.data.object.id)
        await completeCheckoutSession(tx, session, event, now)
        return
      }
      case 'customer.subscription.created':
      case 'customer.subscription.updated':
      case 'customer.subscription.deleted':
      case 'customer.subscription.paused':
      case 'customer.subscription.resumed': {
        await syncSubscriptionById(tx, event.data.object.id, null, now)
        return
      }
      case 'invoice.paid':
      case 'invoice.payment_succeeded':
      case 'invoice.payment_failed':
      case 'invoice.payment_action_required': {
        const invoice = await stripe.invoices.retrieve(event.data.object.id!)
        const subscriptionId = idOf(invoice.parent?.subscription_details?.subscription)
        if (subscriptionId) await syncSubscriptionById(tx, subscriptionId, null, now)
        return
      }
      case 'charge.refunded': {
        await handleRefund(tx, event.data.object.id, event, now)
        return
      }
      default:
        return
    }
  }

  /**
   * A verified Stripe event: processed once. The event id is recorded in the same transaction as
   * its effect, so a failure (Stripe unreachable, a bug) rolls both back and Stripe's retry
   * processes it again. Unknown event types are recorded and acknowledged.
   */
  async function handleEvent(event: Stripe.Event): Promise<'processed' | 'duplicate'> {
    const [seen] = await db
      .select({ id: processedWebhookEvents.eventId })
      .from(processedWebhookEvents)
      .where(and(eq(processedWebhookEvents.provider, 'stripe'), eq(processedWebhookEvents.eventId, event.id)))
      .limit(1)
    if (seen) return 'duplicate'
    const now = deps.clock.now()
    return db.transaction(async (tx) => {
      const recorded = await tx
        .insert(processedWebhookEvents)
        .values({ provider: 'stripe', eventId: event.id, eventType: event.type, processedAt: now })
        .onConflictDoNothing()
        .returning({ id: processedWebhookEvents.eventId })
      if (recorded.length === 0) return 'duplicate' as const // delivered twice at once; the other one did it
      await lockCustomer(tx, customerOf(event))
      await applyEvent(tx, event, now)
      return 'processed' as const
    })
  }

  /** GET /api/billing/checkout-session/:id: the state after the form completes or Stripe redirects back. */
  async function checkoutStatus(userId: string, sessionId: string) {
    let session: Stripe.Checkout.Session
    try {
      session = await stripe.checkout.sessions.retrieve(sessionId)
    } catch (error) {
      if (error instanceof Stripe.errors.StripeInvalidRequestError && error.statusCode === 404) {
        throw new AppError('NOT_FOUND', 'No such checkout session.')
      }
      throw providerError(error, log, 'retrieve checkout session')
    }
    // Another user's session is as good as missing.
    if (session.client_reference_id !== userId && session.metadata?.userId !== userId) throw new AppError('NOT_FOUND', 'No such checkout session.')
    const now = deps.clock.now()
    if (session.mode === 'subscription' && session.status === 'complete') {
      try {
        // The same idempotent sync the webhook runs; the webhook stays the source of fulfilment.
        await db.transaction(async (tx) => {
          await lockCustomer(tx, idOf(session.customer) ?? session.id)
          await completeCheckoutSession(tx, session, null, now)
        })
      } catch (error) {
        throw providerError(error, log, 'sync subscription after checkout')
      }
    }
    const access = await getAccess(db, userId, now)
    return {
      status: (session.status ?? 'open') as 'open' | 'complete' | 'expired',
      payment_status: (['paid', 'unpaid', 'no_payment_required'].includes(session.payment_status) ? session.payment_status : 'unpaid') as
        | 'paid'
        | 'unpaid'
        | 'no_payment_required',
      subscribed: access.hasSubscription,
      subscription_tier: access.tier,
      subscription_end: access.end ? access.end.toISOString() : null,
    }
  }

  /** The portal configuration `npm run stripe:setup` made (else Stripe's default), cached 10 min. */
  async function portalConfigurationId(): Promise<string | null> {
    const now = Date.now()
    if (portalConfiguration && portalConfiguration.expiresAt > now) return portalConfiguration.id
    const list = await stripe.billingPortal.configurations.list({ active: true, limit: 100 })
    const ours = list.data.find((configuration) => configuration.metadata?.app === STRIPE_APP_TAG)
    portalConfiguration = { id: ours?.id ?? null, expiresAt: now + PRICE_CACHE_MS }
    return portalConfiguration.id
  }

  /** POST /api/billing/customer-portal: Stripe's billing portal for the user's customer. */
  async function createPortalSession(userId: string): Promise<{ url: string }> {
    const customer = await storedCustomer(db, userId)
    if (!customer) {
      throw new AppError('NO_BILLING_ACCOUNT', 'You have no billing account yet. Choose a plan first.', { status: 409 })
    }
    try {
      const configuration = await portalConfigurationId()
      const session = await stripe.billingPortal.sessions.create({
        customer,
        return_url: `${deps.appUrl}/dashboard`,
        ...(configuration ? { configuration } : {}),
      })
      return { url: session.url }
    } catch (error) {
      throw providerError(error, log, 'create billing portal session')
    }
  }

  return {
    stripe,
    ensureCustomer,
    priceFor,
    createEmbeddedCheckout,
    checkoutStatus,
    createPortalSession,
    handleEvent,
  }
}

/** The subscription answer of check-subscription, from the same decision as the guards. */
export function subscriptionAnswer(access: Access, paymentMode: 'testing' | 'stripe') {
  return {
    subscribed: access.hasSubscription,
    subscription_tier: access.tier,
    subscription_end: access.end ? access.end.toISOString() : null,
    paid: access.paid,
    status: access.status,
    source: access.source,
    in_grace_period: access.inGrace,
    grace_period_end: access.graceUntil ? access.graceUntil.toISOString() : null,
    payment_mode: paymentMode,
  }
}
