import { PLANS } from '#common/plan-catalogue'
import type { Plan, PlanId } from '#common/plans'

/** The plans of spec 1 §9 (common/plan-catalogue.ts): what GET /api/plans serves and the landing page embeds. */
export { PLANS }

export function findPlan(id: PlanId): Plan {
  const plan = PLANS.find((candidate) => candidate.id === id)
  if (!plan) throw new Error(`unknown plan ${id}`)
  return plan
}

/** The Stripe price lookup key of a plan's monthly price (created by `npm run stripe:setup`). */
export const priceLookupKey = (id: PlanId) => `momentum_${id}_monthly`

/** The plan whose monthly price has this lookup key, if any. */
export function planForLookupKey(key: string | null | undefined): PlanId | null {
  if (!key) return null
  return PLANS.find((plan) => priceLookupKey(plan.id) === key)?.id ?? null
}
