/**
 * One-time payments that are not plan subscriptions, by the `metadata.kind` their checkout put on
 * the session and on its payment intent (courses register `course`). The Stripe webhook calls a
 * kind's `checkoutCompleted` for `checkout.session.completed` and `async_payment_succeeded` of a
 * `mode: 'payment'` session whose `payment_status` is `paid`, and its `refunded` for a full
 * refund. By then the signature is verified, the object re-read from Stripe and the event id
 * recorded in `tx`: write everything through `tx`, and throw to have the event left unrecorded
 * so that Stripe delivers it again. The handlers run inside that transaction, under the
 * customer's lock, so they get no Stripe client: everything they need was read before.
 */
import type { Logger } from 'pino'
import type Stripe from 'stripe'
import type { DbExecutor } from '#server/db/client'

export type CheckoutPaymentContext = {
  /** The transaction the event id is recorded in. */
  tx: DbExecutor
  /** The session as Stripe has it now (re-read, not the event payload). */
  session: Stripe.Checkout.Session
  /** `client_reference_id`, else `metadata.userId`, when it names one of our users. */
  userId: string | null
  event: Stripe.Event
  now: Date
  log: Logger
}

export type RefundContext = {
  tx: DbExecutor
  /** The fully refunded charge, re-read from Stripe with its payment intent expanded. */
  charge: Stripe.Charge
  /** The payment intent's metadata (where one-time checkouts put userId, kind, ...). */
  metadata: Record<string, string>
  event: Stripe.Event
  now: Date
  log: Logger
}

export type PaymentKind = {
  checkoutCompleted(context: CheckoutPaymentContext): Promise<void>
  refunded?(context: RefundContext): Promise<void>
}

/** The kinds registered so far; billing reads it when an event arrives. */
export type PaymentKinds = {
  register(kind: string, handlers: PaymentKind): void
  get(kind: string): PaymentKind | undefined
}

export function createPaymentKinds(): PaymentKinds {
  const kinds = new Map<string, PaymentKind>()
  return {
    register(kind, handlers) {
      if (kind === 'plan') throw new Error('payment kinds: "plan" is the subscriptions\' own kind')
      if (kinds.has(kind)) throw new Error(`payment kinds: "${kind}" is already registered`)
      kinds.set(kind, handlers)
    },
    get: (kind) => kinds.get(kind),
  }
}
