import { type Plan, PlansResponseSchema } from '#common/plans'
import { api } from '../../lib/api-client'

/** GET /api/plans, validated against the shared schema. */
export async function fetchPlans(signal?: AbortSignal): Promise<Plan[]> {
  const { plans } = await api.get('/api/plans', PlansResponseSchema, { signal })
  return plans
}
