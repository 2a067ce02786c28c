/** The weekly reports as the web uses them: the history, one week, and the email's unsubscribe. */
import { queryOptions } from '@tanstack/react-query'
import { UnsubscribeResponseSchema, WeeklyReportSchema, WeeklyReportsResponseSchema, type UnsubscribeResponse } from '#common/reports'
import { api, isApiError } from '#web/lib/api-client'

const clientErrorsAreFinal = (failureCount: number, error: unknown) => !(isApiError(error) && error.isClientError) && failureCount < 2

export const reportsQueryOptions = () =>
  queryOptions({
    queryKey: ['reports'] as const,
    queryFn: ({ signal }) => api.get('/api/reports', WeeklyReportsResponseSchema, { signal }),
    staleTime: 0,
    retry: clientErrorsAreFinal,
  })

export const reportQueryOptions = (week: string) =>
  queryOptions({
    queryKey: ['reports', week] as const,
    queryFn: ({ signal }) => api.get(`/api/reports/${encodeURIComponent(week)}`, WeeklyReportSchema, { signal }),
    // A written report never changes.
    staleTime: 5 * 60_000,
    retry: clientErrorsAreFinal,
  })

/** The /unsubscribe page's button: the emailed token in the body (no session needed). */
export const unsubscribeFromReports = (token: string): Promise<UnsubscribeResponse> => api.post('/api/reports/unsubscribe', { token }, UnsubscribeResponseSchema)
