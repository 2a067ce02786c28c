/**
 * What the diagnostics page shows of the daily calls: whether they can be placed here, and the
 * failures on our side (Vapi account, assistant, phone number) of the last day, counted by reason
 * across all members (no one's data but counts), the parked webhook messages (their type, times,
 * failures and last error, never their content), plus the signed-in person's own latest call.
 */
import { and, desc, eq, gte, isNotNull, isNull, max, or, sql, count } from 'drizzle-orm'
import type { CallsDiagnosticsResponse } from '#common/calls'
import type { DbExecutor } from '#server/db/client'
import { coachingCalls, vapiWebhookEvents } from '#server/db/schema'

const DAY_MS = 86_400_000
/** Parked webhook messages listed (the count covers them all). */
const PARKED_LISTED = 5

/** Ended reasons that mean our side failed: Vapi refused the dial, never confirmed it, or could not start the call. */
const OUR_SIDE = or(
  sql`${coachingCalls.endedReason} like 'call.start.error-%'`,
  sql`${coachingCalls.endedReason} like 'vapi-refused-%'`,
  sql`${coachingCalls.endedReason} in ('assistant-not-found', 'assistant-not-valid', 'vapi-unconfirmed', 'dial-abandoned', 'call-not-found', 'call-never-ended')`,
)

export async function callsDiagnostics(
  db: DbExecutor,
  userId: string,
  now: Date,
  settings: Pick<CallsDiagnosticsResponse, 'configured' | 'webhookUrl' | 'webhookAuth'>,
): Promise<CallsDiagnosticsResponse> {
  const problems = await db
    .select({ reason: coachingCalls.endedReason, count: count(), lastAt: max(coachingCalls.endedAt) })
    .from(coachingCalls)
    .where(and(OUR_SIDE, gte(coachingCalls.endedAt, new Date(now.getTime() - DAY_MS))))
    .groupBy(coachingCalls.endedReason)
    .orderBy(desc(count()))
    .limit(20)
  const [last] = await db
    .select({ id: coachingCalls.id, callDate: coachingCalls.callDate, completionStatus: coachingCalls.completionStatus, endedReason: coachingCalls.endedReason })
    .from(coachingCalls)
    .where(eq(coachingCalls.userId, userId))
    .orderBy(desc(coachingCalls.callDate))
    .limit(1)
  const parkedMessages = await parkedEvents(db, PARKED_LISTED)
  return {
    ...settings,
    parkedMessages: { count: parkedMessages.count, latest: parkedMessages.latest },
    problems: problems.map((row) => ({ reason: row.reason ?? 'unknown', count: Number(row.count), lastAt: (row.lastAt ?? now).toISOString() })),
    lastCall: last ? { ...last, callDate: last.callDate.toISOString() } : null,
  }
}

// A parked message is never applied: `processed_at is null` keeps the reads on the pending messages' index.
const PARKED = and(isNull(vapiWebhookEvents.processedAt), isNotNull(vapiWebhookEvents.deadAt))

/** Webhook messages parked after too many failed applications (docs/decisions/071): they wait for an operator. */
export async function countParkedEvents(db: DbExecutor): Promise<number> {
  const [row] = await db.select({ count: count() }).from(vapiWebhookEvents).where(PARKED)
  return Number(row?.count ?? 0)
}

/** Puts a parked webhook message back to be applied, its failures forgotten; false when it is not parked. */
export async function unparkEvent(db: DbExecutor, id: number): Promise<boolean> {
  const rows = await db
    .update(vapiWebhookEvents)
    .set({ deadAt: null, attempts: 0, lastError: null })
    .where(and(eq(vapiWebhookEvents.id, id), PARKED))
    .returning({ id: vapiWebhookEvents.id })
  return rows.length > 0
}

/** How many webhook messages are parked, and the latest `limit` of them (the diagnostics page, the operator's view). */
export async function parkedEvents(db: DbExecutor, limit: number) {
  const [count, latest] = await Promise.all([
    countParkedEvents(db),
    db
      .select({
        id: vapiWebhookEvents.id,
        type: vapiWebhookEvents.type,
        receivedAt: vapiWebhookEvents.receivedAt,
        parkedAt: vapiWebhookEvents.deadAt,
        attempts: vapiWebhookEvents.attempts,
        lastError: vapiWebhookEvents.lastError,
      })
      .from(vapiWebhookEvents)
      .where(PARKED)
      .orderBy(desc(vapiWebhookEvents.deadAt), desc(vapiWebhookEvents.id))
      .limit(limit),
  ])
  // A parked row always has its dead_at (PARKED); received_at stands in only for the type's sake.
  return { count, latest: latest.map((row) => ({ ...row, receivedAt: row.receivedAt.toISOString(), parkedAt: (row.parkedAt ?? row.receivedAt).toISOString() })) }
}
