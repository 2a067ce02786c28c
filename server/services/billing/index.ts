/**
 * Billing: the paid rule, the plans, payment testing mode and, when the Stripe keys are set,
 * embedded Checkout, the billing portal and the Stripe webhook. Other domains reach billing
 * through this file only; one-time payments of theirs (courses) register a payment kind.
 */
import type Stripe from 'stripe'
import type { PlanId } from '#common/plans'
import type { Db } from '#server/db/client'
import type { Mailer } from '#server/integrations/mailer'
import { isStripeInvalidRequest, stripeError, verifyStripeEvent } from '#server/integrations/stripe'
import { AppError } from '#server/lib/app-error'
import type { Clock } from '#server/lib/clock'
import type { Logger } from 'pino'
import { getAccess, type Access } from './access'
import { createCheckout } from './checkout'
import { assertEmailConfirmed, ensureCustomer, storedCustomer, type CheckoutUser, type StripeContext } from './context'
import { createPaymentKinds, type PaymentKind } from './payment-kinds'
import { createPortal } from './portal'
import { activateTestingPlan, hadTrial, subscriptionAnswer, subscriptionRecord } from './subscriptions'
import { createTrialReminders } from './trials'
import { createWebhooks } from './webhooks'

export { assertPaid, decideAccess, getAccess, GRACE_MS, paidUserCondition, type Access, type AccessRow } from './access'
export { embeddedClientSecret } from './checkout'
export { assertEmailConfirmed, checkoutUser, type CheckoutUser } from './context'
export type { CheckoutPaymentContext, PaymentKind } from './payment-kinds'
export { planForLookupKey, PLANS, priceLookupKey } from './plans'
export { BILLING_JOBS, type BillingJob } from './jobs'
export { activateTestingPlan, emailDigest, keepTrialClaim, subscriptionRecord } from './subscriptions'

type BillingDeps = {
  db: Db
  clock: Clock
  log: Logger
  appUrl: string
  /** For the trial-ending reminders. */
  mailer: Mailer
  /** The Stripe client and keys; undefined in payment testing mode. */
  stripe: { client: Stripe; publishableKey: string; webhookSecret: string } | undefined
}

type PaymentMode = 'testing' | 'stripe'

/** Subscriptions that can never charge again. */
const ENDED_STATUSES = new Set(['canceled', 'incomplete_expired'])

export type Billing = ReturnType<typeof createBilling>

export function createBilling(deps: BillingDeps) {
  const { db, clock } = deps
  const paymentKinds = createPaymentKinds()
  const mode: PaymentMode = deps.stripe ? 'stripe' : 'testing'
  const ctx: StripeContext | undefined = deps.stripe
    ? { db, clock, log: deps.log, appUrl: deps.appUrl, stripe: deps.stripe.client, paymentKinds }
    : undefined
  const trialReminders = createTrialReminders({ db, clock, log: deps.log, mailer: deps.mailer, appUrl: deps.appUrl })
  const stripeParts = ctx ? { ctx, checkout: createCheckout(ctx), portal: createPortal(ctx), webhooks: createWebhooks(ctx) } : undefined

  /** The Stripe half, or 409 PAYMENTS_NOT_CONFIGURED in testing mode. */
  const live = () => {
    if (!stripeParts) throw new AppError('PAYMENTS_NOT_CONFIGURED')
    return stripeParts
  }

  return {
    mode,
    /** The Stripe client (undefined in testing mode), for one-time checkouts of other domains. */
    stripe: deps.stripe?.client,

    getAccess: (userId: string): Promise<Access> => getAccess(db, userId, clock.now()),

    /** check-subscription: subscribed, tier, period end and grace, from the same rule as the guards; whether a trial is still to be had. */
    async checkSubscription(userId: string) {
      const [access, trialHad] = await Promise.all([getAccess(db, userId, clock.now()), hadTrial(db, userId)])
      return subscriptionAnswer(access, mode, !trialHad)
    },

    publishableKey(): string {
      if (!deps.stripe) throw new AppError('PAYMENTS_NOT_CONFIGURED')
      return deps.stripe.publishableKey
    },

    /** Testing mode: activates a plan without payment (refused when Stripe is configured or the email is unconfirmed). */
    async activateTestingPlan(user: CheckoutUser, plan: PlanId) {
      assertEmailConfirmed(user)
      if (mode === 'stripe') throw new AppError('TESTING_MODE_DISABLED')
      return activateTestingPlan(db, user.id, plan, clock.now())
    },

    /** An embedded Checkout Session for the plan (403 EMAIL_NOT_CONFIRMED before anything reaches Stripe). */
    createEmbeddedCheckout(user: CheckoutUser, plan: PlanId, attempt: string | undefined) {
      assertEmailConfirmed(user)
      return live().checkout.createEmbeddedCheckout(user, plan, attempt)
    },
    checkoutStatus: (userId: string, sessionId: string) => live().checkout.checkoutStatus(userId, sessionId),
    createPortalSession: (userId: string) => live().portal.createPortalSession(userId),
    /**
     * A confirmed new email address becomes the Stripe customer's (receipts, the billing portal),
     * when the person has one. Best effort: Stripe's refusal is logged, never thrown.
     */
    async customerEmailChanged(userId: string, email: string): Promise<void> {
      if (!stripeParts) return
      try {
        const customer = await storedCustomer(db, userId)
        if (customer) await stripeParts.ctx.stripe.customers.update(customer, { email })
      } catch (error) {
        deps.log.warn({ err: error, userId }, 'billing: could not update the Stripe customer’s email')
      }
    },
    /** The user's one Stripe customer, created on first use. */
    ensureCustomer: (user: CheckoutUser) => ensureCustomer(live().ctx, user),

    /**
     * The Stripe webhook: verifies the signature over the raw body (400 INVALID_SIGNATURE) and
     * processes the event once. 404 when Stripe is not configured on this server.
     */
    async handleStripeWebhook(body: Buffer, signature: string | undefined) {
      if (!deps.stripe || !stripeParts) throw new AppError('NOT_FOUND', 'Stripe is not configured on this server.')
      const event = verifyStripeEvent(deps.stripe.client, body, signature, deps.stripe.webhookSecret, deps.log)
      const outcome = await stripeParts.webhooks.handleEvent(event)
      return { event, outcome }
    },

    /** Processes an already verified event (tests and replays). */
    handleEvent: (event: Stripe.Event) => live().webhooks.handleEvent(event),

    /** Emails each member whose free trial ends within two days, once per trial (the trial-reminders job). */
    sendTrialReminders: () => trialReminders.sendTrialReminders(),

    /**
     * Deleting the account stops every charge Stripe could still make for the person: first their
     * open Checkout sessions are expired (a checkout left open in a tab could otherwise start a
     * subscription, or take a payment, for an account that no longer exists), then every
     * subscription of their Stripe customer that could still charge is cancelled at once (Stripe's
     * default: no proration, no final invoice); a checkout completed between the two is caught by
     * the second; then the payment methods saved with the customer are detached (nothing may
     * charge it again). Returns the subscriptions cancelled, with the status Stripe gave, their customer
     * and plan; nothing in testing mode or without a customer. Stripe failing is a 503/502 (the
     * account is then not deleted).
     */
    async endAllCharges(userId: string): Promise<CancelledSubscription[]> {
      const stripe = deps.stripe?.client
      if (!stripe) return []
      const customer = await storedCustomer(db, userId)
      if (!customer) return []
      try {
        for await (const session of stripe.checkout.sessions.list({ customer, status: 'open', limit: 100 })) {
          await expireCheckout(stripe, session.id)
        }
        const cancelled: CancelledSubscription[] = []
        for await (const sub of stripe.subscriptions.list({ customer, status: 'all', limit: 100 })) {
          if (ENDED_STATUSES.has(sub.status)) continue
          const ended = await stripe.subscriptions.cancel(sub.id, undefined, { idempotencyKey: `account-deleted:${sub.id}` })
          cancelled.push({ id: ended.id, status: ended.status, customer, tier: subscriptionRecord(sub).tier })
        }
        // Nothing can charge the customer now: the cards saved with it go too. The customer and its
        // invoices stay, the billing record (docs/decisions/051).
        for await (const method of stripe.customers.listPaymentMethods(customer, { limit: 100 })) {
          await detachPaymentMethod(stripe, method.id)
        }
        return cancelled
      } catch (error) {
        throw stripeError(error, deps.log, 'stop the charges of a deleted account')
      }
    },

    /** Lets another domain fulfil and refund its one-time payments (`metadata.kind`). */
    registerPaymentKind: (kind: string, handlers: PaymentKind) => paymentKinds.register(kind, handlers),
  }
}

/** Detaches a saved payment method; one detached meanwhile (a retry) is left as it is. */
async function detachPaymentMethod(stripe: Stripe, methodId: string): Promise<void> {
  try {
    await stripe.paymentMethods.detach(methodId)
  } catch (error) {
    if (!isStripeInvalidRequest(error)) throw error
    const method = await stripe.paymentMethods.retrieve(methodId)
    if (method.customer) throw error
  }
}

/**
 * Expires an open Checkout session. One that stopped being open meanwhile (the buyer completed it,
 * or it expired) is left as it is: Stripe refuses to expire it, and what it started is a
 * subscription the caller cancels next.
 */
async function expireCheckout(stripe: Stripe, sessionId: string): Promise<void> {
  try {
    await stripe.checkout.sessions.expire(sessionId, undefined, { idempotencyKey: `account-deleted:${sessionId}` })
  } catch (error) {
    if (!isStripeInvalidRequest(error)) throw error
    const session = await stripe.checkout.sessions.retrieve(sessionId)
    if (session.status === 'open') throw error
  }
}

/** A subscription cancelled because its account was deleted. */
export type CancelledSubscription = { id: string; status: string; customer: string; tier: PlanId | null }
