/**
 * The Stripe webhook's effect. It never applies an event's payload as a transition: it re-reads
 * the object from Stripe and writes its current state, under a per-customer lock, so events
 * converge in any order. Each event id is recorded in the same transaction as its effect.
 */
import { and, eq } from 'drizzle-orm'
import type Stripe from 'stripe'
import type { DbExecutor } from '#server/db/client'
import { processedWebhookEvents, subscribers } from '#server/db/schema'
import { completeCheckoutSession } from './checkout'
import { idOf, lockCustomer, type StripeContext } from './context'
import { applySubscription, retrieveSubscription, syncSubscriptionById } from './subscriptions'

export function createWebhooks(ctx: StripeContext) {
  const { db, stripe, log } = ctx

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
      const refunded = ctx.paymentKinds.get(kind)?.refunded
      if (!refunded) log.warn({ charge: charge.id, kind }, 'refund of an unknown kind: ignored')
      else await refunded({ tx, stripe, charge, metadata, event, now, log })
      return
    }
    const customerId = idOf(charge.customer)
    if (!customerId) return
    const [row] = await tx.select().from(subscribers).where(eq(subscribers.stripeCustomerId, customerId)).limit(1)
    if (!row?.stripeSubscriptionId) return
    const sub = await retrieveSubscription(ctx, row.stripeSubscriptionId)
    if (sub.status === 'canceled' || sub.status === 'incomplete_expired') {
      await applySubscription(ctx, tx, sub, row.userId, now)
      return
    }
    log.info({ charge: charge.id, subscription: sub.id }, 'subscription payment refunded: cancelling the subscription')
    const canceled = await stripe.subscriptions.cancel(sub.id, undefined, { idempotencyKey: `refund-cancel:${charge.id}` })
    await applySubscription(ctx, tx, canceled, row.userId, now)
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
        await completeCheckoutSession(ctx, tx, session, event, now)
        return
      }
      case 'customer.subscription.created':
      case 'customer.subscription.updated':
      case 'customer.subscription.deleted':
      case 'customer.subscription.paused':
      case 'customer.subscription.resumed': {
        await syncSubscriptionById(ctx, tx, event.data.object.id, null, now)
        return
      }
      case 'invoice.paid':
      case 'invoice.payment_succeeded':
      case 'invoice.payment_failed':
      case 'invoice.payment_action_required': {
        const invoice = await stripe.invoices.retrieve(event.data.object.id!)
        const subscriptionId = idOf(invoice.parent?.subscription_details?.subscription)
        if (subscriptionId) await syncSubscriptionById(ctx, tx, subscriptionId, null, now)
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
    const now = ctx.clock.now()
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

  return { handleEvent }
}
