/**
 * Enrollments that payments create or take back: the one idempotent grant every enrollment goes
 * through, and the Stripe webhook handlers for `metadata.kind = 'course'` one-time checkouts
 * (plugged into the billing webhook through server/services/billing-handlers.ts).
 */
import { and, eq } from 'drizzle-orm'
import type { DbExecutor } from '../db/client'
import { courseEnrollments, courses, users } from '../db/schema'
import type { CheckoutPaymentHandler, RefundHandler } from './billing-handlers'

export type EnrollmentSource = 'free' | 'testing' | 'stripe'
export type EnrollmentRow = typeof courseEnrollments.$inferSelect

/** The `metadata.kind` of a course checkout (on the session and on its payment intent). */
export const COURSE_CHECKOUT_KIND = 'course'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/**
 * Records an enrollment once: a second grant for the same user and course changes nothing and
 * returns the existing row (the unique (user, course) key decides), so a replayed or duplicated
 * payment event cannot enroll twice.
 */
export async function grantEnrollment(
  db: DbExecutor,
  input: { userId: string; courseId: string; source: EnrollmentSource; stripeCheckoutSessionId?: string | null; now: Date },
): Promise<{ enrollment: EnrollmentRow; created: boolean }> {
  const [inserted] = await db
    .insert(courseEnrollments)
    .values({
      userId: input.userId,
      courseId: input.courseId,
      source: input.source,
      stripeCheckoutSessionId: input.stripeCheckoutSessionId ?? null,
      enrolledAt: input.now,
      lastAccessedAt: input.now,
    })
    .onConflictDoNothing({ target: [courseEnrollments.userId, courseEnrollments.courseId] })
    .returning()
  if (inserted) return { enrollment: inserted, created: true }
  const [existing] = await db
    .select()
    .from(courseEnrollments)
    .where(and(eq(courseEnrollments.userId, input.userId), eq(courseEnrollments.courseId, input.courseId)))
    .limit(1)
  if (!existing) throw new Error('grantEnrollment: the enrollment vanished after a conflict')
  return { enrollment: existing, created: false }
}

/**
 * `checkout.session.completed` (or `async_payment_succeeded`) of a paid course checkout: enrolls the
 * buyer in the course named by `metadata.courseId`. The billing webhook has verified the signature,
 * re-read the session from Stripe, checked `payment_status = paid` and recorded the event in `tx`.
 */
export const completeCoursePurchase: CheckoutPaymentHandler = async ({ tx, session, userId, now, log }) => {
  const courseId = session.metadata?.courseId
  if (!userId || !courseId || !UUID.test(courseId)) {
    log.warn({ session: session.id, courseId }, 'paid course checkout without a known user or course: ignored')
    return
  }
  const [course] = await tx.select({ id: courses.id, priceCents: courses.priceCents }).from(courses).where(eq(courses.id, courseId)).limit(1)
  if (!course) {
    log.warn({ session: session.id, courseId }, 'paid course checkout for a course that no longer exists: ignored')
    return
  }
  if (course.priceCents !== null && session.amount_total !== null && session.amount_total < course.priceCents) {
    // The price went up between checkout and payment: they paid the price they were shown.
    log.info({ session: session.id, paid: session.amount_total, price: course.priceCents }, 'course paid at an earlier price')
  }
  const { created } = await grantEnrollment(tx, { userId, courseId, source: 'stripe', stripeCheckoutSessionId: session.id, now })
  log.info({ session: session.id, userId, courseId, created }, 'course purchase completed')
}

/**
 * A full refund of a course payment: the enrollment that payment created ends (the lesson progress
 * stays, so buying again picks up where the user left off). Enrollments from other sources stay.
 */
export const refundCoursePurchase: RefundHandler = async ({ tx, metadata, charge, log }) => {
  const userId = metadata.userId
  const courseId = metadata.courseId
  if (!userId || !courseId || !UUID.test(userId) || !UUID.test(courseId)) {
    log.warn({ charge: charge.id }, 'course refund without a user or course: ignored')
    return
  }
  const [user] = await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).limit(1)
  if (!user) return
  const removed = await tx
    .delete(courseEnrollments)
    .where(and(eq(courseEnrollments.userId, userId), eq(courseEnrollments.courseId, courseId), eq(courseEnrollments.source, 'stripe')))
    .returning({ id: courseEnrollments.id })
  log.info({ charge: charge.id, userId, courseId, removed: removed.length }, 'course payment refunded: enrollment ended')
}
