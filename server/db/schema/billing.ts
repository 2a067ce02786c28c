import { sql } from 'drizzle-orm'
import { bigint, boolean, check, index, pgSequence, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { SUBSCRIPTION_STATUSES } from '#common/domain'
import { PLAN_IDS } from '#common/plans'
import { inList } from './helpers'
import { timestamps, users } from './users'

export const SUBSCRIPTION_SOURCES = ['stripe', 'testing'] as const

/** The subscription record per user, kept right by Stripe webhooks. */
export const subscribers = pgTable(
  'subscribers',
  {
    userId: uuid()
      .primaryKey()
      .references(() => users.id, { onDelete: 'cascade' }),
    subscribed: boolean().notNull().default(false),
    tier: text({ enum: PLAN_IDS }),
    status: text({ enum: SUBSCRIPTION_STATUSES }),
    source: text({ enum: SUBSCRIPTION_SOURCES }),
    currentPeriodEnd: timestamp({ withTimezone: true }),
    pastDueSince: timestamp({ withTimezone: true }),
    /** When the member's free trial ends (or ended: kept afterwards, so a trial is given once). */
    trialEnd: timestamp({ withTimezone: true }),
    /** When the trial-ending reminder was sent (claimed) for the current trial end. */
    trialReminderSentAt: timestamp({ withTimezone: true }),
    /** Stripe will end the subscription (`cancel_at_period_end`, or a `cancel_at` date): nothing will be charged. */
    cancelScheduled: boolean().notNull().default(false),
    /** When Stripe will end it (`cancel_at`, or the period end for `cancel_at_period_end`); null while it renews. */
    cancelAt: timestamp({ withTimezone: true }),
    stripeCustomerId: text(),
    stripeSubscriptionId: text(),
    /** The sync ticket of the Stripe read this row was last written from (see stripeSyncTickets). */
    stripeSyncTicket: bigint({ mode: 'number' }),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('subscribers_stripe_customer_id_key').on(t.stripeCustomerId),
    // The trial reminder job's search: trials not yet reminded, by when they end.
    index('subscribers_trial_reminder_idx').on(t.trialEnd).where(sql`${t.status} = 'trialing' and ${t.trialReminderSentAt} is null`),
    uniqueIndex('subscribers_stripe_subscription_id_key').on(t.stripeSubscriptionId),
    check('subscribers_tier_check', sql`${t.tier} is null or ${inList(t.tier, PLAN_IDS)}`),
    check('subscribers_status_check', sql`${t.status} is null or ${inList(t.status, SUBSCRIPTION_STATUSES)}`),
    check('subscribers_source_check', sql`${t.source} is null or ${inList(t.source, SUBSCRIPTION_SOURCES)}`),
  ],
)

/**
 * Tickets taken before each read of a subscription from Stripe, in the order the reads start. A
 * read is written only if no read with a later ticket was written for the same subscription, so a
 * slow answer never overwrites a newer one (docs/decisions/030).
 */
export const stripeSyncTickets = pgSequence('stripe_sync_tickets')

export const WEBHOOK_PROVIDERS = ['stripe', 'vapi'] as const

/** Each provider event id is processed once (Stripe event ids; Vapi call id + message type). */
export const processedWebhookEvents = pgTable(
  'processed_webhook_events',
  {
    provider: text({ enum: WEBHOOK_PROVIDERS }).notNull(),
    eventId: text().notNull(),
    eventType: text().notNull(),
    processedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.provider, t.eventId] }),
    check('processed_webhook_events_provider_check', inList(t.provider, WEBHOOK_PROVIDERS)),
    index('processed_webhook_events_processed_at_idx').on(t.processedAt),
  ],
)

/**
 * The email addresses that have had the free trial, as SHA-256 digests of the lower-cased address
 * (docs/decisions/056). Written when a trial starts and when an account that had one is deleted,
 * so the same address signing up again starts paid. No user id, no address: nothing here leads
 * back to a person, only an address one already knows can be checked against it.
 */
export const trialClaims = pgTable('trial_claims', {
  emailDigest: text().primaryKey(),
  claimedAt: timestamp({ withTimezone: true }).notNull(),
})

export type Subscriber = typeof subscribers.$inferSelect
