import { BILLING_JOBS } from '#server/services/billing'
import { defineJob } from './define'

/**
 * Emails each member whose free trial ends within two days, once per trial (claimed in the
 * database, so any number of runners may run it at once). Every hour at :41 UTC, so a reminder
 * goes out between 48 and 47 hours before the trial ends; Stripe mode and testing mode alike.
 */
export const trialReminders = defineJob({
  ...BILLING_JOBS.trialReminders,
  queue: 'billing',
  schedule: { cron: '41 * * * *', tz: 'UTC' },
  attempts: 3,
  backoffMs: 60_000,
  async handler(services, _payload, { log }) {
    const result = await services.billing.sendTrialReminders()
    if (result.sent > 0) log.info(result, 'trial reminders sent')
    return result
  },
})
