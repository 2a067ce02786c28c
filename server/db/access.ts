import type { SubscriptionStatus } from '#common/domain'
import type { PlanId } from '#common/plans'
import { profiles, subscribers } from './schema'

/**
 * The columns the paid rule reads (services/billing/access.ts decides from them), over `profiles`
 * left-joined with `subscribers`. They live in the data layer so that the session query (auth/)
 * can read them in the same statement as the session without depending on the services.
 */
export const accessColumns = {
  subscribed: subscribers.subscribed,
  tier: subscribers.tier,
  status: subscribers.status,
  source: subscribers.source,
  end: subscribers.currentPeriodEnd,
  pastDueSince: subscribers.pastDueSince,
  trialEnd: subscribers.trialEnd,
  cancelAt: subscribers.cancelAt,
  updatedAt: subscribers.updatedAt,
  paymentStatus: profiles.paymentStatus,
}

/** One row of `accessColumns`. */
export type AccessRow = {
  subscribed: boolean | null
  tier: PlanId | null
  status: SubscriptionStatus | null
  source: 'stripe' | 'testing' | null
  end: Date | null
  pastDueSince: Date | null
  trialEnd: Date | null
  /** When Stripe will end the subscription (cancelled, still paid up); null while it renews. */
  cancelAt?: Date | null
  updatedAt: Date | null
  paymentStatus: 'paid' | 'unpaid' | null
}

/** What the session user needs of the profile: the access columns, the partner program and the opt-in. */
export const sessionProfileColumns = { ...accessColumns, partnerProgram: profiles.partnerProgram, smsOptedInAt: profiles.smsOptedInAt }
export type SessionProfileRow = AccessRow & { partnerProgram: string | null; smsOptedInAt: Date | null }
