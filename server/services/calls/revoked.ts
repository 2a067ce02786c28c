/**
 * When a person's consent to calls is revoked (a STOP text, or the calls switch turned off;
 * docs/decisions/045): in the revoking
 * transaction, every claim not dialled yet is skipped and every retry dropped, so no job and no
 * tick dials them; after it, the calls Vapi holds that have not been answered (scheduled, queued,
 * ringing) are deleted there, once at once and once more after the longest dial request (a dial on
 * its way during the revocation gets its Vapi id only when Vapi answers).
 */
import { and, eq, inArray, isNotNull, isNull, or } from 'drizzle-orm'
import type { DbExecutor } from '#server/db/client'
import { coachingCallEvents, coachingCalls } from '#server/db/schema'

/** The second look for calls to cancel after a revocation: past the longest dial request (15 s). */
export const REVOKED_RECHECK_MS = 30_000

/** The reason recorded on what a revocation stopped. */
export const CONSENT_REVOKED = 'consent'

/** In the caller's transaction: claims not dialled are skipped and retries dropped. Returns how many of each. */
export async function stopCallsOf(tx: DbExecutor, userIds: readonly string[], now: Date): Promise<{ claims: number; retries: number }> {
  if (userIds.length === 0) return { claims: 0, retries: 0 }
  const ids = [...userIds]
  const claims = await tx
    .update(coachingCalls)
    .set({ completionStatus: 'skipped', skipReason: CONSENT_REVOKED, dialLeaseUntil: null, updatedAt: now })
    .where(and(inArray(coachingCalls.userId, ids), inArray(coachingCalls.completionStatus, ['scheduled', 'dialling']), isNull(coachingCalls.vapiCallId)))
    .returning({ id: coachingCalls.id, userId: coachingCalls.userId })
  const retries = await tx
    .update(coachingCalls)
    .set({ retryAt: null, updatedAt: now })
    .where(and(inArray(coachingCalls.userId, ids), isNotNull(coachingCalls.retryAt)))
    .returning({ id: coachingCalls.id, userId: coachingCalls.userId })
  const events = [
    ...claims.map((call) => ({ callId: call.id, userId: call.userId, type: 'skipped', at: now, detail: { reason: CONSENT_REVOKED } })),
    ...retries.map((call) => ({ callId: call.id, userId: call.userId, type: 'not_retried', at: now, detail: { reason: CONSENT_REVOKED } })),
  ]
  if (events.length > 0) await tx.insert(coachingCallEvents).values(events)
  return { claims: claims.length, retries: retries.length }
}

/**
 * The person's calls Vapi may still place: not answered yet (scheduled, queued, ringing), or a claim
 * the revocation skipped whose dial reached Vapi after all (it has a Vapi id and never ended).
 */
export async function unansweredPlacedCalls(db: DbExecutor, userId: string): Promise<Array<{ id: string; vapiCallId: string }>> {
  const rows = await db
    .select({ id: coachingCalls.id, vapiCallId: coachingCalls.vapiCallId })
    .from(coachingCalls)
    .where(
      and(
        eq(coachingCalls.userId, userId),
        isNotNull(coachingCalls.vapiCallId),
        or(
          inArray(coachingCalls.completionStatus, ['scheduled', 'queued', 'ringing']),
          and(eq(coachingCalls.completionStatus, 'skipped'), eq(coachingCalls.skipReason, CONSENT_REVOKED), isNull(coachingCalls.endedAt)),
        ),
      ),
    )
  return rows.map((row) => ({ id: row.id, vapiCallId: row.vapiCallId! }))
}
