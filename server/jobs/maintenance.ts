import { MAINTENANCE_JOBS } from '#server/services/maintenance'
import { defineJob } from './define'

/** Deletes expired sessions, spent email tokens, unconfirmed email and phone changes and old webhook ids, every day at 03:17 UTC (off the hour). */
export const cleanupExpired = defineJob({
  ...MAINTENANCE_JOBS.cleanupExpired,
  queue: 'maintenance',
  schedule: { cron: '17 3 * * *', tz: 'UTC' },
  attempts: 3,
  backoffMs: 30_000,
  async handler(services, _payload, { log }) {
    const result = await services.maintenance.deleteExpiredRecords()
    log.info(result, 'expired records deleted')
    return result
  },
})
