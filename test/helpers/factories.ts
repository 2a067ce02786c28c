import { randomBytes } from 'node:crypto'
import type { Db } from '#server/db/client'
import { profiles, users, type User } from '#server/db/schema'

let counter = 0

/** Inserts a user (with a profile) straight into the database. */
export async function insertUser(db: Db, overrides: Partial<typeof users.$inferInsert> = {}): Promise<User> {
  counter += 1
  const now = new Date()
  const [user] = await db
    .insert(users)
    .values({
      email: `user${counter}-${randomBytes(3).toString('hex')}@example.com`,
      passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$placeholderplaceholder$placeholderplaceholderplaceholder',
      fullName: `Test User ${counter}`,
      phoneNumber: '5551234567',
      communicationConsentVersion: '2026-11-01',
      communicationConsentAt: now,
      termsAcceptedAt: now,
      ...overrides,
    })
    .returning()
  await db.insert(profiles).values({ id: user!.id, name: user!.fullName, phoneNumber: user!.phoneNumber })
  return user!
}
