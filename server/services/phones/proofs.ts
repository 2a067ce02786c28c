/**
 * Proven numbers (docs/decisions/060): an account's number is proven once a START texted from it
 * reached us while it was the account's number (and no other account's), or once the person typed
 * the code we texted to it. Until then nothing is sent to it. One row per account, for the number
 * proven last: a new number is not proven by the old one's proof.
 */
import { and, eq, sql, type SQL } from 'drizzle-orm'
import type { DbExecutor } from '#server/db/client'
import { phoneProofs, type PhoneProofMethod } from '#server/db/schema'

type Proof = { userId: string; phoneNumber: string; method: PhoneProofMethod; messageSid?: string | null; at: Date }

/** Records that the account holds this number (replacing the proof of an earlier number). */
export async function recordProof(tx: DbExecutor, proof: Proof): Promise<void> {
  const values = { phoneNumber: proof.phoneNumber, method: proof.method, messageSid: proof.messageSid ?? null, provenAt: proof.at }
  await tx
    .insert(phoneProofs)
    .values({ userId: proof.userId, ...values })
    .onConflictDoUpdate({ target: phoneProofs.userId, set: values })
}

/** The account's proof of `phoneNumber` (ten digits), or null when that number is not proven. */
export async function proofOf(db: DbExecutor, userId: string, phoneNumber: string): Promise<{ method: PhoneProofMethod; at: Date } | null> {
  const [row] = await db
    .select({ method: phoneProofs.method, at: phoneProofs.provenAt })
    .from(phoneProofs)
    .where(and(eq(phoneProofs.userId, userId), eq(phoneProofs.phoneNumber, phoneNumber)))
    .limit(1)
  return row ?? null
}

/** In SQL: whether the account `userId` has proven the number in `digits` (ten digits). */
export const provenSql = (userId: SQL | unknown, digits: SQL | unknown): SQL<boolean> =>
  sql<boolean>`exists (select 1 from ${phoneProofs} where ${phoneProofs.userId} = ${userId} and ${phoneProofs.phoneNumber} = ${digits})`
