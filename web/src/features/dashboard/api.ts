/**
 * The dashboard's loads: goals (shared with the goal intake), recent calls and the figures of
 * /api/dashboard/stats. Each is retried by the spec's helper (retry.ts).
 */
import { queryOptions } from '@tanstack/react-query'
import { DashboardStatsResponseSchema, RecentCallsResponseSchema } from '#common/goals'
import { api } from '../../lib/api-client'
import { fetchGoals, goalsKeys } from '../goal-intake/api'
import { dashboardRetryDelay, shouldRetryDashboardLoad } from './retry'

export const dashboardKeys = {
  calls: ['calls', 'recent'] as const,
  stats: ['dashboard', 'stats'] as const,
}

const withRetry = { retry: shouldRetryDashboardLoad, retryDelay: (failureCount: number) => dashboardRetryDelay(failureCount) }

export const goalsQuery = () =>
  queryOptions({ queryKey: goalsKeys.all, queryFn: ({ signal }) => fetchGoals(signal), staleTime: 0, ...withRetry })

export const recentCallsQuery = () =>
  queryOptions({
    queryKey: dashboardKeys.calls,
    queryFn: async ({ signal }) => (await api.get('/api/calls/recent', RecentCallsResponseSchema, { signal })).calls,
    staleTime: 0,
    ...withRetry,
  })

export const dashboardStatsQuery = () =>
  queryOptions({
    queryKey: dashboardKeys.stats,
    queryFn: ({ signal }) => api.get('/api/dashboard/stats', DashboardStatsResponseSchema, { signal }),
    staleTime: 0,
    ...withRetry,
  })
