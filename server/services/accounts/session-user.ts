import { count, eq } from 'drizzle-orm'
import type { SessionUser } from '#common/auth'
import { sessionProfileColumns, type SessionProfileRow } from '#server/db/access'
import type { Db } from '#server/db/client'
import { goals, profiles, staffRoles, subscribers, type User } from '#server/db/schema'
import { decideAccess, getAccess } from '#server/services/billing'

/** The session user from a profile row already read (the session query reads it with the session). */
export function sessionUserFrom(user: User, row: SessionProfileRow | null, now: Date): SessionUser {
  const access = decideAccess(row, now)
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

/** The session user, reading the profile (after sign-up, login, confirmation or a reset). */
export async function toSessionUser(db: Db, user: User, now: Date): Promise<SessionUser> {
  const [row] = await db
    .select(sessionProfileColumns)
    .from(profiles)
    .leftJoin(subscribers, eq(subscribers.userId, profiles.id))
    .where(eq(profiles.id, user.id))
    .limit(1)
  return sessionUserFrom(user, row ?? null, now)
}

type PostLoginPath = '/dashboard' | '/goal-intake' | '/payment' | '/staff'

/**
 * Post-login routing, from the profile, the goals and payment. In the goals-and-paid
 * case it also records `onboarding_completed`. A staff account without a plan of its own goes to
 * /staff (docs/decisions/072). If the check itself fails: /goal-intake.
 */
export async function postLoginDestination(db: Db, userId: string, now: Date): Promise<PostLoginPath> {
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
    const { paid } = await getAccess(db, userId, now)
    const hasGoals = goalCount > 0
    if (hasGoals && paid) {
      await db.update(profiles).set({ onboardingCompleted: true, updatedAt: now }).where(eq(profiles.id, userId))
      return '/dashboard'
    }
    if (paid) return '/goal-intake'
    const [staff] = await db.select({ role: staffRoles.role }).from(staffRoles).where(eq(staffRoles.userId, userId)).limit(1)
    if (staff) return '/staff'
    if (hasGoals) return '/payment'
    return '/goal-intake'
  } catch {
    return '/goal-intake'
  }
}
