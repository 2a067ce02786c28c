import { and, count, eq, gte, inArray, isNotNull, isNull, or, type SQL } from 'drizzle-orm'
import type { SessionUser } from '#common/auth'
import { PAST_DUE_GRACE_DAYS } from '#common/billing'
import type { SubscriptionStatus } from '#common/domain'
import type { PlanId } from '#common/plans'
import type { Db } from '../db/client'
import { goals, profiles, subscribers, type User } from '../db/schema'
import { AppError } from '../lib/app-error'

export const GRACE_MS = PAST_DUE_GRACE_DAYS * 24 * 60 * 60 * 1000

/** Stripe statuses that open the paid screens by themselves (past_due does only inside the grace). */
export const PAID_STRIPE_STATUSES = ['active', 'trialing'] as const satisfies readonly SubscriptionStatus[]

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
}

/** The columns the decision reads. */
export type AccessRow = {
  subscribed: boolean | null
  tier: PlanId | null
  status: SubscriptionStatus | null
  source: 'stripe' | 'testing' | null
  end: Date | null
  pastDueSince: Date | null
  updatedAt: Date | null
  paymentStatus: 'paid' | 'unpaid' | null
}

/**
 * THE rule for "paid" (spec 1 §4 and the billing issue), as a pure function:
 * - a Stripe subscription that is active or trialing;
 * - a Stripe subscription past due for at most PAST_DUE_GRACE_DAYS (since `past_due_since`);
 * - a testing-mode activation;
 * - or `profiles.payment_status = 'paid'`.
 * Cancelled, unpaid, incomplete, paused or refunded (cancelled on refund) subscriptions, and past-due
 * ones beyond the grace, are not paid. `paidUserCondition` is the same rule in SQL.
 */
export function decideAccess(row: AccessRow | undefined, now: Date): Access {
  const source = row?.source ?? null
  const status = row?.status ?? null
  let hasSubscription = false
  let inGrace = false
  let graceUntil: Date | null = null
  if (source === 'stripe') {
    if (status === 'active' || status === 'trialing') hasSubscription = true
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
  }
}

/**
 * The same rule as `decideAccess`, as a condition over `profiles` left-joined with `subscribers`,
 * for queries that pick many users at once (the daily-call scheduler).
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

/** The columns `decideAccess` reads, over `profiles` left-joined with `subscribers`. */
export const accessColumns = {
  subscribed: subscribers.subscribed,
  tier: subscribers.tier,
  status: subscribers.status,
  source: subscribers.source,
  end: subscribers.currentPeriodEnd,
  pastDueSince: subscribers.pastDueSince,
  updatedAt: subscribers.updatedAt,
  paymentStatus: profiles.paymentStatus,
}

/** What the session user needs of the profile: the access columns, the partner program and the opt-in. */
export const sessionProfileColumns = { ...accessColumns, partnerProgram: profiles.partnerProgram, smsOptedInAt: profiles.smsOptedInAt }
export type SessionProfileRow = AccessRow & { partnerProgram: string | null; smsOptedInAt: Date | null }

/**
 * The one function that decides "paid": guards, the post-login routing, check-subscription and the
 * daily-call scheduling all read this (or `paidUserCondition`, the same rule in SQL).
 */
export async function getAccess(db: Db, userId: string, now: Date = new Date()): Promise<Access> {
  const [row] = await db
    .select(accessColumns)
    .from(profiles)
    .leftJoin(subscribers, eq(subscribers.userId, profiles.id))
    .where(eq(profiles.id, userId))
    .limit(1)
  return decideAccess(row, now)
}

const paymentRequired = () =>
  new AppError('PAYMENT_REQUIRED', 'An active subscription is required. Please choose a plan.', { status: 403 })

/** For paid-only API routes: 403 PAYMENT_REQUIRED (the web then sends the user to /payment). */
export async function assertPaid(db: Db, userId: string, now: Date = new Date()): Promise<Access> {
  const access = await getAccess(db, userId, now)
  if (!access.paid) throw paymentRequired()
  return access
}

/** The access of a validated session, from the row its query read (no further query). */
export function sessionAccess(session: { profile: AccessRow | null }, now: Date): Access {
  return decideAccess(session.profile ?? undefined, now)
}

/**
 * The same guard for a request whose session was just validated: the session query read the
 * access columns in the same statement (`ValidSession.profile`), so no further query is made.
 */
export function assertPaidSession(session: { profile: AccessRow | null }, now: Date): Access {
  const access = sessionAccess(session, now)
  if (!access.paid) throw paymentRequired()
  return access
}

/** The session user of spec 1 §3, with the same access decision as `getAccess`. */
export async function toSessionUser(db: Db, user: User, now: Date = new Date()): Promise<SessionUser> {
  const [row] = await db
    .select(sessionProfileColumns)
    .from(profiles)
    .leftJoin(subscribers, eq(subscribers.userId, profiles.id))
    .where(eq(profiles.id, user.id))
    .limit(1)
  return sessionUserFrom(user, row ?? null, now)
}

/** The session user from a profile row already read (the session query reads it with the session). */
export function sessionUserFrom(user: User, row: SessionProfileRow | null, now: Date): SessionUser {
  const access = decideAccess(row ?? undefined, now)
  return {
    id: user.id,
    email: user.email,
    fullName: user.fullName,
    phoneNumber: user.phoneNumber,
    emailConfirmed: user.emailConfirmedAt !== null,
    hasSubscription: access.hasSubscription,
    hasCompletedPayment: access.paid,
    hasOptedIn: Boolean(row?.smsOptedInAt),
    subscriptionTier: access.tier,
    subscriptionEnd: access.end ? access.end.toISOString() : null,
    partnerProgram: row?.partnerProgram ?? 'GENERAL',
  }
}

export type PostLoginPath = '/dashboard' | '/goal-intake' | '/payment'

/**
 * Post-login routing of spec 1 §4, from the profile, the goals and payment. In the goals-and-paid
 * case it also records `onboarding_completed`. If the check itself fails: /goal-intake.
 */
export async function postLoginDestination(db: Db, userId: string): Promise<PostLoginPath> {
  try {
    const [profile] = await db
      .select({ onboardingCompleted: profiles.onboardingCompleted })
      .from(profiles)
      .where(eq(profiles.id, userId))
      .limit(1)
    if (profile?.onboardingCompleted) return '/dashboard'
    const [{ goalCount } = { goalCount: 0 }] = await db
      .select({ goalCount: count() })
      .from(goals)
      .where(eq(goals.userId, userId))
    const { paid } = await getAccess(db, userId)
    const hasGoals = goalCount > 0
    if (hasGoals && paid) {
      await db.update(profiles).set({ onboardingCompleted: true, updatedAt: new Date() }).where(eq(profiles.id, userId))
      return '/dashboard'
    }
    if (paid) return '/goal-intake'
    if (hasGoals) return '/payment'
    return '/goal-intake'
  } catch {
    return '/goal-intake'
  }
}
