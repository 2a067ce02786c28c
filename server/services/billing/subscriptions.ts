import { eq } from 'drizzle-orm'
import type Stripe from 'stripe'
import { SUBSCRIPTION_STATUSES, type SubscriptionStatus } from '#common/domain'
import { PLAN_IDS, type PlanId } from '#common/plans'
import type { DbExecutor } from '#server/db/client'
import { subscribers } from '#server/db/schema'
import type { Access } from './access'
import { idOf, userExists, type StripeContext } from './context'
import { planForLookupKey } from './plans'

/** Statuses under which a Stripe subscription still counts as the user's subscription. */
const STANDING_STATUSES = new Set<string>(['active', 'trialing', 'past_due'])

/**
 * Testing mode (no Stripe keys): records the chosen plan as a testing activation, which the paid
 * rule counts as paid. Billing refuses it when Stripe is configured.
 */
export async function activateTestingPlan(db: DbExecutor, userId: string, plan: PlanId, now: Date): Promise<void> {
  await db
    .insert(subscribers)
    .values({ userId, subscribed: true, tier: plan, status: 'active', source: 'testing', currentPeriodEnd: null, createdAt: now, updatedAt: now })
    .onConflictDoUpdate({
      target: subscribers.userId,
      set: { subscribed: true, tier: plan, status: 'active', source: 'testing', currentPeriodEnd: null, pastDueSince: null, updatedAt: now },
    })
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

function asPlan(value: unknown): PlanId | null {
  return typeof value === 'string' && (PLAN_IDS as readonly string[]).includes(value) ? (value as PlanId) : null
}

/**
 * The record a Stripe subscription maps to: the tier from its price's lookup key (or metadata),
 * the period end from its items (Stripe keeps it there, not on the subscription).
 */
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

/** When the unpaid invoice behind a past-due status was finalised (else now). */
function pastDueStart(sub: Stripe.Subscription, now: Date): Date {
  const invoice = sub.latest_invoice
  const at = invoice && typeof invoice !== 'string' ? (invoice.status_transitions?.finalized_at ?? invoice.created) : null
  return typeof at === 'number' && at * 1000 < now.getTime() ? new Date(at * 1000) : now
}

/**
 * Writes a Stripe subscription, as read with sync ticket `ticket`, to its user's record (the
 * caller holds the customer lock in `tx`; the read was made before the transaction began).
 * - A read older than the one already written for the same subscription (a lower ticket) is
 *   dropped: a slow answer never overwrites a newer one.
 * - A different subscription than the stored one does not replace a stored one in good standing
 *   unless it is in good standing itself, so a late event about an old, cancelled subscription
 *   never overwrites the current one.
 * Returns the user id, or null when the user is unknown.
 */
export async function applySubscription(
  ctx: StripeContext,
  tx: DbExecutor,
  sub: Stripe.Subscription,
  hintUserId: string | null,
  now: Date,
  ticket: number,
): Promise<string | null> {
  const customerId = idOf(sub.customer)
  let userId = (await userExists(tx, sub.metadata?.userId)) ?? (await userExists(tx, hintUserId))
  if (!userId && customerId) {
    const [row] = await tx.select({ userId: subscribers.userId }).from(subscribers).where(eq(subscribers.stripeCustomerId, customerId)).limit(1)
    userId = row?.userId ?? null
  }
  if (!userId) {
    ctx.log.warn({ subscription: sub.id, customer: customerId }, 'stripe subscription for an unknown user: ignored')
    return null
  }
  const [current] = await tx.select().from(subscribers).where(eq(subscribers.userId, userId)).limit(1).for('update')
  if (current?.stripeSubscriptionId === sub.id && current.stripeSyncTicket !== null && current.stripeSyncTicket > ticket) {
    ctx.log.info({ subscription: sub.id, ticket, written: current.stripeSyncTicket }, 'an older read of the subscription: dropped')
    return userId
  }
  const record = subscriptionRecord(sub)
  const superseded =
    current?.stripeSubscriptionId &&
    current.stripeSubscriptionId !== sub.id &&
    STANDING_STATUSES.has(current.status ?? '') &&
    !STANDING_STATUSES.has(record.status)
  if (superseded) {
    ctx.log.info({ subscription: sub.id, current: current.stripeSubscriptionId }, 'event about a superseded subscription: ignored')
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
    stripeSyncTicket: ticket,
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

/** A subscription as Stripe has it now, with its latest invoice (read outside any transaction). */
export const retrieveSubscription = (ctx: StripeContext, id: string) => ctx.stripe.subscriptions.retrieve(id, { expand: ['latest_invoice'] })
