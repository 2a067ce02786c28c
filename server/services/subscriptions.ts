import type { PlanId } from '#common/plans'
import type { DbExecutor } from '../db/client'
import { subscribers } from '../db/schema'

/**
 * Testing mode (no Stripe keys): records the chosen plan as a testing activation, which the access
 * check counts as paid. It never runs when Stripe is configured (the route refuses it).
 */
export async function activateTestingPlan(db: DbExecutor, userId: string, plan: PlanId, now: Date): Promise<void> {
  await db
    .insert(subscribers)
    .values({ userId, subscribed: true, tier: plan, status: 'active', source: 'testing', currentPeriodEnd: null, createdAt: now, updatedAt: now })
    .onConflictDoUpdate({
      target: subscribers.userId,
      set: { subscribed: true, tier: plan, status: 'active', source: 'testing', currentPeriodEnd: null, pastDueSince: null, updatedAt: now },
    })
}
