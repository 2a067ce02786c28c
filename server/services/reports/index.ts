/**
 * Weekly progress reports: every Sunday at 6:00 PM in each person's zone, exactly once per
 * person-week (the report's row is its claim), an email (with report_emails consent, carrying a
 * one-click unsubscribe) and a text with the link (with texts consent, through the texts
 * service); the same report as pages in the app with the history of past weeks.
 *
 * The `weekly-reports` job ticks every minute: it claims the reports come due (one statement for
 * everyone due), writes their figures in batches, and enqueues one `weekly-report-delivery` job
 * per report. The `weekly-reports-sweep` job (every 5 minutes) catches up what a stopped process
 * left: claims without figures, deliveries whose job was lost, and sends that never finished.
 */
import { and, desc, eq, isNotNull, lt, sql } from 'drizzle-orm'
import type { Logger } from 'pino'
import { REPORT_HISTORY_LIMIT, type UnsubscribeResponse, type WeeklyReportsResponse, type WeeklyReportView } from '#common/reports'
import type { Db } from '#server/db/client'
import { weeklyReports } from '#server/db/schema'
import type { Mailer } from '#server/integrations/mailer'
import { AppError } from '#server/lib/app-error'
import type { Clock } from '#server/lib/clock'
import type { ConsentRequestMeta } from '#server/services/consent'
import { claimReports, dueWeeks, mayBeDue, undeliveredReports } from './claim'
import { deliverReport, type DeliveryResult, type ReportTexts } from './deliver'
import { generateReports, ungeneratedReports } from './generate'
import { REPORT_DELIVERY_JOB, type ReportsJobQueue } from './jobs'
import { unsubscribe } from './unsubscribe'

export { CATCH_UP_MS, DEFAULT_ZONE, mayBeDue } from './claim'
export { type ReportTexts } from './deliver'

export { reportContent } from './generate'
export { knownTimeZone, latestDueWeek, nextDueWeek, reportWeek, type ReportWeek } from './week'

export { REPORT_DELIVERY_JOB, REPORTS_JOBS, type ReportsJob, type ReportsJobQueue } from './jobs'
/** A report's delivery job id: the tick's, or the sweep's again in an hour (hours since the epoch). */
export const reportDeliveryJobId = (reportId: string, sweepHour?: number) => (sweepHour === undefined ? `weekly-report-${reportId}` : `weekly-report-${reportId}-${sweepHour}`)
/** Reports whose figures are written per statement. */
const GENERATE_BATCH = 500
/** A claim left without figures, or a delivery left pending, this long is picked up again. */
const STALE_MS = 5 * 60_000
/** A send that never finished (its sender was lost) is given up this long after it was claimed. */
const SENDER_LOST_MS = 15 * 60_000
/** Deliveries are tried again for this long after the report came due; then they are given up. */
const DELIVERY_WINDOW_MS = 24 * 60 * 60_000

type ReportsDeps = {
  db: Db
  clock: Clock
  log: Logger
  mailer: Mailer
  /** APP_URL, without a trailing slash. */
  appUrl: string
  jobs: ReportsJobQueue
  /** The texts service's request, once it is wired (undefined: report texts are skipped, with why). */
  texts?: ReportTexts | undefined
}

type ReportTick = { claimed: number; generated: number; enqueued: number; failedEnqueues: number }
type ReportSweep = { generated: number; enqueued: number; failedEnqueues: number; givenUp: number }

export function createReports(deps: ReportsDeps) {
  const { db, clock, log, jobs } = deps
  const appUrl = deps.appUrl.replace(/\/+$/, '')
  const notFound = () => new AppError('NOT_FOUND', 'This weekly report could not be found.')

  async function enqueueAll(ids: readonly string[], jobId: (id: string) => string): Promise<{ enqueued: number; failed: number }> {
    let enqueued = 0
    let failed = 0
    for (let i = 0; i < ids.length; i += 100) {
      const results = await Promise.allSettled(ids.slice(i, i + 100).map((id) => jobs.enqueue(REPORT_DELIVERY_JOB, { reportId: id }, { jobId: jobId(id) })))
      for (const result of results) {
        if (result.status === 'fulfilled') enqueued++
        else failed++
      }
    }
    return { enqueued, failed }
  }

  async function generateAll(reports: Parameters<typeof generateReports>[1]): Promise<number> {
    let generated = 0
    for (let i = 0; i < reports.length; i += GENERATE_BATCH) {
      try {
        generated += await generateReports(db, reports.slice(i, i + GENERATE_BATCH), clock.now())
      } catch (error) {
        // These claims keep no figures for now: the next tick's catch-up writes them.
        log.error({ err: error, reports: reports.length }, 'weekly reports: figures could not be written for a batch; the next tick tries again')
      }
    }
    return generated
  }

  /** Sends that never finished, and deliveries past their window: recorded as not sent (never sent twice). */
  async function giveUp(now: Date): Promise<number> {
    const lostSender = await db
      .update(weeklyReports)
      .set({ emailStatus: 'failed', emailSkipReason: 'sender_lost', updatedAt: now })
      .where(and(eq(weeklyReports.emailStatus, 'sending'), lt(weeklyReports.emailClaimedAt, new Date(now.getTime() - SENDER_LOST_MS))))
      .returning({ id: weeklyReports.id })
    const late = new Date(now.getTime() - DELIVERY_WINDOW_MS)
    const lateEmails = await db
      .update(weeklyReports)
      .set({ emailStatus: 'failed', emailSkipReason: 'not_sent_in_time', updatedAt: now })
      .where(and(eq(weeklyReports.emailStatus, 'pending'), lt(weeklyReports.periodEnd, late)))
      .returning({ id: weeklyReports.id })
    const lateTexts = await db
      .update(weeklyReports)
      .set({ textStatus: 'skipped', textSkipReason: 'not_sent_in_time', updatedAt: now })
      .where(and(eq(weeklyReports.textStatus, 'pending'), lt(weeklyReports.periodEnd, late)))
      .returning({ id: weeklyReports.id })
    const count = lostSender.length + lateEmails.length + lateTexts.length
    if (count > 0) log.warn({ senderLost: lostSender.length, lateEmails: lateEmails.length, lateTexts: lateTexts.length }, 'weekly reports: deliveries given up')
    return count
  }

  return {
    /**
     * The minute's work: claim what came due, write the figures, enqueue the deliveries. Outside
     * the hours when some zone's Sunday 6:00 PM (or its catch-up) can fall, nothing is read.
     */
    async tick(): Promise<ReportTick> {
      const now = clock.now()
      if (!mayBeDue(now)) return { claimed: 0, generated: 0, enqueued: 0, failedEnqueues: 0 }
      const claimed = await claimReports(db, await dueWeeks(db, now, log), now)
      const generated = await generateAll(claimed)
      const fresh = await enqueueAll(
        claimed.map((report) => report.id),
        (id) => reportDeliveryJobId(id),
      )
      if (fresh.failed > 0) log.warn({ failed: fresh.failed }, 'weekly reports: some deliveries could not be enqueued; the sweep enqueues them again')
      return { claimed: claimed.length, generated, enqueued: fresh.enqueued, failedEnqueues: fresh.failed }
    },

    /**
     * What a stopped process left (every few minutes): claims without figures, deliveries whose job
     * was lost or failed every try (enqueued again at most once an hour each), and sends that never
     * finished or came too late (recorded as not sent, never sent twice).
     */
    async sweep(): Promise<ReportSweep> {
      const now = clock.now()
      const stale = new Date(now.getTime() - STALE_MS)
      const orphans = await ungeneratedReports(db, stale, 5000)
      const generated = orphans.length > 0 ? await generateAll(orphans) : 0
      const hour = Math.floor(now.getTime() / 3_600_000)
      const lost = await undeliveredReports(db, stale, new Date(now.getTime() - DELIVERY_WINDOW_MS), 5000)
      const again = await enqueueAll(lost, (id) => reportDeliveryJobId(id, hour))
      const givenUp = await giveUp(now)
      return { generated, enqueued: again.enqueued, failedEnqueues: again.failed, givenUp }
    },

    /** One report's email and text (the delivery job). */
    deliver: (reportId: string): Promise<DeliveryResult | null> => deliverReport({ db, log, mailer: deps.mailer, appUrl, texts: deps.texts }, reportId, () => clock.now()),

    /** The history: the person's reports, newest first. */
    async list(userId: string): Promise<WeeklyReportsResponse> {
      const rows = await db
        .select({
          weekEnding: weeklyReports.weekEnding,
          timeZone: weeklyReports.timeZone,
          periodStart: weeklyReports.periodStart,
          periodEnd: weeklyReports.periodEnd,
          content: weeklyReports.content,
        })
        .from(weeklyReports)
        .where(and(eq(weeklyReports.userId, userId), isNotNull(weeklyReports.generatedAt)))
        .orderBy(desc(weeklyReports.periodEnd))
        .limit(REPORT_HISTORY_LIMIT)
      return {
        reports: rows.map((row) => ({
          weekEnding: row.weekEnding,
          timeZone: row.timeZone,
          periodStart: row.periodStart.toISOString(),
          periodEnd: row.periodEnd.toISOString(),
          callsCompleted: row.content?.calls.completed ?? 0,
          callsMissed: row.content?.calls.missed ?? 0,
          minutesTalked: row.content?.calls.minutesTalked ?? 0,
          commitmentsKept: row.content?.commitments.kept ?? 0,
        })),
      }
    },

    /** One of the person's weeks; 404 for a week they have no report of. */
    async get(userId: string, weekEnding: string): Promise<WeeklyReportView> {
      const [row] = await db
        .select()
        .from(weeklyReports)
        .where(and(eq(weeklyReports.userId, userId), eq(weeklyReports.weekEnding, weekEnding), isNotNull(weeklyReports.generatedAt)))
        .limit(1)
      if (!row?.content || !row.generatedAt) throw notFound()
      return {
        weekEnding: row.weekEnding,
        timeZone: row.timeZone,
        periodStart: row.periodStart.toISOString(),
        periodEnd: row.periodEnd.toISOString(),
        generatedAt: row.generatedAt.toISOString(),
        content: row.content,
      }
    },

    /** The one-click unsubscribe (RFC 8058) and the /unsubscribe page's button: revokes report emails in the ledger. */
    unsubscribe: (token: string | undefined, request: ConsentRequestMeta & { oneClick: boolean }): Promise<UnsubscribeResponse> => unsubscribe(db, token, request, clock.now()),

    /** How many reports a week ending has (diagnostics, the bench). */
    async countOfWeek(weekEnding: string): Promise<number> {
      const [row] = await db.select({ count: sql<number>`count(*)::int` }).from(weeklyReports).where(eq(weeklyReports.weekEnding, weekEnding))
      return Number(row?.count ?? 0)
    },
  }
}
