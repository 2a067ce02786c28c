import { sql } from 'drizzle-orm'
import { bigint, boolean, check, index, jsonb, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core'
import { CONSENT_ACTIONS, CONSENT_CHANNELS, CONSENT_SOURCES } from '#common/consent'
import { inList } from './helpers'
import { users } from './users'

/**
 * The consent ledger: every grant and revocation of calls, texts and report emails, append-only
 * (a trigger in migration 0007 refuses UPDATE, and DELETE unless it cascades from the user's
 * deletion). The latest row (by append order, the id) per (user, channel) is the truth;
 * consent_states mirrors it.
 */
export const consentEvents = pgTable(
  'consent_events',
  {
    id: bigint({ mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    channel: text({ enum: CONSENT_CHANNELS }).notNull(),
    action: text({ enum: CONSENT_ACTIONS }).notNull(),
    source: text({ enum: CONSENT_SOURCES }).notNull(),
    /** The exact words the person was shown (a form, a switch) or sent (a text's body). */
    text: text().notNull(),
    at: timestamp({ withTimezone: true }).notNull(),
    /** The request's client IP and user agent, for decisions made in the app or by email link. */
    ip: text(),
    userAgent: text(),
    /** The inbound text's MessageSid, for a keyword (or the refused text's sid, for carrier_opt_out). */
    messageSid: text(),
    /** Anything else worth keeping: { backfilled: true } for rows migration 0007 derived, error codes. */
    detail: jsonb().$type<Record<string, unknown>>(),
  },
  (t) => [
    index('consent_events_user_channel_idx').on(t.userId, t.channel, t.id),
    index('consent_events_message_sid_idx')
      .on(t.messageSid)
      .where(sql`${t.messageSid} is not null`),
    check('consent_events_channel_check', inList(t.channel, CONSENT_CHANNELS)),
    check('consent_events_action_check', inList(t.action, CONSENT_ACTIONS)),
    check('consent_events_source_check', inList(t.source, CONSENT_SOURCES)),
    check('consent_events_inbound_sid', sql`${t.source} <> 'inbound_text' or ${t.messageSid} is not null`),
  ],
)

/**
 * The latest ledger row per (user, channel), kept by an AFTER INSERT trigger on consent_events in
 * the same transaction (never written by the application), so "may we call / text this person"
 * is one primary-key lookup that cannot disagree with the ledger.
 */
export const consentStates = pgTable(
  'consent_states',
  {
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    channel: text({ enum: CONSENT_CHANNELS }).notNull(),
    granted: boolean().notNull(),
    eventId: bigint({ mode: 'number' }).notNull(),
    at: timestamp({ withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.channel] }), check('consent_states_channel_check', inList(t.channel, CONSENT_CHANNELS))],
)

export type ConsentEvent = typeof consentEvents.$inferSelect
export type ConsentState = typeof consentStates.$inferSelect
