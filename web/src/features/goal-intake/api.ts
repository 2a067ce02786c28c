/**
 * The goal intake's API (GET and PUT /api/goals), validated with the shared schemas. The
 * dashboard reads the same goals query, with its own retries (dashboard/api.ts).
 */
import { queryOptions } from '@tanstack/react-query'
import { GOALS_LOAD_TIMEOUT_MS, GoalsResponseSchema, SaveGoalsResponseSchema, type GoalRecord, type GoalsForm, type SaveGoalsResponse } from '#common/goals'
import { api } from '#web/lib/api-client'

export const goalsKeys = {
  all: ['goals'] as const,
}

async function fetchGoals(signal?: AbortSignal): Promise<GoalRecord[]> {
  const { goals } = await api.get('/api/goals', GoalsResponseSchema, { signal })
  return goals
}

/** The user's goal records. */
export function goalsQueryOptions() {
  return queryOptions({
    queryKey: goalsKeys.all,
    queryFn: ({ signal }) => fetchGoals(signal),
  })
}

/**
 * The wizard's load: gives up after 10 s and is not retried, so the wizard
 * continues with an empty form. The timeout aborts the request; it fails like any other load.
 */
export function wizardGoalsQueryOptions() {
  return queryOptions({
    ...goalsQueryOptions(),
    queryFn: ({ signal }) => fetchGoals(AbortSignal.any([signal, AbortSignal.timeout(GOALS_LOAD_TIMEOUT_MS)])),
    retry: false,
  })
}

export function saveGoals(form: GoalsForm): Promise<SaveGoalsResponse> {
  return api.put('/api/goals', form, SaveGoalsResponseSchema)
}
