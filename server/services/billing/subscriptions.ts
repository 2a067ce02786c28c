import { createHash } from 'node:crypto'
import { eq } from 'drizzle-orm'
import type Stripe from 'stripe'
import { SUBSCRIPTION_STATUSES, type SubscriptionStatus } from '#common/domain'
import { PLAN_IDS, TRIAL_DAYS, type PlanId } from '#common/plans'
import type { DbExecutor } from '#server/db/client'
import { subscribers, trialClaims, users } from '#server/db/schema'
import type { Access } from './access'
import { idOf, userExists, type StripeContext } from './context'
import { planForLookupKey } from './plans'

const DAY_MS = 24 * 60 * 60 * 1000

/** Statuses under which a Stripe subscription still counts as the user's subscription. */
const STANDING_STATUSES = new Set<string>(['active', 'trialing', 'past_due'])

/** When a trial started at `now` ends. */
const trialEndFrom = (now: Date) => new Date(now.getTime() + TRIAL_DAYS * DAY_MS)

/**
 * Testing mode (no Stripe keys): records the chosen plan as a testing activation, which the paid
 * rule counts as paid. A member's first activation starts the free trial (`trialing` for
 * TRIAL_DAYS, as checkout does in Stripe mode); choosing another plan during it keeps its end;
 * a member who has had a trial, or whose email address had one on a deleted account, gets `active`
 * at once. Billing refuses it when Stripe is configured.
 */
export async function activateTestingPlan(
  db: DbExecutor,
  userId: string,
  plan: PlanId,
  now: Date,
): Promise<{ status: 'trialing' | 'active'; trialEnd: Date | null }> {
  return db.transaction(async (tx) => {
    const [current] = await tx
      .select({ trialEnd: subscribers.trialEnd, trialReminderSentAt: subscribers.trialReminderSentAt })
      .from(subscribers)
      .where(eq(subscribers.userId, userId))
      .limit(1)
      .for('update')
    const trial = current?.trialEnd ? null : await trialOf(tx, userId)
    const firstTrial = trial !== null && !trial.had
    const trialEnd = current?.trialEnd ?? (firstTrial ? trialEndFrom(now) : null)
    const status = trialEnd && trialEnd.getTime() > now.getTime() ? ('trialing' as const) : ('active' as const)
    if (trial && !trial.had) await recordClaim(tx, trial.digest, now)
    const values = {
      subscribed: true,
      tier: plan,
      status,
      source: 'testing' as const,
      currentPeriodEnd: null,
      pastDueSince: null,
      trialEnd,
      trialReminderSentAt: current?.trialEnd ? current.trialReminderSentAt : null,
      cancelScheduled: false,
      cancelAt: null,
      updatedAt: now,
    }
    await tx
      .insert(subscribers)
      .values({ userId, ...values, createdAt: now })
      .onConflictDoUpdate({ target: subscribers.userId, set: values })
    return { status, trialEnd: status === 'trialing' ? trialEnd : null }
  })
}

/** The digest an email address is known by in `trial_claims` (never the address itself). */
export const emailDigest = (email: string) => createHash('sha256').update(email.trim().toLowerCase()).digest('hex')

/**
 * The member's free trial: whether they had one (one per member, and one per email address: an
 * account deleted after its trial leaves its address's digest behind; docs/decisions/056), and
 * their address's digest. Null for no such member.
 */
async function trialOf(db: DbExecutor, userId: string): Promise<{ had: boolean; digest: string } | null> {
  const [row] = await db
    .select({ trialEnd: subscribers.trialEnd, email: users.email })
    .from(users)
    .leftJoin(subscribers, eq(subscribers.userId, users.id))
    .where(eq(users.id, userId))
    .limit(1)
  if (!row) return null
  const digest = emailDigest(row.email)
  if (row.trialEnd) return { had: true, digest }
  const [claim] = await db.select({ at: trialClaims.claimedAt }).from(trialClaims).where(eq(trialClaims.emailDigest, digest)).limit(1)
  return { had: Boolean(claim), digest }
}

/** Whether the member has had a free trial already (`trialOf`). */
export async function hadTrial(db: DbExecutor, userId: string): Promise<boolean> {
  return (await trialOf(db, userId))?.had ?? false
}

const recordClaim = (db: DbExecutor, digest: string, at: Date) => db.insert(trialClaims).values({ emailDigest: digest, claimedAt: at }).onConflictDoNothing()

/** A free trial started in Stripe: the member's email address has had it. */
async function claimTrial(db: DbExecutor, userId: string, at: Date): Promise<void> {
  const [user] = await db.select({ email: users.email }).from(users).where(eq(users.id, userId)).limit(1)
  if (user) await recordClaim(db, emailDigest(user.email), at)
}

/** An account is deleted: if it had the free trial (perhaps from before trials were claimed), its address keeps having had it. */
export async function keepTrialClaim(db: DbExecutor, userId: string, at: Date): Promise<void> {
  const trial = await trialOf(db, userId)
  if (trial?.had) await recordClaim(db, trial.digest, at)
}

/** The subscription answer of check-subscription, from the same decision as the guards. */
export function subscriptionAnswer(access: Access, paymentMode: 'testing' | 'stripe', trialAvailable: boolean) {
  return {
    subscribed: access.hasSubscription,
    subscription_tier: access.tier,
    subscription_end: access.end ? access.end.toISOString() : null,
    paid: access.paid,
    status: access.status,
    source: access.source,
    in_grace_period: access.inGrace,
    grace_period_end: access.graceUntil ? access.graceUntil.toISOString() : null,
    trial_end: access.trialEnd ? access.trialEnd.toISOString() : null,
    cancel_at: access.cancelAt ? access.cancelAt.toISOString() : null,
    trial_available: trialAvailable,
    payment_mode: paymentMode,
  }
}

function asPlan(value: unknown): PlanId | null {
  return typeof value === 'string' && (PLAN_IDS as readonly string[]).includes(value) ? (value as PlanId) : null
}

/**
 * The record a Stripe subscription maps to: the tier from its price's lookup key (or metadata),
 * the period end from its items (Stripe keeps it there, not on the subscription), the trial end.
 */
export function subscriptionRecord(sub: Stripe.Subscription): {
  tier: PlanId | null
  status: SubscriptionStatus
  currentPeriodEnd: Date | null
  trialEnd: Date | null
  cancelScheduled: boolean
  cancelAt: Date | null
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
  const currentPeriodEnd = ends.length > 0 ? new Date(Math.max(...ends) * 1000) : null
  return {
    tier,
    status,
    currentPeriodEnd,
    trialEnd: typeof sub.trial_end === 'number' ? new Date(sub.trial_end * 1000) : null,
    cancelScheduled: sub.cancel_at_period_end === true || typeof sub.cancel_at === 'number',
    // Stripe sets `cancel_at` for either way of cancelling; the period end stands in if it did not.
    cancelAt: typeof sub.cancel_at === 'number' ? new Date(sub.cancel_at * 1000) : sub.cancel_at_period_end === true ? currentPeriodEnd : null,
  }
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
  // The trial end stays once known (a trial is given once); a new or moved trial end is reminded again.
  const trialEnd = record.trialEnd ?? current?.trialEnd ?? null
  const trialMoved = (trialEnd?.getTime() ?? null) !== (current?.trialEnd?.getTime() ?? null)
  if (trialEnd && !current?.trialEnd) await claimTrial(tx, userId, now)
  const values = {
    subscribed: STANDING_STATUSES.has(record.status),
    tier: record.tier ?? (sameSubscription ? (current?.tier ?? null) : null),
    status: record.status,
    source: 'stripe' as const,
    currentPeriodEnd: record.currentPeriodEnd,
    pastDueSince,
    trialEnd,
    ...(trialMoved ? { trialReminderSentAt: null } : {}),
    cancelScheduled: record.cancelScheduled,
    cancelAt: record.cancelAt,
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
