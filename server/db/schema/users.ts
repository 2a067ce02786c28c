import { sql } from 'drizzle-orm'
import { boolean, check, customType, index, pgTable, smallint, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { inList } from './helpers'

export const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({
  dataType: () => 'bytea',
  // postgres.js hands back a Buffer and PGlite a Uint8Array: both are Uint8Array.
  fromDriver: (value) => new Uint8Array(value),
  toDriver: (value) => Buffer.from(value),
})

const timestamps = {
  createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
}

/** An account: the credentials and the identity fields given at sign-up. */
export const users = pgTable(
  'users',
  {
    id: uuid().primaryKey().defaultRandom(),
    /** Trimmed and lower-cased before it is stored. */
    email: text().notNull(),
    passwordHash: text().notNull(),
    emailConfirmedAt: timestamp({ withTimezone: true }),
    fullName: text().notNull(),
    /** Ten digits, no formatting. */
    phoneNumber: text().notNull(),
    /** Version of the consent text the user agreed to, and when. */
    communicationConsentVersion: text().notNull(),
    communicationConsentAt: timestamp({ withTimezone: true }).notNull(),
    termsAcceptedAt: timestamp({ withTimezone: true }).notNull(),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('users_email_key').on(t.email),
    // An inbound text is matched to its sender's accounts by number.
    index('users_phone_number_idx').on(t.phoneNumber),
    check('users_email_lowercase', sql`${t.email} = lower(btrim(${t.email}))`),
    check('users_phone_digits', sql`${t.phoneNumber} ~ '^[0-9]{10}$'`),
  ],
)

/**
 * Sessions as the Lucia sessions guide designs them: the cookie carries `<id>.<secret>`;
 * only a SHA-256 hash of the secret is stored.
 */
export const sessions = pgTable(
  'sessions',
  {
    id: text().primaryKey(),
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    secretHash: bytea().notNull(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    /** Bumped at most once an hour; idle expiry counts from here. */
    lastVerifiedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    /** Absolute lifetime cap. */
    expiresAt: timestamp({ withTimezone: true }).notNull(),
    /**
     * When the session was last used, to within SESSION_SEEN_MS (written at most that often): the
     * account page's "last seen". Idle expiry still counts from last_verified_at.
     */
    lastSeenAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    /** The browser's User-Agent at sign-in (at most 300 characters): the account page names the browser and OS from it. */
    userAgent: text(),
    ip: text(),
    /**
     * Whether the session passed the code of two-factor sign-in (docs/decisions/072). A session
     * begins at the password; while its user has two-factor sign-in on and this is false, only the
     * code step works.
     */
    twoFactorVerified: boolean().notNull().default(false),
  },
  (t) => [index('sessions_user_id_idx').on(t.userId), index('sessions_expires_at_idx').on(t.expiresAt)],
)

/** invitation: a staff account's first password (`npm run staff:add`), set as a reset's is. */
export const EMAIL_TOKEN_PURPOSES = ['confirm_email', 'reset_password', 'invitation'] as const

/** Single-use tokens sent by email; only their hash is stored. */
export const emailTokens = pgTable(
  'email_tokens',
  {
    id: uuid().primaryKey().defaultRandom(),
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    purpose: text({ enum: EMAIL_TOKEN_PURPOSES }).notNull(),
    tokenHash: bytea().notNull(),
    expiresAt: timestamp({ withTimezone: true }).notNull(),
    usedAt: timestamp({ withTimezone: true }),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('email_tokens_token_hash_key').on(t.tokenHash),
    index('email_tokens_user_purpose_idx').on(t.userId, t.purpose, t.createdAt),
    check('email_tokens_purpose_check', inList(t.purpose, EMAIL_TOKEN_PURPOSES)),
  ],
)

/** email and phone: a change waiting for its link or code; phone_proof: a code texted to the account's own number, to prove it (docs/decisions/060). */
export const CONTACT_CHANGE_KINDS = ['email', 'phone', 'phone_proof'] as const
export type ContactChangeKind = (typeof CONTACT_CHANGE_KINDS)[number]

/**
 * A change of the account's email or phone number waiting for its confirmation (docs/decisions/050):
 * at most one per user and kind (a new request replaces it). The email's link token (32 random
 * bytes) or the phone's 6-digit code is stored only as its SHA-256; the email's is null until the
 * send-email job has made it. `attempts` counts wrong codes. Deleted when confirmed or cancelled,
 * and by the nightly clean-up once expired.
 */
export const contactChanges = pgTable(
  'contact_changes',
  {
    id: uuid().primaryKey().defaultRandom(),
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    kind: text({ enum: CONTACT_CHANGE_KINDS }).notNull(),
    /** The new address (trimmed, lower-cased) or the new number (ten digits). */
    newValue: text().notNull(),
    secretHash: bytea(),
    attempts: smallint().notNull().default(0),
    expiresAt: timestamp({ withTimezone: true }).notNull(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('contact_changes_user_kind_key').on(t.userId, t.kind),
    uniqueIndex('contact_changes_secret_hash_key').on(t.secretHash),
    index('contact_changes_expires_at_idx').on(t.expiresAt),
    check('contact_changes_kind_check', inList(t.kind, CONTACT_CHANGE_KINDS)),
  ],
)

export type User = typeof users.$inferSelect
export type NewUser = typeof users.$inferInsert
export type Session = typeof sessions.$inferSelect
export type EmailToken = typeof emailTokens.$inferSelect
export type ContactChange = typeof contactChanges.$inferSelect

export { timestamps }
