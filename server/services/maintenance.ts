import { and, isNotNull, lt, or } from 'drizzle-orm'
import type { Db } from '../db/client'
import { emailTokens, processedWebhookEvents, sessions } from '../db/schema'

/** How long a processed webhook id is remembered (Stripe retries for up to three days). */
const WEBHOOK_EVENT_RETENTION_DAYS = 30
/** Sessions idle this long are dead (the accounts rules). */
const SESSION_IDLE_DAYS = 30

export type CleanupResult = { sessions: number; emailTokens: number; webhookEvents: number }

/** Deletes expired sessions, spent or expired email tokens and old webhook ids. Idempotent. */
export async function deleteExpiredRecords(db: Db, now: Date = new Date()): Promise<CleanupResult> {
  const idleCutoff = new Date(now.getTime() - SESSION_IDLE_DAYS * 86_400_000)
  const usedCutoff = new Date(now.getTime() - 86_400_000)
  const webhookCutoff = new Date(now.getTime() - WEBHOOK_EVENT_RETENTION_DAYS * 86_400_000)
  return db.transaction(async (tx) => {
    const deadSessions = await tx
      .delete(sessions)
      .where(or(lt(sessions.expiresAt, now), lt(sessions.lastVerifiedAt, idleCutoff)))
      .returning({ id: sessions.id })
    const deadTokens = await tx
      .delete(emailTokens)
      .where(or(lt(emailTokens.expiresAt, now), and(isNotNull(emailTokens.usedAt), lt(emailTokens.usedAt, usedCutoff))))
      .returning({ id: emailTokens.id })
    const oldEvents = await tx
      .delete(processedWebhookEvents)
      .where(lt(processedWebhookEvents.processedAt, webhookCutoff))
      .returning({ id: processedWebhookEvents.eventId })
    return { sessions: deadSessions.length, emailTokens: deadTokens.length, webhookEvents: oldEvents.length }
  })
}
