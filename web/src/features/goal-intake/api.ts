/**
 * The goal intake's API calls (GET and PUT /api/goals), validated with the shared schemas.
 * The dashboard reads the same goals query.
 */
import { GOALS_LOAD_TIMEOUT_MS, GoalsResponseSchema, SaveGoalsResponseSchema, type GoalRecord, type GoalsForm, type SaveGoalsResponse } from '#common/goals'
import { api } from '../../lib/api-client'

export const goalsKeys = {
  all: ['goals'] as const,
}

export async function fetchGoals(signal?: AbortSignal): Promise<GoalRecord[]> {
  const { goals } = await api.get('/api/goals', GoalsResponseSchema, { signal })
  return goals
}

/**
 * The wizard's load: gives up after 10 s (spec 2 §4, §9) so the wizard continues with an empty
 * form. The timeout aborts the request; the caller treats it like any other load failure.
 */
export function fetchGoalsWithTimeout(signal?: AbortSignal, timeoutMs = GOALS_LOAD_TIMEOUT_MS): Promise<GoalRecord[]> {
  const timeout = AbortSignal.timeout(timeoutMs)
  return fetchGoals(signal ? AbortSignal.any([signal, timeout]) : timeout)
}

export function saveGoals(form: GoalsForm): Promise<SaveGoalsResponse> {
  return api.put('/api/goals', form, SaveGoalsResponseSchema)
}
