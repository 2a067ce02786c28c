/**
 * A report's delivery: the email (only with report_emails consent) and the text with its link
 * (only with texts consent, through the texts service). Each is claimed on the report's row before
 * it goes (pending → sending / requested), so a second job, worker or retry never sends it twice.
 * A send that fails gives its claim back and the job's retry tries again; a sender lost in the
 * middle of a send leaves its claim, which the tick marks failed after a while rather than risk a
 * second email (at most once).
 */
import { and, eq } from 'drizzle-orm'
import type { Logger } from 'pino'
import { hashSecret, randomToken } from '#server/auth/tokens'
import type { Db } from '#server/db/client'
import { profiles, users, weeklyReports, type WeeklyReport } from '#server/db/schema'
import type { Mailer } from '#server/integrations/mailer'
import { getConsentState } from '#server/services/consent'
import { reportEmail, reportText } from './email'

/**
 * The narrow part of the texts service the reports use: ask for one text to a person. The texts
 * service checks the texts consent, holds a text to the person's 8 AM–9 PM window and the daily
 * cap, adds the brand name and the opt-out footer, and sends each dedupe key once.
 */
export type ReportTexts = {
  request(input: { userId: string; kind: 'weekly_report'; dedupeKey: string; content: string }): Promise<unknown>
}

type DeliveryDeps = { db: Db; log: Logger; mailer: Mailer; appUrl: string; texts: ReportTexts | undefined }

export type DeliveryResult = { email: WeeklyReport['emailStatus'] | 'taken'; text: WeeklyReport['textStatus'] | 'taken' }

/** The report's page in the app. */
const reportUrl = (appUrl: string, weekEnding: string) => `${appUrl}/reports/${weekEnding}`

/** The one-click token: `<report id>.<secret>`; the row keeps only the secret's SHA-256. */
function newUnsubscribeToken(reportId: string): { token: string; hash: Uint8Array } {
  const secret = randomToken(20)
  return { token: `${reportId}.${secret}`, hash: hashSecret(secret) }
}

export async function deliverReport(deps: DeliveryDeps, reportId: string, now: () => Date): Promise<DeliveryResult | null> {
  const { db, log } = deps
  const [row] = await db
    .select({ report: weeklyReports, email: users.email, fullName: users.fullName, name: profiles.name })
    .from(weeklyReports)
    .innerJoin(users, eq(users.id, weeklyReports.userId))
    .leftJoin(profiles, eq(profiles.id, weeklyReports.userId))
    .where(eq(weeklyReports.id, reportId))
    .limit(1)
  if (!row) return null
  const { report } = row
  if (!report.content || !report.generatedAt) throw new Error(`weekly report ${reportId} has no figures yet`)
  const consent = await getConsentState(db, report.userId)
  const link = reportUrl(deps.appUrl, report.weekEnding)
  const result: DeliveryResult = { email: report.emailStatus, text: report.textStatus }
  const mine = eq(weeklyReports.id, report.id)

  // The email.
  if (report.emailStatus === 'pending') {
    if (!consent.report_emails.granted) {
      await db.update(weeklyReports).set({ emailStatus: 'skipped', emailSkipReason: 'no_consent', updatedAt: now() }).where(and(mine, eq(weeklyReports.emailStatus, 'pending')))
      result.email = 'skipped'
    } else {
      const claimedAt = now()
      const { token, hash } = newUnsubscribeToken(report.id)
      const [claimed] = await db
        .update(weeklyReports)
        .set({ emailStatus: 'sending', emailClaimedAt: claimedAt, unsubscribeTokenHash: hash, updatedAt: claimedAt })
        .where(and(mine, eq(weeklyReports.emailStatus, 'pending')))
        .returning({ id: weeklyReports.id })
      if (!claimed) {
        result.email = 'taken'
      } else {
        const firstName = (row.name ?? row.fullName).trim().split(/\s+/)[0] ?? ''
        try {
          await deps.mailer.send(
            reportEmail({
              to: row.email,
              firstName,
              weekEnding: report.weekEnding,
              content: report.content,
              reportUrl: link,
              oneClickUrl: `${deps.appUrl}/api/reports/unsubscribe?token=${token}`,
              unsubscribePageUrl: `${deps.appUrl}/unsubscribe#token=${token}`,
            }),
          )
        } catch (error) {
          // Given back: the job's retry claims it again (with a new token).
          await db
            .update(weeklyReports)
            .set({ emailStatus: 'pending', emailClaimedAt: null, unsubscribeTokenHash: null, updatedAt: now() })
            .where(and(mine, eq(weeklyReports.emailStatus, 'sending'), eq(weeklyReports.emailClaimedAt, claimedAt)))
          throw error
        }
        await db.update(weeklyReports).set({ emailStatus: 'sent', emailSentAt: now(), updatedAt: now() }).where(and(mine, eq(weeklyReports.emailStatus, 'sending')))
        result.email = 'sent'
      }
    }
  }

  // The text with the link.
  if (report.textStatus === 'pending') {
    const skip = !consent.texts.granted ? 'no_consent' : !deps.texts ? 'texts_not_available' : null
    if (skip) {
      await db.update(weeklyReports).set({ textStatus: 'skipped', textSkipReason: skip, updatedAt: now() }).where(and(mine, eq(weeklyReports.textStatus, 'pending')))
      result.text = 'skipped'
    } else {
      const requestedAt = now()
      const [claimed] = await db
        .update(weeklyReports)
        .set({ textStatus: 'requested', textRequestedAt: requestedAt, updatedAt: requestedAt })
        .where(and(mine, eq(weeklyReports.textStatus, 'pending')))
        .returning({ id: weeklyReports.id })
      if (!claimed) {
        result.text = 'taken'
      } else {
        try {
          await deps.texts!.request({
            userId: report.userId,
            kind: 'weekly_report',
            dedupeKey: `weekly_report:${report.userId}:${report.weekEnding}`,
            content: reportText({ weekEnding: report.weekEnding, content: report.content, reportUrl: link }),
          })
          result.text = 'requested'
        } catch (error) {
          log.warn({ err: error, reportId }, 'weekly report: the text could not be handed to the texts service; the job tries again')
          await db
            .update(weeklyReports)
            .set({ textStatus: 'pending', textRequestedAt: null, updatedAt: now() })
            .where(and(mine, eq(weeklyReports.textStatus, 'requested'), eq(weeklyReports.textRequestedAt, requestedAt)))
          throw error
        }
      }
    }
  }
  return result
}
