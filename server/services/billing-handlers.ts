/**
 * Extension points of the Stripe webhook handler (server/services/billing.ts) for one-time
 * payments that are not plan subscriptions, keyed by the `metadata.kind` the checkout put on the
 * session (and on `payment_intent_data.metadata`).
 *
 * The courses issue adds its handler here, e.g.
 *
 *   export const checkoutPaymentHandlers: CheckoutPaymentHandlers = { course: completeCoursePurchase }
 *
 * where `completeCoursePurchase(ctx)` enrolls `ctx.userId` in `ctx.session.metadata.courseId`
 * idempotently on `course_enrollments.stripe_checkout_session_id = ctx.session.id`.
 * The webhook calls a checkout handler for `checkout.session.completed` and
 * `checkout.session.async_payment_succeeded` of a `mode: 'payment'` session whose
 * `payment_status` is `paid`; it has already verified the signature, re-read the session from
 * Stripe and recorded the event id in `ctx.tx`: write everything through `ctx.tx`, and throw to
 * have the event left unrecorded so that Stripe delivers it again.
 */
import type { Logger } from 'pino'
import type Stripe from 'stripe'
import type { DbExecutor } from '../db/client'
import { COURSE_CHECKOUT_KIND, completeCoursePurchase, refundCoursePurchase } from './course-payments'

export type CheckoutPaymentContext = {
  /** The transaction the event id is recorded in. */
  tx: DbExecutor
  stripe: Stripe
  /** The session as Stripe has it now (re-read, not the event payload). */
  session: Stripe.Checkout.Session
  /** `client_reference_id`, else `metadata.userId`, when it names one of our users. */
  userId: string | null
  event: Stripe.Event
  now: Date
  log: Logger
}

export type CheckoutPaymentHandler = (context: CheckoutPaymentContext) => Promise<void>
export type CheckoutPaymentHandlers = Readonly<Record<string, CheckoutPaymentHandler | undefined>>

export type RefundContext = {
  tx: DbExecutor
  stripe: Stripe
  /** The fully refunded charge, re-read from Stripe with its payment intent expanded. */
  charge: Stripe.Charge
  /** The payment intent's metadata (where one-time checkouts put userId, kind, ...). */
  metadata: Record<string, string>
  event: Stripe.Event
  now: Date
  log: Logger
}

export type RefundHandler = (context: RefundContext) => Promise<void>
export type RefundHandlers = Readonly<Record<string, RefundHandler | undefined>>

/** `mode: 'payment'` checkouts by `metadata.kind`: premium courses (server/services/course-payments.ts). */
export const checkoutPaymentHandlers: CheckoutPaymentHandlers = { [COURSE_CHECKOUT_KIND]: completeCoursePurchase }

/** Full refunds of one-time payments by their payment intent's `metadata.kind` (e.g. `course`). */
export const refundHandlers: RefundHandlers = { [COURSE_CHECKOUT_KIND]: refundCoursePurchase }
