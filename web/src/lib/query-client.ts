import { QueryClient } from '@tanstack/react-query'
import { isApiError } from './api-error'

/** Queries retry at most once, and never when the server refused the request (4xx) or sent a malformed body. */
function shouldRetry(failureCount: number, error: unknown): boolean {
  if (isApiError(error) && (error.isClientError || error.is('INVALID_RESPONSE'))) return false
  return failureCount < 1
}

/**
 * Defaults that avoid refetch storms: data stays fresh for 30 s, focusing the window does not
 * refetch, and failed requests are retried at most once. The router is created with
 * `defaultPreloadStaleTime: 0`, so Query alone decides freshness.
 */
export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        staleTime: 30_000,
        gcTime: 5 * 60_000,
        refetchOnWindowFocus: false,
        retry: shouldRetry,
      },
      mutations: {
        retry: false,
      },
    },
  })
}
