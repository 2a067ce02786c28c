/**
 * The progress page's query: GET /api/progress (Premium and Elite's detailed analytics). The
 * route's loader imports this module, so it stays free of zod and of the fetch client (route
 * files are part of the entry chunk, ADR 020): the validated request is api.requests.ts, loaded
 * on first use.
 */
import { queryOptions } from '@tanstack/react-query'
import { isApiError } from '#web/lib/api-error'

/** A 4xx (the Basic plan's 403 among them) is an answer, not a hiccup: it is not retried. */
const clientErrorsAreFinal = (failureCount: number, error: unknown) => !(isApiError(error) && error.isClientError) && failureCount < 2

export const progressQueryOptions = () =>
  queryOptions({
    queryKey: ['progress'] as const,
    queryFn: async ({ signal }) => (await import('./api.requests')).fetchProgress(signal),
    staleTime: 60_000,
    retry: clientErrorsAreFinal,
  })
