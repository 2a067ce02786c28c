/**
 * The report email's one-click unsubscribe (RFC 8058). The token in the link is `<report id>.<secret>`;
 * the report's row keeps the SHA-256 of the secret, compared in constant time. Honouring it needs
 * no session: it revokes the person's report_emails consent in the ledger (source
 * `email_unsubscribe`, with the request's IP and user agent and the words that made it), once.
 */
import { eq } from 'drizzle-orm'
import { ONE_CLICK_CONSENT_TEXT, UNSUBSCRIBE_BUTTON_TEXT, type UnsubscribeResponse } from '#common/reports'
import { isUuid } from '#common/uuid'
import { secretMatches } from '#server/auth/tokens'
import type { Db } from '#server/db/client'
import { users, weeklyReports } from '#server/db/schema'
import { AppError } from '#server/lib/app-error'
import { getConsentState, recordConsent, type ConsentRequestMeta } from '#server/services/consent'

const invalid = () => new AppError('INVALID_TOKEN', 'This unsubscribe link is not valid.', { field: 'token' })

/** The report a token belongs to, or null when it is not a valid one. */
async function reportOfToken(db: Db, token: string) {
  const dot = token.indexOf('.')
  const id = token.slice(0, dot)
  const secret = token.slice(dot + 1)
  if (dot < 0 || !isUuid(id) || !/^[a-z2-7]{16,64}$/.test(secret)) return null
  const [report] = await db
    .select({ id: weeklyReports.id, userId: weeklyReports.userId, weekEnding: weeklyReports.weekEnding, hash: weeklyReports.unsubscribeTokenHash })
    .from(weeklyReports)
    .where(eq(weeklyReports.id, id))
    .limit(1)
  if (!report?.hash || !secretMatches(secret, report.hash)) return null
  return report
}

export async function unsubscribe(
  db: Db,
  token: string | undefined,
  request: ConsentRequestMeta & { oneClick: boolean },
  now: Date,
): Promise<UnsubscribeResponse> {
  if (!token) throw invalid()
  const report = await reportOfToken(db, token)
  if (!report) throw invalid()
  return db.transaction(async (tx) => {
    // One change at a time per person: a second click finds it done.
    await tx.select({ id: users.id }).from(users).where(eq(users.id, report.userId)).for('update')
    const consent = await getConsentState(tx, report.userId)
    if (!consent.report_emails.granted) return { unsubscribed: true as const, changed: false }
    await recordConsent(tx, {
      userId: report.userId,
      channel: 'report_emails',
      action: 'revoked',
      source: 'email_unsubscribe',
      text: request.oneClick ? ONE_CLICK_CONSENT_TEXT : UNSUBSCRIBE_BUTTON_TEXT,
      at: now,
      ip: request.ip,
      userAgent: request.userAgent,
      detail: { reportId: report.id, weekEnding: report.weekEnding, oneClick: request.oneClick },
    })
    return { unsubscribed: true as const, changed: true }
  })
}
