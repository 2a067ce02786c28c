/** Billing's job contracts (docs/decisions/022): read by their handlers (server/jobs/billing.ts). */
import { jobContract, NO_PAYLOAD } from '#server/lib/job-contract'

export const BILLING_JOBS = {
  /** Every hour: emails each member whose free trial ends within two days, once per trial. */
  trialReminders: jobContract('trial-reminders', NO_PAYLOAD),
} as const
export type BillingJob = (typeof BILLING_JOBS)[keyof typeof BILLING_JOBS]
