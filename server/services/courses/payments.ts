/**
 * Course payments: the one idempotent grant every enrollment goes through, the one-time embedded
 * Checkout for a premium course, and what billing calls back for `metadata.kind = 'course'`
 * (its completion enrolls, a full refund ends that enrollment).
 */
import { and, eq } from 'drizzle-orm'
import type { Logger } from 'pino'
import { isUuid } from '#common/uuid'
import type { DbExecutor } from '#server/db/client'
import { courseEnrollments, courses, users, type Course } from '#server/db/schema'
import { STRIPE_APP_TAG, stripeError } from '#server/integrations/stripe'
import type { Clock } from '#server/lib/clock'
import { embeddedClientSecret, type Billing, type CheckoutUser, type PaymentKind } from '#server/services/billing'

export type EnrollmentSource = 'free' | 'testing' | 'stripe'
export type EnrollmentRow = typeof courseEnrollments.$inferSelect

/** The `metadata.kind` of a course checkout (on the session and on its payment intent). */
export const COURSE_CHECKOUT_KIND = 'course'

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
export const completeCoursePurchase: PaymentKind['checkoutCompleted'] = async ({ tx, session, userId, now, log }) => {
  const courseId = session.metadata?.courseId
  if (!userId || !courseId || !isUuid(courseId)) {
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
export const refundCoursePurchase: NonNullable<PaymentKind['refunded']> = async ({ tx, metadata, charge, log }) => {
  const userId = metadata.userId
  const courseId = metadata.courseId
  if (!userId || !courseId || !isUuid(userId) || !isUuid(courseId)) {
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

const COURSE_PRICE_CACHE_MS = 10 * 60_000

/** Course prices looked up in Stripe, by course and amount. */
export type CoursePriceCache = Map<string, { priceId: string; expiresAt: number }>

type CourseCheckoutDeps = {
  billing: Billing
  clock: Clock
  log: Logger
  appUrl: string
  priceCache: CoursePriceCache
}

/** The Stripe lookup key of a course's one-time price. */
const coursePriceLookupKey = (course: Pick<Course, 'slug'>) => `course_${course.slug}`

/**
 * The course's one-time Stripe price, found by its lookup key (`course_<slug>`). The database is
 * the one source of course prices: when Stripe has no price with that key, or one with another
 * amount, a new price is made and the key moves to it (`transfer_lookup_key`), so the next
 * checkout charges what the catalogue shows. Cached for 10 minutes per course and amount.
 */
async function coursePriceFor(deps: CourseCheckoutDeps, stripe: NonNullable<Billing['stripe']>, course: Course, priceCents: number): Promise<string> {
  const cacheKey = `${course.id}:${priceCents}`
  const nowMs = deps.clock.now().getTime()
  const cached = deps.priceCache.get(cacheKey)
  if (cached && cached.expiresAt > nowMs) return cached.priceId
  const lookupKey = coursePriceLookupKey(course)
  const found = await stripe.prices.list({ lookup_keys: [lookupKey], active: true, limit: 1 })
  const current = found.data[0]
  let priceId: string
  if (current && current.unit_amount === priceCents && current.currency === 'usd' && current.type === 'one_time') {
    priceId = current.id
  } else {
    const metadata = { app: STRIPE_APP_TAG, courseId: course.id, slug: course.slug }
    const created = await stripe.prices.create(
      {
        currency: 'usd',
        unit_amount: priceCents,
        ...(current && typeof current.product === 'string'
          ? { product: current.product }
          : { product_data: { name: course.title, metadata } }),
        lookup_key: lookupKey,
        transfer_lookup_key: true,
        metadata,
      },
      { idempotencyKey: `course-price:${course.id}:${priceCents}` },
    )
    priceId = created.id
  }
  deps.priceCache.set(cacheKey, { priceId, expiresAt: nowMs + COURSE_PRICE_CACHE_MS })
  return priceId
}

/**
 * An embedded Checkout Session in `mode: 'payment'` for the course's one-time price. The user's one
 * Stripe customer is reused; `metadata.kind = 'course'` (on the session and its payment intent)
 * routes the completion webhook to completeCoursePurchase and a refund to refundCoursePurchase.
 * Repeats within the same minute replay the same session.
 */
export async function startCourseCheckout(deps: CourseCheckoutDeps, user: CheckoutUser, course: Course) {
  const { billing, log } = deps
  const stripe = billing.stripe
  if (!stripe) throw new Error('startCourseCheckout: billing is in testing mode')
  if (course.priceCents === null || course.priceCents <= 0) throw new Error(`premium course ${course.id} has no price`)
  const nonce = `m${Math.floor(deps.clock.now().getTime() / 60_000)}`
  try {
    const customer = await billing.ensureCustomer(user)
    const price = await coursePriceFor(deps, stripe, course, course.priceCents)
    const metadata = { userId: user.id, kind: COURSE_CHECKOUT_KIND, courseId: course.id }
    const session = await stripe.checkout.sessions.create(
      {
        ui_mode: 'embedded_page',
        mode: 'payment',
        customer,
        line_items: [{ price, quantity: 1 }],
        return_url: `${deps.appUrl}/courses/${course.id}?session_id={CHECKOUT_SESSION_ID}`,
        redirect_on_completion: 'if_required',
        client_reference_id: user.id,
        metadata,
        payment_intent_data: { metadata },
        invoice_creation: { enabled: true },
      },
      { idempotencyKey: `course-checkout:${user.id}:${course.id}:${price}:${nonce}` },
    )
    return { clientSecret: embeddedClientSecret(deps, session), sessionId: session.id }
  } catch (error) {
    throw stripeError(error, log, 'create course checkout session')
  }
}
