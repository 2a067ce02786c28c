/**
 * The do-not-contact list (docs/decisions/060): numbers that texted STOP. It belongs to the phone,
 * not to an account: every account that holds the number, now or later, gets no call and no text
 * while the number is on it, and only a START texted from that handset takes it off (the
 * account's switches cannot, nor can a new account with the number).
 */
import { eq, sql, type SQL } from 'drizzle-orm'
import type { DbExecutor } from '#server/db/client'
import { doNotContact, type DoNotContactSource } from '#server/db/schema'
import { numberDigest, numberDigestSql } from './numbers'

/** Puts a number on the list (the first STOP's record is kept). Returns whether it was not on it. */
export async function stopNumber(tx: DbExecutor, input: { number: string; source: DoNotContactSource; messageSid: string | null; at: Date }): Promise<boolean> {
  const rows = await tx
    .insert(doNotContact)
    .values({ numberDigest: numberDigest(input.number), source: input.source, messageSid: input.messageSid, createdAt: input.at })
    .onConflictDoNothing()
    .returning({ digest: doNotContact.numberDigest })
  return rows.length > 0
}

/** A START from the handset: the number comes off the list. Returns whether it was on it. */
export async function startNumber(tx: DbExecutor, number: string): Promise<boolean> {
  const rows = await tx.delete(doNotContact).where(eq(doNotContact.numberDigest, numberDigest(number))).returning({ digest: doNotContact.numberDigest })
  return rows.length > 0
}

/** Whether a number (ten digits or E.164) is on the list. */
export async function isStopped(db: DbExecutor, number: string): Promise<boolean> {
  const [row] = await db.select({ digest: doNotContact.numberDigest }).from(doNotContact).where(eq(doNotContact.numberDigest, numberDigest(number))).limit(1)
  return Boolean(row)
}

/** In SQL: whether the number in `digits` (ten digits; null is not stopped) is on the list. */
export const stoppedSql = (digits: SQL | unknown): SQL<boolean> =>
  sql<boolean>`exists (select 1 from ${doNotContact} where ${doNotContact.numberDigest} = ${numberDigestSql(digits)})`
