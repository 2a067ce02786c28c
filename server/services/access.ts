import { count, eq } from 'drizzle-orm'
import type { SessionUser } from '../../common/auth'
import type { PlanId } from '../../common/plans'
import type { Db } from '../db/client'
import { goals, profiles, subscribers, type User } from '../db/schema'

export type Access = {
  /** Whether the paid-only screens are open to the user. */
  paid: boolean
  hasSubscription: boolean
  tier: PlanId | null
  end: Date | null
}

/**
 * The one function that decides "paid" (spec 1 §4): an active subscription flag on the subscriber
 * record, or `payment_status = paid` on the profile. Guards, the post-login routing and the
 * daily-call scheduling all read this.
 */
export async function getAccess(db: Db, userId: string): Promise<Access> {
  const [row] = await db
    .select({
      subscribed: subscribers.subscribed,
      tier: subscribers.tier,
      end: subscribers.currentPeriodEnd,
      paymentStatus: profiles.paymentStatus,
    })
    .from(profiles)
    .leftJoin(subscribers, eq(subscribers.userId, profiles.id))
    .where(eq(profiles.id, userId))
    .limit(1)
  const hasSubscription = row?.subscribed === true
  return {
    paid: hasSubscription || row?.paymentStatus === 'paid',
    hasSubscription,
    tier: row?.tier ?? null,
    end: row?.end ?? null,
  }
}

/** The session user of spec 1 §3. */
export async function toSessionUser(db: Db, user: User): Promise<SessionUser> {
  const [row] = await db
    .select({
      partnerProgram: profiles.partnerProgram,
      paymentStatus: profiles.paymentStatus,
      smsOptedInAt: profiles.smsOptedInAt,
      subscribed: subscribers.subscribed,
      tier: subscribers.tier,
      end: subscribers.currentPeriodEnd,
    })
    .from(profiles)
    .leftJoin(subscribers, eq(subscribers.userId, profiles.id))
    .where(eq(profiles.id, user.id))
    .limit(1)
  const hasSubscription = row?.subscribed === true
  return {
    id: user.id,
    email: user.email,
    fullName: user.fullName,
    phoneNumber: user.phoneNumber,
    emailConfirmed: user.emailConfirmedAt !== null,
    hasSubscription,
    hasCompletedPayment: hasSubscription || row?.paymentStatus === 'paid',
    hasOptedIn: Boolean(row?.smsOptedInAt),
    subscriptionTier: row?.tier ?? null,
    subscriptionEnd: row?.end ? row.end.toISOString() : null,
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
