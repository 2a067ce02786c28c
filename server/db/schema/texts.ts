import { sql } from 'drizzle-orm'
import { check, date, index, integer, pgTable, primaryKey, smallint, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { inList } from './helpers'
import { coachingCalls } from './calls'
import { users } from './users'

/**
 * recap: after a completed call; missed_call: a call that did not reach the person; weekly_report:
 * the report's link; coach_message: an Elite member's coach wrote and the message is still unread;
 * session_reminder: a 1-on-1 session with the coach is tomorrow, or in an hour.
 */
export const TEXT_KINDS = ['recap', 'missed_call', 'weekly_report', 'coach_message', 'session_reminder'] as const
export type TextKind = (typeof TEXT_KINDS)[number]

/**
 * held: waiting for the person's 8 AM–9 PM window or for the next day under the daily cap;
 * sending: claimed by a sender, the provider request is on its way; sent: Twilio accepted it
 * (its sid is kept); logged: no Twilio configured, written to the log instead; delivered /
 * undelivered: the provider's status callback; failed: the provider refused it; skipped: not sent
 * at all (no consent, no number, too late to matter: skip_reason says which).
 */
export const TEXT_STATUSES = ['held', 'sending', 'sent', 'logged', 'delivered', 'undelivered', 'failed', 'skipped'] as const
export type TextStatus = (typeof TEXT_STATUSES)[number]
/** The statuses that count against the person's daily cap and the weekly footer (a text that went out, or is going). */
export const TEXT_OUT_STATUSES = ['sending', 'sent', 'logged', 'delivered', 'undelivered'] as const satisfies readonly TextStatus[]

/**
 * Every outbound text, from the moment something asks for it: its own content, the body as it left
 * (brand and footer added), where it is (TEXT_STATUSES), and the local date it counted against.
 * dedupe_key makes asking twice (a retried job, a second worker) one text.
 */
export const textMessages = pgTable(
  'text_messages',
  {
    id: uuid().primaryKey().defaultRandom(),
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    kind: text({ enum: TEXT_KINDS }).notNull(),
    /** e.g. recap:<call id>, missed_call:<call id>, weekly_report:<user id>:<week>. */
    dedupeKey: text().notNull(),
    callId: uuid().references(() => coachingCalls.id, { onDelete: 'set null' }),
    /** The message's own words, before the brand name and the opt-out footer are added. */
    content: text().notNull(),
    /** The body as sent (null until it is). */
    body: text(),
    /** E.164 number it went to (null until sent). */
    toNumber: text(),
    status: text({ enum: TEXT_STATUSES }).notNull(),
    /** A held text is due at this instant (the next 8 AM local, or the next day under the cap). */
    holdUntil: timestamp({ withTimezone: true }),
    /** The person's local date the text counted against (the daily cap and the weekly footer). */
    localDate: date({ mode: 'string' }),
    /** Twilio's message sid (SM…). */
    providerSid: text(),
    errorCode: integer(),
    skipReason: text(),
    segments: smallint(),
    attempts: smallint().notNull().default(0),
    /** A sender holds the text until then (a crashed sender's claim is taken over after it). */
    leaseUntil: timestamp({ withTimezone: true }),
    createdAt: timestamp({ withTimezone: true }).notNull(),
    sentAt: timestamp({ withTimezone: true }),
    updatedAt: timestamp({ withTimezone: true }).notNull(),
  },
  (t) => [
    uniqueIndex('text_messages_dedupe_key').on(t.dedupeKey),
    uniqueIndex('text_messages_provider_sid_key').on(t.providerSid),
    index('text_messages_user_local_date_idx').on(t.userId, t.localDate),
    // The release job finds held texts that are due.
    index('text_messages_held_idx')
      .on(t.holdUntil)
      .where(sql`${t.status} = 'held'`),
    check('text_messages_kind_check', inList(t.kind, TEXT_KINDS)),
    check('text_messages_status_check', inList(t.status, TEXT_STATUSES)),
  ],
)

/**
 * Inbound texts to our number, one row per Twilio MessageSid: a redelivered webhook finds the sid
 * taken and does nothing. keyword is the family the whole body matched (stop, start, help) or null.
 */
export const inboundTexts = pgTable(
  'inbound_texts',
  {
    messageSid: text().primaryKey(),
    fromNumber: text().notNull(),
    toNumber: text().notNull(),
    body: text().notNull(),
    keyword: text({ enum: ['stop', 'start', 'help'] }),
    /** How many accounts use the sender's number (0: an unknown number, ignored). */
    matchedUsers: integer().notNull(),
    /** What we answered (TwiML <Message>), if anything. */
    reply: text(),
    receivedAt: timestamp({ withTimezone: true }).notNull(),
  },
  (t) => [
    index('inbound_texts_from_idx').on(t.fromNumber, t.receivedAt),
    check('inbound_texts_keyword_check', sql`${t.keyword} is null or ${t.keyword} in ('stop', 'start', 'help')`),
  ],
)

/**
 * Every inbound text we have acted on, by its MessageSid alone (nothing that names a person, so it
 * outlives the account whose text it was): a redelivery, or the sweep of Twilio's log reading a
 * text again, is taken once, even when the text itself was never kept (a number no account uses)
 * or was deleted with its account. Kept 30 days (the nightly clean-up).
 */
export const inboundTextReceipts = pgTable('inbound_text_receipts', {
  messageSid: text().primaryKey(),
  receivedAt: timestamp({ withTimezone: true }).notNull(),
})

/**
 * How far the sweep of Twilio's message log has read the inbound texts to our number (one row per
 * number we receive on): every 10 minutes it reads what came since, so a STOP our webhook missed
 * (it was down) still stops what it must.
 */
export const inboundTextSweeps = pgTable('inbound_text_sweeps', {
  toNumber: text().primaryKey(),
  sweptUntil: timestamp({ withTimezone: true }).notNull(),
})

/**
 * The accounts an inbound text reached: those whose number it came from when it arrived
 * (docs/decisions/060). A text belongs to these accounts only, whatever number they have later:
 * the export and the deletion go by this table, never by an account's current number (which a
 * stranger could type at sign-up). Deleting an account deletes its rows here, and the text goes
 * with the last account that held it.
 */
export const inboundTextAccounts = pgTable(
  'inbound_text_accounts',
  {
    messageSid: text()
      .notNull()
      .references(() => inboundTexts.messageSid, { onDelete: 'cascade' }),
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.messageSid, t.userId] }), index('inbound_text_accounts_user_idx').on(t.userId)],
)

/**
 * Twilio's errors that say a number cannot take texts at all: 21211 not a valid number, 21614 not
 * a mobile number (both refused at once), 30004 blocked by the recipient or the carrier, 30005 a
 * number the carrier does not know, 30006 a landline or a carrier that cannot take texts (the last
 * three in a status callback, after Twilio had accepted the text).
 */
export const UNDELIVERABLE_CODES = [21211, 21614, 30004, 30005, 30006] as const

/**
 * A person's number that texts cannot reach (UNDELIVERABLE_CODES): no text goes to it again. It
 * concerns that number only: a new number on the account is tried afresh, and a START texted from
 * this one (which proves it takes texts) removes the row.
 */
export const textSuppressions = pgTable(
  'text_suppressions',
  {
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** E.164. */
    toNumber: text().notNull(),
    errorCode: integer().notNull(),
    /** The text Twilio could not deliver. */
    textId: uuid().references(() => textMessages.id, { onDelete: 'set null' }),
    createdAt: timestamp({ withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.toNumber] })],
)

export type TextMessage = typeof textMessages.$inferSelect
export type InboundText = typeof inboundTexts.$inferSelect
export type InboundTextAccount = typeof inboundTextAccounts.$inferSelect
export type InboundTextReceipt = typeof inboundTextReceipts.$inferSelect
export type TextSuppression = typeof textSuppressions.$inferSelect
