/**
 * The Stripe webhook's effect. It never applies an event's payload as a transition: it re-reads
 * the object from Stripe and writes its current state, so events converge in any order. Stripe is
 * read first, outside any transaction (a sync ticket taken before the read orders the reads); then
 * one short transaction records the event id and writes what was read, under a per-customer lock
 * (docs/decisions/008, 030).
 */
import { and, eq } from 'drizzle-orm'
import type Stripe from 'stripe'
import type { DbExecutor } from '#server/db/client'
import { processedWebhookEvents, subscribers } from '#server/db/schema'
import { completeCheckoutSession, readCheckoutSession } from './checkout'
import { idOf, lockCustomer, takeSyncTicket, type StripeContext } from './context'
import { applySubscription, retrieveSubscription } from './subscriptions'

/** The database half of an event: writes what was read from Stripe, inside the event's transaction. */
type Write = (tx: DbExecutor) => Promise<unknown>

const nothing: Write = async () => {}

export function createWebhooks(ctx: StripeContext) {
  const { db, stripe, log } = ctx

  /** Reads a subscription (ticket first) and returns its write. */
  async function readSubscription(subscriptionId: string, now: Date): Promise<Write> {
    const ticket = await takeSyncTicket(db)
    const sub = await retrieveSubscription(ctx, subscriptionId)
    return (tx) => applySubscription(ctx, tx, sub, null, now, ticket)
  }

  /**
   * A full refund of a subscription payment ends the subscription (cancelled at once in Stripe,
   * which the record then follows); one-time payments go to their kind's refund handler.
   */
  async function readRefund(chargeId: string, event: Stripe.Event, now: Date): Promise<Write> {
    const charge = await stripe.charges.retrieve(chargeId, { expand: ['payment_intent'] })
    if (!charge.refunded) return nothing
    const intent = charge.payment_intent && typeof charge.payment_intent !== 'string' ? charge.payment_intent : null
    const metadata = intent?.metadata ?? charge.metadata ?? {}
    const kind = metadata.kind
    if (kind && kind !== 'plan') {
      const refunded = ctx.paymentKinds.get(kind)?.refunded
      if (!refunded) {
        log.warn({ charge: charge.id, kind }, 'refund of an unknown kind: ignored')
        return nothing
      }
      return (tx) => refunded({ tx, charge, metadata, event, now, log })
    }
    const customerId = idOf(charge.customer)
    if (!customerId) return nothing
    const [row] = await db.select().from(subscribers).where(eq(subscribers.stripeCustomerId, customerId)).limit(1)
    if (!row?.stripeSubscriptionId) return nothing
    const ticket = await takeSyncTicket(db)
    let sub = await retrieveSubscription(ctx, row.stripeSubscriptionId)
    if (sub.status !== 'canceled' && sub.status !== 'incomplete_expired') {
      log.info({ charge: charge.id, subscription: sub.id }, 'subscription payment refunded: cancelling the subscription')
      // Idempotent: a retry of this event (its transaction failed) replays the same cancellation.
      sub = await stripe.subscriptions.cancel(sub.id, undefined, { idempotencyKey: `refund-cancel:${charge.id}` })
    }
    const cancelled = sub
    return (tx) => applySubscription(ctx, tx, cancelled, row.userId, now, ticket)
  }

  /** The customer whose records an event touches (its lock key). */
  function customerOf(event: Stripe.Event): string {
    const object = event.data.object as { customer?: string | { id: string } | null }
    return idOf(object.customer) ?? event.id
  }

  /** Reads from Stripe what the event is about (no transaction is open) and returns its write. */
  async function readEvent(event: Stripe.Event, now: Date): Promise<Write> {
    switch (event.type) {
      case 'checkout.session.completed':
      case 'checkout.session.async_payment_succeeded': {
        const read = await readCheckoutSession(ctx, event.data.object.id)
        return (tx) => completeCheckoutSession(ctx, tx, read, event, now)
      }
      case 'customer.subscription.created':
      case 'customer.subscription.updated':
      case 'customer.subscription.deleted':
      case 'customer.subscription.paused':
      case 'customer.subscription.resumed':
      case 'customer.subscription.trial_will_end':
        return readSubscription(event.data.object.id, now)
      case 'invoice.paid':
      case 'invoice.payment_succeeded':
      case 'invoice.payment_failed':
      case 'invoice.payment_action_required': {
        const invoice = await stripe.invoices.retrieve(event.data.object.id!)
        const subscriptionId = idOf(invoice.parent?.subscription_details?.subscription)
        return subscriptionId ? readSubscription(subscriptionId, now) : nothing
      }
      case 'charge.refunded':
        return readRefund(event.data.object.id, event, now)
      default:
        return nothing
    }
  }

  /**
   * A verified Stripe event: processed once. Stripe is read first; then the event id is recorded
   * in the same short transaction as the write, so a failure (Stripe unreachable, a bug) records
   * nothing and Stripe's retry processes the event again. Unknown event types are recorded and
   * acknowledged.
   */
  async function handleEvent(event: Stripe.Event): Promise<'processed' | 'duplicate'> {
    const [seen] = await db
      .select({ id: processedWebhookEvents.eventId })
      .from(processedWebhookEvents)
      .where(and(eq(processedWebhookEvents.provider, 'stripe'), eq(processedWebhookEvents.eventId, event.id)))
      .limit(1)
    if (seen) return 'duplicate'
    const now = ctx.clock.now()
    const write = await readEvent(event, now)
    return db.transaction(async (tx) => {
      const recorded = await tx
        .insert(processedWebhookEvents)
        .values({ provider: 'stripe', eventId: event.id, eventType: event.type, processedAt: now })
        .onConflictDoNothing()
        .returning({ id: processedWebhookEvents.eventId })
      if (recorded.length === 0) return 'duplicate' as const // delivered twice at once; the other one did it
      await lockCustomer(tx, customerOf(event))
      await write(tx)
      return 'processed' as const
    })
  }

  return { handleEvent }
}
