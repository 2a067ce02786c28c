import { sql } from 'drizzle-orm'
import { check, index, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core'
import { inList } from './helpers'
import { users } from './users'

/**
 * When the person last asked for an export of their data ("Export my data"): one row per person,
 * claimed in one statement, so at most one export in 10 minutes per person on any number of
 * servers (docs/decisions/051).
 */
export const accountDataExports = pgTable('account_data_exports', {
  userId: uuid()
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  lastStartedAt: timestamp({ withTimezone: true }).notNull(),
})

export const RETAINED_BILLING_KINDS = ['subscription', 'course_purchase'] as const

/**
 * What billing law keeps of a deleted account's payments, detached from the person: the Stripe
 * references of its paid subscriptions and purchases (the invoices themselves stay in Stripe),
 * with no user id, email or name, until `retain_until` (docs/decisions/051).
 */
export const retainedBillingRecords = pgTable(
  'retained_billing_records',
  {
    id: uuid().primaryKey().defaultRandom(),
    kind: text({ enum: RETAINED_BILLING_KINDS }).notNull(),
    stripeCustomerId: text(),
    stripeSubscriptionId: text(),
    stripeCheckoutSessionId: text(),
    /** What was bought: `plan:<tier>` or `course:<slug>`. */
    item: text().notNull(),
    /** The subscription's status, or the enrollment's source, when the account was deleted. */
    status: text(),
    accountDeletedAt: timestamp({ withTimezone: true }).notNull(),
    retainUntil: timestamp({ withTimezone: true }).notNull(),
  },
  (t) => [
    // The maintenance job deletes what is past its period.
    index('retained_billing_records_retain_until_idx').on(t.retainUntil),
    check('retained_billing_records_kind_check', inList(t.kind, RETAINED_BILLING_KINDS)),
    check('retained_billing_records_period', sql`${t.accountDeletedAt} < ${t.retainUntil}`),
  ],
)

export type RetainedBillingRecord = typeof retainedBillingRecords.$inferSelect
