/**
 * Who counts as paid: THE rule, in one place. Every guard (the `auth: 'paid'` route hook),
 * check-subscription, the post-login routing, the session user and every SQL condition (the call
 * scheduler picking many users at once) decide through this module:
 * - a Stripe subscription that is active or trialing (a free trial counts as paid);
 * - a Stripe subscription past due for at most PAST_DUE_GRACE_DAYS (since `past_due_since`);
 * - a testing-mode activation (its trial, then active: testing mode takes no payment);
 * - or `profiles.payment_status = 'paid'`.
 * Cancelled, unpaid, incomplete, paused or refunded (cancelled on refund) subscriptions, and
 * past-due ones beyond the grace, are not paid. `decideAccess` is the rule over one row,
 * `paidUserCondition` the same rule in SQL; a test compares them on every combination.
 */
import { and, eq, gte, inArray, isNotNull, isNull, or, type SQL } from 'drizzle-orm'
import { PAST_DUE_GRACE_DAYS } from '#common/billing'
import type { SubscriptionStatus } from '#common/domain'
import type { PlanId } from '#common/plans'
import { accessColumns, type AccessRow } from '#server/db/access'
import type { DbExecutor } from '#server/db/client'
import { profiles, subscribers } from '#server/db/schema'
import { AppError } from '#server/lib/app-error'

export type { AccessRow }

export const GRACE_MS = PAST_DUE_GRACE_DAYS * 24 * 60 * 60 * 1000

/** Stripe statuses that open the paid screens by themselves (past_due does only inside the grace). */
const PAID_STRIPE_STATUSES = ['active', 'trialing'] as const satisfies readonly SubscriptionStatus[]

export type Access = {
  /** Whether the paid-only screens are open to the user. */
  paid: boolean
  /** Whether a subscription (Stripe, or a testing activation) grants access; `payment_status` aside. */
  hasSubscription: boolean
  tier: PlanId | null
  end: Date | null
  status: SubscriptionStatus | null
  source: 'stripe' | 'testing' | null
  /** Past due and still inside the grace period: paid, but the dashboard says so. */
  inGrace: boolean
  /** When the grace of a past-due subscription ends (null unless past due). */
  graceUntil: Date | null
  /** While the status is `trialing`: when the free trial ends (null otherwise). */
  trialEnd: Date | null
  /** A subscription cancelled but still standing: when Stripe ends it (no further payment); null otherwise. */
  cancelAt: Date | null
}

/** The rule over one access row (undefined or null: no profile, not paid). */
export function decideAccess(row: AccessRow | null | undefined, now: Date): Access {
  const source = row?.source ?? null
  let status = row?.status ?? null
  // A testing-mode trial becomes active at its end, as a Stripe one does when its first payment
  // succeeds (testing mode takes none). Stripe's own statuses come from Stripe.
  if (source === 'testing' && status === 'trialing' && row?.trialEnd && row.trialEnd.getTime() <= now.getTime()) status = 'active'
  let hasSubscription = false
  let inGrace = false
  let graceUntil: Date | null = null
  if (source === 'stripe') {
    if ((PAID_STRIPE_STATUSES as readonly string[]).includes(status ?? '')) hasSubscription = true
    else if (status === 'past_due') {
      const since = row?.pastDueSince ?? row?.updatedAt ?? now
      graceUntil = new Date(since.getTime() + GRACE_MS)
      inGrace = now.getTime() <= graceUntil.getTime()
      hasSubscription = inGrace
    }
  } else {
    // A testing activation (or a record written by hand): the subscribed flag decides.
    hasSubscription = row?.subscribed === true
  }
  return {
    paid: hasSubscription || row?.paymentStatus === 'paid',
    hasSubscription,
    tier: row?.tier ?? null,
    end: row?.end ?? null,
    status,
    source,
    inGrace,
    graceUntil,
    trialEnd: status === 'trialing' ? (row?.trialEnd ?? null) : null,
    cancelAt: source === 'stripe' && hasSubscription ? (row?.cancelAt ?? null) : null,
  }
}

/**
 * The same rule as `decideAccess`, as a condition over `profiles` left-joined with `subscribers`,
 * for queries that pick many users at once.
 */
export function paidUserCondition(now: Date): SQL {
  const graceStart = new Date(now.getTime() - GRACE_MS)
  return or(
    eq(profiles.paymentStatus, 'paid'),
    and(eq(subscribers.source, 'stripe'), inArray(subscribers.status, [...PAID_STRIPE_STATUSES])),
    and(
      eq(subscribers.source, 'stripe'),
      eq(subscribers.status, 'past_due'),
      or(
        and(isNotNull(subscribers.pastDueSince), gte(subscribers.pastDueSince, graceStart)),
        and(isNull(subscribers.pastDueSince), gte(subscribers.updatedAt, graceStart)),
      ),
    ),
    and(or(isNull(subscribers.source), eq(subscribers.source, 'testing')), eq(subscribers.subscribed, true)),
  )!
}

/** The user's access, read from the database. */
export async function getAccess(db: DbExecutor, userId: string, now: Date): Promise<Access> {
  const [row] = await db
    .select(accessColumns)
    .from(profiles)
    .leftJoin(subscribers, eq(subscribers.userId, profiles.id))
    .where(eq(profiles.id, userId))
    .limit(1)
  return decideAccess(row, now)
}

/** 403 PAYMENT_REQUIRED unless the access is paid (the web then sends the user to /payment). */
export function assertPaid(access: Access): Access {
  if (!access.paid) throw new AppError('PAYMENT_REQUIRED')
  return access
}
