/**
 * Embedded Stripe Checkout for the plans (`ui_mode: 'embedded_page'`, subscription mode, with the
 * free trial for a member who has not had one), the
 * return from it, and the completion of any checkout session (shared with the webhook).
 * Metadata is not inherited by the subscription, so the user id goes in `subscription_data` too.
 */
import type Stripe from 'stripe'
import { TRIAL_DAYS, type PlanId } from '#common/plans'
import type { DbExecutor } from '#server/db/client'
import { isStripeNotFound, stripeError } from '#server/integrations/stripe'
import { AppError } from '#server/lib/app-error'
import { getAccess } from './access'
import {
  ensureCustomer,
  idOf,
  lockCustomer,
  rememberCustomer,
  STRIPE_LOOKUP_CACHE_MS,
  takeSyncTicket,
  userExists,
  type CheckoutUser,
  type StripeContext,
} from './context'
import { findPlan, priceLookupKey } from './plans'
import { applySubscription, hadTrial, retrieveSubscription } from './subscriptions'

/** The user a checkout session was made for (client_reference_id, else metadata.userId). */
async function sessionUser(tx: DbExecutor, session: Stripe.Checkout.Session): Promise<string | null> {
  return (await userExists(tx, session.client_reference_id)) ?? (await userExists(tx, session.metadata?.userId))
}

/** A checkout session as Stripe has it now, with its subscription once it has one (read before any transaction). */
type CheckoutRead = { session: Stripe.Checkout.Session; subscription: Stripe.Subscription | null; ticket: number }

/**
 * Reads a checkout session from Stripe and, for a completed subscription checkout, its
 * subscription; the sync ticket is taken first. No transaction is open meanwhile.
 */
export async function readCheckoutSession(ctx: StripeContext, sessionId: string): Promise<CheckoutRead> {
  const ticket = await takeSyncTicket(ctx.db)
  const session = await ctx.stripe.checkout.sessions.retrieve(sessionId)
  const subscriptionId = session.mode === 'subscription' && session.status === 'complete' ? idOf(session.subscription) : null
  const subscription = subscriptionId ? await retrieveSubscription(ctx, subscriptionId) : null
  return { session, subscription, ticket }
}

/**
 * Fulfils a checkout session as it was read (database writes only, in the caller's short
 * transaction): remembers the customer, writes the subscription, or hands a paid one-time
 * payment to its kind (only with the event, i.e. from the webhook).
 */
export async function completeCheckoutSession(
  ctx: StripeContext,
  tx: DbExecutor,
  read: CheckoutRead,
  event: Stripe.Event | null,
  now: Date,
): Promise<string | null> {
  const { session } = read
  const userId = await sessionUser(tx, session)
  const customerId = idOf(session.customer)
  if (userId && customerId) await rememberCustomer(tx, userId, customerId, now)
  if (session.mode === 'subscription') {
    if (read.subscription) await applySubscription(ctx, tx, read.subscription, userId, now, read.ticket)
    return userId
  }
  if (session.mode === 'payment' && event) {
    if (session.payment_status !== 'paid') return userId // a delayed method: async_payment_succeeded follows
    const kind = session.metadata?.kind ?? ''
    const handlers = ctx.paymentKinds.get(kind)
    if (!handlers) ctx.log.warn({ session: session.id, kind }, 'paid checkout of an unknown kind: ignored')
    else await handlers.checkoutCompleted({ tx, session, userId, event, now, log: ctx.log })
  }
  return userId
}

export function createCheckout(ctx: StripeContext) {
  const { db, stripe, log } = ctx
  const priceCache = new Map<PlanId, { id: string; expiresAt: number }>()

  /** The plan's monthly price, found by lookup key (made by `npm run stripe:setup`), cached 10 min. */
  async function priceFor(plan: PlanId): Promise<string> {
    const now = ctx.clock.now().getTime()
    const cached = priceCache.get(plan)
    if (cached && cached.expiresAt > now) return cached.id
    const prices = await stripe.prices.list({ lookup_keys: [priceLookupKey(plan)], active: true, limit: 1 })
    const price = prices.data[0]
    if (!price) {
      log.error({ plan, lookupKey: priceLookupKey(plan) }, 'no Stripe price for the plan: run npm run stripe:setup')
      throw new AppError('PLAN_PRICE_MISSING', `The ${findPlan(plan).name} plan is not set up for payment yet. Please try again later.`)
    }
    priceCache.set(plan, { id: price.id, expiresAt: now + STRIPE_LOOKUP_CACHE_MS })
    return price.id
  }

  /** An embedded Checkout Session in subscription mode for the plan's monthly price. */
  async function createEmbeddedCheckout(user: CheckoutUser, plan: PlanId, attempt: string | undefined) {
    const now = ctx.clock.now()
    const access = await getAccess(db, user.id, now)
    if (access.source === 'stripe' && access.hasSubscription) throw new AppError('ALREADY_SUBSCRIBED')
    try {
      const customer = await ensureCustomer(ctx, user)
      const price = await priceFor(plan)
      // The free trial, once per member: Stripe collects the card now and charges when it ends.
      const trial = (await hadTrial(db, user.id)) ? {} : { trial_period_days: TRIAL_DAYS }
      // Without a client attempt id, repeats within the same minute replay the same session.
      const nonce = attempt ?? `m${Math.floor(now.getTime() / 60_000)}`
      const session = await stripe.checkout.sessions.create(
        {
          ui_mode: 'embedded_page',
          mode: 'subscription',
          customer,
          line_items: [{ price, quantity: 1 }],
          return_url: `${ctx.appUrl}/payment?session_id={CHECKOUT_SESSION_ID}`,
          redirect_on_completion: 'if_required',
          client_reference_id: user.id,
          metadata: { userId: user.id, kind: 'plan', tier: plan },
          subscription_data: { ...trial, metadata: { userId: user.id, tier: plan } },
        },
        { idempotencyKey: `checkout:${user.id}:${plan}:${nonce}` },
      )
      return { client_secret: embeddedClientSecret(ctx, session), session_id: session.id }
    } catch (error) {
      throw stripeError(error, log, 'create checkout session')
    }
  }

  /**
   * A checkout session's state after the form completes or Stripe redirects back; writes the
   * subscription. Stripe is read first; the write is a short transaction under the customer lock.
   */
  async function checkoutStatus(userId: string, sessionId: string) {
    let read: CheckoutRead
    try {
      read = await readCheckoutSession(ctx, sessionId)
    } catch (error) {
      if (isStripeNotFound(error)) throw new AppError('NOT_FOUND', 'No such checkout session.')
      throw stripeError(error, log, 'retrieve checkout session')
    }
    const { session } = read
    // Another user's session is as good as missing.
    if (session.client_reference_id !== userId && session.metadata?.userId !== userId) throw new AppError('NOT_FOUND', 'No such checkout session.')
    const now = ctx.clock.now()
    if (read.subscription) {
      // The same idempotent write the webhook makes; the webhook stays the source of fulfilment.
      await db.transaction(async (tx) => {
        await lockCustomer(tx, idOf(session.customer) ?? session.id)
        await completeCheckoutSession(ctx, tx, read, null, now)
      })
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

  return { priceFor, createEmbeddedCheckout, checkoutStatus }
}

/** The client secret an embedded session must have (502 when Stripe sent none). */
export function embeddedClientSecret(ctx: Pick<StripeContext, 'log'>, session: Stripe.Checkout.Session): string {
  if (session.client_secret) return session.client_secret
  ctx.log.error({ session: session.id }, 'stripe returned an embedded session without a client secret')
  throw new AppError('PAYMENT_PROVIDER_ERROR', 'Invalid response from payment service')
}
