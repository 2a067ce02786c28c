import { REPORTS_JOBS } from '#server/services/reports'
import { defineJob } from './define'

/**
 * The weekly progress reports. The tick runs every minute on the minute (a zone's Sunday 6:00 PM
 * is a whole minute, and so is every offset's), claims the reports come due in one statement,
 * writes their figures and enqueues a delivery per report; the claim (unique per person-week)
 * makes any number of runners at once harmless. A delivery sends the email and asks for the text,
 * each claimed on the report before it goes. The sweep picks up what a stopped process left.
 */
export const weeklyReportsTick = defineJob({
  ...REPORTS_JOBS.tick,
  queue: 'reports',
  schedule: { cron: '0 * * * * *', tz: 'UTC' },
  attempts: 1,
  backoffMs: 1_000,
  async handler(services, _payload, { log }) {
    const result = await services.reports.tick()
    if (result.claimed + result.enqueued > 0) log.info(result, 'weekly reports')
    return result
  },
})

export const weeklyReportsSweep = defineJob({
  ...REPORTS_JOBS.sweep,
  queue: 'reports',
  schedule: { cron: '*/5 * * * *', tz: 'UTC' },
  attempts: 1,
  backoffMs: 1_000,
  async handler(services, _payload, { log }) {
    const result = await services.reports.sweep()
    if (result.generated + result.enqueued + result.givenUp > 0) log.info(result, 'weekly reports sweep')
    return result
  },
})

export const weeklyReportDelivery = defineJob({
  ...REPORTS_JOBS.delivery,
  queue: 'reports',
  trigger: 'enqueue',
  // Mail goes out a few at a time: one slow SMTP answer never holds up the rest.
  concurrency: 5,
  attempts: 5,
  backoffMs: 30_000,
  async handler(services, payload, { log }) {
    const result = await services.reports.deliver(payload.reportId)
    log.debug({ reportId: payload.reportId, result }, 'weekly report delivered')
    return result
  },
})
