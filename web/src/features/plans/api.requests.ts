/** GET /api/plans, validated with the shared schema: the zod half of api.ts, loaded on first use. */
import { PlansResponseSchema, type PlansResponse } from '#common/plans'
import { api } from '#web/lib/api-client'

export function fetchPlans(signal?: AbortSignal): Promise<PlansResponse> {
  return api.get('/api/plans', PlansResponseSchema, { signal })
}
