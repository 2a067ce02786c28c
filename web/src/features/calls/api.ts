/**
 * The calls API as the web uses it: the next call, a call's detail, the schedule and its save,
 * and "Call me now" (POST /api/calls/test).
 */
import { queryOptions } from '@tanstack/react-query'
import {
  CallDetailResponseSchema,
  CallNowResponseSchema,
  CallScheduleResponseSchema,
  CallsDiagnosticsResponseSchema,
  NextCallResponseSchema,
  type CallNowResponse,
  type CallScheduleResponse,
  type UpdateCallSchedule,
} from '#common/calls'
import { api, isApiError } from '#web/lib/api-client'
import { dashboardRetryDelay, shouldRetryDashboardLoad } from '#web/features/dashboard/retry'

export const callsKeys = {
  next: ['calls', 'next'] as const,
  schedule: ['calls', 'schedule'] as const,
  detail: (callId: string) => ['calls', 'detail', callId] as const,
}

const withRetry = { retry: shouldRetryDashboardLoad, retryDelay: (failureCount: number) => dashboardRetryDelay(failureCount) }

/** The diagnostics page's daily-calls section. */
export const callsDiagnosticsQueryOptions = () =>
  queryOptions({
    queryKey: ['calls', 'diagnostics'] as const,
    queryFn: ({ signal }) => api.get('/api/calls/diagnostics', CallsDiagnosticsResponseSchema, { signal }),
    staleTime: 0,
    retry: false,
  })

export const nextCallQueryOptions = () =>
  queryOptions({
    queryKey: callsKeys.next,
    queryFn: ({ signal }) => api.get('/api/calls/next', NextCallResponseSchema, { signal }),
    staleTime: 0,
    ...withRetry,
  })

export const callDetailQueryOptions = (callId: string) =>
  queryOptions({
    queryKey: callsKeys.detail(callId),
    queryFn: ({ signal }) => api.get(`/api/calls/${encodeURIComponent(callId)}`, CallDetailResponseSchema, { signal }),
    // A call still under way changes; a finished one does not.
    staleTime: 0,
    retry: (failureCount, error) => !(isApiError(error) && error.isClientError) && failureCount < 2,
  })

export const callScheduleQueryOptions = () =>
  queryOptions({
    queryKey: callsKeys.schedule,
    queryFn: ({ signal }) => api.get('/api/calls/schedule', CallScheduleResponseSchema, { signal }),
    staleTime: 0,
    ...withRetry,
  })

export const saveCallSchedule = (input: UpdateCallSchedule): Promise<CallScheduleResponse> =>
  api.put('/api/calls/schedule', input, CallScheduleResponseSchema)

/** Places a test call now (rate limited; counted against nothing). */
export const callMeNow = (): Promise<CallNowResponse> => api.post('/api/calls/test', undefined, CallNowResponseSchema)
