/**
 * What became of a text after Twilio accepted it (its status callback, POST
 * /api/webhooks/sms/status), and what a number's errors say about texting it again
 * (docs/decisions/055):
 * - the text's row moves from sent to delivered, undelivered or failed once; a later callback, a
 *   repeated one or one that arrives out of order changes nothing, but for a late "delivered",
 *   which wins over "undelivered" or "failed" (and lifts the suppression that text caused);
 * - 21610 (the person opted out with the carrier while we did not know) puts the number on the
 *   do-not-contact list and is a revocation of texts in the consent ledger, as when Twilio refuses
 *   a text with it at once;
 * - a number that cannot take texts (UNDELIVERABLE_CODES) is suppressed for that person: no text
 *   goes to it again until their number changes or a START comes from it.
 */
import { and, eq, inArray, isNull, or } from 'drizzle-orm'
import type { Db, DbExecutor } from '#server/db/client'
import { textMessages, textSuppressions, UNDELIVERABLE_CODES, type TextStatus } from '#server/db/schema'
import { hasConsent, recordConsent } from '#server/services/consent'
import { stopNumber } from '#server/services/phones'

/** Twilio's final statuses, as the text's own (the others, queued to sent, leave it 'sent'). */
const FINAL: Record<string, Extract<TextStatus, 'delivered' | 'undelivered' | 'failed'>> = {
  delivered: 'delivered',
  read: 'delivered',
  partially_delivered: 'delivered',
  undelivered: 'undelivered',
  failed: 'failed',
  canceled: 'failed',
}

/** How the sender marks a text whose answer from Twilio it never got (Twilio may have it). */
export const UNANSWERED = 'unknown:'

export const isUndeliverable = (code: number | null | undefined): code is (typeof UNDELIVERABLE_CODES)[number] =>
  typeof code === 'number' && (UNDELIVERABLE_CODES as readonly number[]).includes(code)

/** A 21610 from Twilio: the person opted out with the carrier; the ledger says so (once). */
export async function recordCarrierOptOut(tx: DbExecutor, input: { userId: string; to: string; textId: string; sid?: string | null; message: string; at: Date }): Promise<void> {
  // A STOP we did not see (our webhook was down): the number goes on the do-not-contact list too.
  await stopNumber(tx, { number: input.to, source: 'carrier_opt_out', messageSid: input.sid ?? null, at: input.at })
  if (!(await hasConsent(tx, input.userId, 'texts'))) return
  await recordConsent(tx, {
    userId: input.userId,
    channel: 'texts',
    action: 'revoked',
    source: 'carrier_opt_out',
    text: `Twilio refused a text to ${input.to}: ${input.message}`.slice(0, 500),
    at: input.at,
    detail: { errorCode: 21610, textId: input.textId },
  })
}

/** The number stops getting texts from us (the first error that said so is kept). */
export async function suppressNumber(tx: DbExecutor, input: { userId: string; to: string; errorCode: number; textId: string; at: Date }): Promise<void> {
  await tx
    .insert(textSuppressions)
    .values({ userId: input.userId, toNumber: input.to, errorCode: input.errorCode, textId: input.textId, createdAt: input.at })
    .onConflictDoNothing()
}

export async function isSuppressed(tx: DbExecutor, userId: string, to: string): Promise<boolean> {
  const [row] = await tx
    .select({ code: textSuppressions.errorCode })
    .from(textSuppressions)
    .where(and(eq(textSuppressions.userId, userId), eq(textSuppressions.toNumber, to)))
    .limit(1)
  return Boolean(row)
}

/** A START from the number proves it takes texts: its suppression ends for these accounts. */
export async function liftSuppressions(tx: DbExecutor, userIds: readonly string[], from: string): Promise<void> {
  if (userIds.length === 0) return
  await tx.delete(textSuppressions).where(and(inArray(textSuppressions.userId, [...userIds]), eq(textSuppressions.toNumber, from)))
}

/** `textId`: our text's id, from the StatusCallback URL we gave (signed with it). */
type StatusCallback = { messageSid: string; status: string; errorCode: number | null; errorMessage: string | null; textId?: string | undefined }
export type StatusOutcome = 'recorded' | 'in_progress' | 'already_final' | 'unknown_message'

/**
 * One status callback, in one transaction with what it causes. The text is found by its sid, or,
 * for a callback that comes before the sender recorded Twilio's answer (the row still 'sending',
 * no sid yet) or after it gave up on that answer (failed, 'unknown: ...'), by the text id in the
 * callback's URL: the callback is then the first word of what became of it.
 */
export async function recordDeliveryStatus(db: Db, callback: StatusCallback, now: Date): Promise<StatusOutcome> {
  const final = FINAL[callback.status]
  return db.transaction(async (tx) => {
    const bySid = eq(textMessages.providerSid, callback.messageSid)
    const [text] = await tx
      .select({ id: textMessages.id, userId: textMessages.userId, status: textMessages.status, to: textMessages.toNumber, providerSid: textMessages.providerSid, skipReason: textMessages.skipReason })
      .from(textMessages)
      .where(callback.textId ? or(bySid, and(eq(textMessages.id, callback.textId), isNull(textMessages.providerSid))) : bySid)
      .limit(1)
      .for('update')
    if (!text) return 'unknown_message'
    // Before the sender's record of Twilio's answer, or after it gave up waiting for it.
    const unanswered = text.status === 'sending' || (text.status === 'failed' && (text.skipReason ?? '').startsWith(UNANSWERED))
    if (!unanswered && final === 'delivered' && (text.status === 'undelivered' || text.status === 'failed')) {
      // The handset did get it after all (a carrier's late receipt): the best news wins, and a
      // suppression that text caused goes (a 21610's revocation stays: consent is the person's).
      await tx.update(textMessages).set({ status: 'delivered', errorCode: null, updatedAt: now }).where(eq(textMessages.id, text.id))
      await tx.delete(textSuppressions).where(eq(textSuppressions.textId, text.id))
      return 'recorded'
    }
    if (!unanswered && text.status !== 'sent') return 'already_final'
    if (!final) {
      if (unanswered && !text.providerSid) await tx.update(textMessages).set({ providerSid: callback.messageSid, updatedAt: now }).where(eq(textMessages.id, text.id))
      return 'in_progress'
    }
    await tx
      .update(textMessages)
      .set({
        status: final,
        errorCode: final === 'delivered' ? null : callback.errorCode,
        providerSid: callback.messageSid,
        ...(unanswered ? { skipReason: null } : {}),
        updatedAt: now,
      })
      .where(eq(textMessages.id, text.id))
    if (final !== 'delivered' && text.to) await consequences(tx, { userId: text.userId, to: text.to, textId: text.id }, callback, now)
    return 'recorded'
  })
}

/** What an error says beyond the text: 21610 a revocation, a number that cannot take texts none again. */
async function consequences(tx: DbExecutor, text: { userId: string; to: string; textId: string }, callback: StatusCallback, now: Date): Promise<void> {
  if (callback.errorCode === 21610) {
    await recordCarrierOptOut(tx, { ...text, sid: callback.messageSid, message: callback.errorMessage ?? 'Attempt to send to unsubscribed recipient', at: now })
  }
  if (isUndeliverable(callback.errorCode)) await suppressNumber(tx, { ...text, errorCode: callback.errorCode, at: now })
}
