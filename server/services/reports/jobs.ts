/**
 * The weekly reports' job contracts (docs/decisions/022): read by the reports service that
 * enqueues them and by their handlers (server/jobs/reports.ts).
 */
import { z } from 'zod'
import { jobContract, NO_PAYLOAD, type JobQueue } from '#server/lib/job-contract'

export const REPORTS_JOBS = {
  /** Every minute: claims the reports come due, writes their figures, enqueues their deliveries. */
  tick: jobContract('weekly-reports', NO_PAYLOAD),
  /** Every 5 minutes: picks up what a stopped process left. */
  sweep: jobContract('weekly-reports-sweep', NO_PAYLOAD),
  /** Delivers one report: the email, and the text asked for. */
  delivery: jobContract('weekly-report-delivery', z.object({ reportId: z.uuid() }).strict()),
} as const
export type ReportsJob = (typeof REPORTS_JOBS)[keyof typeof REPORTS_JOBS]
export type ReportsJobQueue = JobQueue<ReportsJob>

/** The name of the job that delivers one report. */
export const REPORT_DELIVERY_JOB = REPORTS_JOBS.delivery.name
