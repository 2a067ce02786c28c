/**
 * The dashboard's loads: goals (the goal intake's query), recent calls, the figures of
 * /api/dashboard/stats and the open commitments. Each is retried by the spec's helper (retry.ts).
 */
import { queryOptions } from '@tanstack/react-query'
import { CommitmentsResponseSchema, MarkCommitmentDoneResponseSchema, type MarkCommitmentDoneResponse } from '#common/commitments'
import { RecentCallsResponseSchema } from '#common/calls'
import { DashboardStatsResponseSchema } from '#common/dashboard'
import { api } from '#web/lib/api-client'
import { goalsQueryOptions } from '#web/features/goal-intake/api'
import { dashboardRetryDelay, shouldRetryDashboardLoad } from './retry'

export const dashboardKeys = {
  calls: ['calls', 'recent'] as const,
  stats: ['dashboard', 'stats'] as const,
}

const withRetry = { retry: shouldRetryDashboardLoad, retryDelay: (failureCount: number) => dashboardRetryDelay(failureCount) }

export const dashboardGoalsQueryOptions = () => queryOptions({ ...goalsQueryOptions(), staleTime: 0, ...withRetry })

export const recentCallsQueryOptions = () =>
  queryOptions({
    queryKey: dashboardKeys.calls,
    queryFn: async ({ signal }) => (await api.get('/api/calls/recent', RecentCallsResponseSchema, { signal })).calls,
    staleTime: 0,
    ...withRetry,
  })

export const dashboardStatsQueryOptions = () =>
  queryOptions({
    queryKey: dashboardKeys.stats,
    queryFn: ({ signal }) => api.get('/api/dashboard/stats', DashboardStatsResponseSchema, { signal }),
    staleTime: 0,
    ...withRetry,
  })

/** The commitment loop's card: open commitments and the kept rate (GET /api/commitments). */
export const commitmentsQueryOptions = () =>
  queryOptions({
    queryKey: ['commitments'] as const,
    queryFn: ({ signal }) => api.get('/api/commitments', CommitmentsResponseSchema, { signal }),
    staleTime: 0,
    ...withRetry,
  })

/** Marks one of the person's commitments done (kept). */
export const markCommitmentDone = (id: string): Promise<MarkCommitmentDoneResponse> =>
  api.post(`/api/commitments/${encodeURIComponent(id)}/done`, undefined, MarkCommitmentDoneResponseSchema)
