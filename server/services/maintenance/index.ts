/** Housekeeping the scheduled maintenance job runs: records nobody can use any more are deleted. */
import { and, isNotNull, lt, or, sql } from 'drizzle-orm'
import { SESSION_IDLE_MS } from '#server/auth/session'
import type { Db } from '#server/db/client'
import { contactChanges, emailTokens, inboundTextAccounts, inboundTextReceipts, inboundTexts, processedWebhookEvents, retainedBillingRecords, sessions } from '#server/db/schema'
import type { Clock } from '#server/lib/clock'

export { MAINTENANCE_JOBS, type MaintenanceJob } from './jobs'

const DAY_MS = 86_400_000
/** How long a processed webhook id is remembered (Stripe retries for up to three days). */
const WEBHOOK_EVENT_RETENTION_MS = 30 * DAY_MS
/** How long a used email token is kept after its use. */
const USED_TOKEN_RETENTION_MS = DAY_MS

type CleanupResult = {
  sessions: number
  emailTokens: number
  contactChanges: number
  webhookEvents: number
  inboundTextReceipts: number
  /** Inbound texts no account holds (two accounts that held one deleted at the same moment, each seeing the other's row). */
  unheldInboundTexts: number
  retainedBillingRecords: number
}

/**
 * Deletes expired sessions, spent or expired email tokens, email and phone changes never confirmed
 * in time, old webhook ids and inbound text receipts, inbound texts no account holds any more
 * (docs/decisions/060), and the billing records of deleted accounts past their retention
 * (docs/decisions/051), in one transaction. Idempotent.
 */
export async function deleteExpiredRecords(db: Db, now: Date): Promise<CleanupResult> {
  const idleCutoff = new Date(now.getTime() - SESSION_IDLE_MS)
  const usedCutoff = new Date(now.getTime() - USED_TOKEN_RETENTION_MS)
  const webhookCutoff = new Date(now.getTime() - WEBHOOK_EVENT_RETENTION_MS)
  return db.transaction(async (tx) => {
    const deadSessions = await tx
      .delete(sessions)
      .where(or(lt(sessions.expiresAt, now), lt(sessions.lastVerifiedAt, idleCutoff)))
      .returning({ id: sessions.id })
    const deadTokens = await tx
      .delete(emailTokens)
      .where(or(lt(emailTokens.expiresAt, now), and(isNotNull(emailTokens.usedAt), lt(emailTokens.usedAt, usedCutoff))))
      .returning({ id: emailTokens.id })
    const deadChanges = await tx.delete(contactChanges).where(lt(contactChanges.expiresAt, now)).returning({ id: contactChanges.id })
    const oldEvents = await tx
      .delete(processedWebhookEvents)
      .where(lt(processedWebhookEvents.processedAt, webhookCutoff))
      .returning({ id: processedWebhookEvents.eventId })
    const oldReceipts = await tx.delete(inboundTextReceipts).where(lt(inboundTextReceipts.receivedAt, webhookCutoff)).returning({ sid: inboundTextReceipts.messageSid })
    // A text is stored with the accounts it reached, in one transaction, so one with none left was
    // let go by every account that held it.
    const unheld = await tx
      .delete(inboundTexts)
      .where(sql`not exists (select 1 from ${inboundTextAccounts} where ${inboundTextAccounts.messageSid} = ${inboundTexts.messageSid})`)
      .returning({ sid: inboundTexts.messageSid })
    const retained = await tx
      .delete(retainedBillingRecords)
      .where(lt(retainedBillingRecords.retainUntil, now))
      .returning({ id: retainedBillingRecords.id })
    return {
      sessions: deadSessions.length,
      emailTokens: deadTokens.length,
      contactChanges: deadChanges.length,
      webhookEvents: oldEvents.length,
      inboundTextReceipts: oldReceipts.length,
      unheldInboundTexts: unheld.length,
      retainedBillingRecords: retained.length,
    }
  })
}

export function createMaintenance(deps: { db: Db; clock: Clock }) {
  return {
    deleteExpiredRecords: () => deleteExpiredRecords(deps.db, deps.clock.now()),
  }
}
