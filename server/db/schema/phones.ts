import { sql } from 'drizzle-orm'
import { check, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core'
import { inList } from './helpers'
import { users } from './users'

/** How a number was proven: a text signed by Twilio came from it (START), or the person typed the code texted to it. */
export const PHONE_PROOF_METHODS = ['inbound_text', 'code'] as const
export type PhoneProofMethod = (typeof PHONE_PROOF_METHODS)[number]

/**
 * Which number an account has proven it holds (docs/decisions/060): one row per account, for the
 * number proven last. The account's number is proven while it equals `phone_number`; a new number
 * is not, until it is proven in turn (the phone change's code proves the new one). Nothing is
 * sent to a number that is not proven: no call, no text.
 */
export const phoneProofs = pgTable(
  'phone_proofs',
  {
    userId: uuid()
      .primaryKey()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** Ten digits, as the account stores its number. */
    phoneNumber: text().notNull(),
    method: text({ enum: PHONE_PROOF_METHODS }).notNull(),
    /** The inbound text that proved it (method inbound_text). */
    messageSid: text(),
    provenAt: timestamp({ withTimezone: true }).notNull(),
  },
  (t) => [check('phone_proofs_method_check', inList(t.method, PHONE_PROOF_METHODS)), check('phone_proofs_phone_digits', sql`${t.phoneNumber} ~ '^[0-9]{10}$'`)],
)

/** inbound_text: a STOP (keyword or words) texted from the number; carrier_opt_out: Twilio refused a text to it with 21610 (a STOP we did not see). */
export const DO_NOT_CONTACT_SOURCES = ['inbound_text', 'carrier_opt_out'] as const
export type DoNotContactSource = (typeof DO_NOT_CONTACT_SOURCES)[number]

/**
 * Numbers that texted STOP (docs/decisions/060): no call and no text goes to them, whichever
 * account holds them now or later, until a START comes from the same handset. Kept by a digest of
 * the number (SHA-256 of its E.164 form, hex) and nothing that names a person, so the list outlives
 * the accounts that used the number: deleting an account and signing up again does not lift it.
 */
export const doNotContact = pgTable(
  'do_not_contact',
  {
    numberDigest: text().primaryKey(),
    source: text({ enum: DO_NOT_CONTACT_SOURCES }).notNull(),
    /** The STOP's MessageSid (or the refused text's sid for carrier_opt_out). */
    messageSid: text(),
    createdAt: timestamp({ withTimezone: true }).notNull(),
  },
  (t) => [check('do_not_contact_source_check', inList(t.source, DO_NOT_CONTACT_SOURCES))],
)

export type PhoneProof = typeof phoneProofs.$inferSelect
export type DoNotContactEntry = typeof doNotContact.$inferSelect
