import { randomBytes } from 'node:crypto'
import type { Db } from '#server/db/client'
import { CONSENT_TEXT } from '#common/auth'
import type { ConsentChannel } from '#common/consent'
import { consentEvents, phoneProofs, profiles, users, type User } from '#server/db/schema'

let counter = 0

/**
 * Inserts a user (with a profile) straight into the database, with the sign-up's consent to calls
 * and, unless `proven: false`, their number proven theirs (as a START from it or the texted code
 * would: docs/decisions/060), so calls and texts can reach it.
 */
export async function insertUser(db: Db, overrides: Partial<typeof users.$inferInsert> = {}, options: { proven?: boolean } = {}): Promise<User> {
  counter += 1
  const now = new Date()
  const [user] = await db
    .insert(users)
    .values({
      email: `user${counter}-${randomBytes(3).toString('hex')}@example.com`,
      passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$placeholderplaceholder$placeholderplaceholderplaceholder',
      fullName: `Test User ${counter}`,
      phoneNumber: '2025551234',
      communicationConsentVersion: '2026-11-01',
      communicationConsentAt: now,
      termsAcceptedAt: now,
      ...overrides,
    })
    .returning()
  await db.insert(profiles).values({ id: user!.id, name: user!.fullName, phoneNumber: user!.phoneNumber })
  // As sign-up does: the consent checkbox is the ledger's grant of calls.
  await db.insert(consentEvents).values({ userId: user!.id, channel: 'calls', action: 'granted', source: 'sign_up', text: CONSENT_TEXT, at: user!.communicationConsentAt })
  if (options.proven !== false) await db.insert(phoneProofs).values({ userId: user!.id, phoneNumber: user!.phoneNumber, method: 'code', provenAt: user!.communicationConsentAt })
  return user!
}

/** Appends a consent-ledger row for a test person (as the settings switch would, with no request). */
export async function setConsent(db: Db, userId: string, channel: ConsentChannel, granted: boolean, at: Date): Promise<void> {
  await db.insert(consentEvents).values({ userId, channel, action: granted ? 'granted' : 'revoked', source: 'settings', text: `test: ${channel} ${granted ? 'on' : 'off'}`, at })
}

/** Records that the person proved `phoneNumber` theirs (as the code texted to it would: docs/decisions/060). */
export async function proveNumber(db: Db, userId: string, phoneNumber: string): Promise<void> {
  await db
    .insert(phoneProofs)
    .values({ userId, phoneNumber, method: 'code', provenAt: new Date() })
    .onConflictDoUpdate({ target: phoneProofs.userId, set: { phoneNumber, method: 'code' } })
}
