import { eq, sql } from 'drizzle-orm'
import type { Logger } from 'pino'
import type Stripe from 'stripe'
import { isUuid } from '#common/uuid'
import type { Db, DbExecutor } from '#server/db/client'
import { subscribers, users } from '#server/db/schema'
import { AppError } from '#server/lib/app-error'
import type { Clock } from '#server/lib/clock'
import type { PaymentKinds } from './payment-kinds'

/** What the Stripe half of billing shares: the client, the database, the time, the log, the kinds. */
export type StripeContext = {
  db: Db
  stripe: Stripe
  clock: Clock
  log: Logger
  appUrl: string
  paymentKinds: PaymentKinds
}

/** Who pays: the signed-in user, as routes hand it over (`checkoutUser(request.user)`). */
export type CheckoutUser = { id: string; email: string; fullName: string; emailConfirmed: boolean }

/** The checkout user of a users row. */
export function checkoutUser(user: { id: string; email: string; fullName: string; emailConfirmedAt: Date | null }): CheckoutUser {
  return { id: user.id, email: user.email, fullName: user.fullName, emailConfirmed: user.emailConfirmedAt !== null }
}

/**
 * 403 EMAIL_NOT_CONFIRMED unless the user has confirmed their email: nothing is bought, activated
 * or enrolled for an address nobody has shown they own (the web shows the confirmation view first,
 * and the server enforces it).
 */
export function assertEmailConfirmed(user: CheckoutUser): void {
  if (!user.emailConfirmed) throw new AppError('EMAIL_NOT_CONFIRMED')
}

/** How long a looked-up price or portal configuration is reused. */
export const STRIPE_LOOKUP_CACHE_MS = 10 * 60_000

export const idOf = (value: string | { id: string } | null | undefined): string | null =>
  value == null ? null : typeof value === 'string' ? value : value.id

/** The id, when it names one of our users. */
export async function userExists(tx: DbExecutor, userId: string | null | undefined): Promise<string | null> {
  if (!userId || !isUuid(userId)) return null
  const [row] = await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).limit(1)
  return row?.id ?? null
}

export async function storedCustomer(tx: DbExecutor, userId: string): Promise<string | null> {
  const [row] = await tx.select({ customer: subscribers.stripeCustomerId }).from(subscribers).where(eq(subscribers.userId, userId)).limit(1)
  return row?.customer ?? null
}

/** Records the customer on the user's subscriber record unless one is already there. */
export async function rememberCustomer(tx: DbExecutor, userId: string, customerId: string, now: Date): Promise<string> {
  await tx
    .insert(subscribers)
    .values({ userId, stripeCustomerId: customerId, createdAt: now, updatedAt: now })
    .onConflictDoUpdate({
      target: subscribers.userId,
      set: { stripeCustomerId: sql`coalesce(${subscribers.stripeCustomerId}, excluded.stripe_customer_id)`, updatedAt: now },
    })
  return (await storedCustomer(tx, userId)) ?? customerId
}

/** One Stripe customer per user: the stored one, else created once (idempotency key per user). */
export async function ensureCustomer(ctx: StripeContext, user: CheckoutUser): Promise<string> {
  const existing = await storedCustomer(ctx.db, user.id)
  if (existing) return existing
  const customer = await ctx.stripe.customers.create(
    { email: user.email, name: user.fullName, metadata: { userId: user.id } },
    { idempotencyKey: `customer:${user.id}` },
  )
  return rememberCustomer(ctx.db, user.id, customer.id, ctx.clock.now())
}

/**
 * Serialises the database writes for one Stripe customer (a transaction-scoped advisory lock).
 * Taken only in the short transaction that writes what was read from Stripe before it: never
 * while a Stripe call is in flight.
 */
export async function lockCustomer(tx: DbExecutor, key: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`stripe:${key}`}))`)
}

/**
 * A sync ticket, taken (outside any transaction) just before reading a subscription from Stripe:
 * tickets grow in the order the reads start, so of two reads of one subscription the one with
 * the later ticket saw Stripe's state at least as late as every event that came before it.
 * `applySubscription` writes a read only if no later ticket was written (docs/decisions/030).
 */
export async function takeSyncTicket(db: DbExecutor): Promise<number> {
  const result = await db.execute(sql`select nextval('stripe_sync_tickets') as ticket`)
  const rows = Array.isArray(result) ? result : (result as { rows: unknown[] }).rows
  return Number((rows[0] as { ticket: string | number }).ticket)
}
