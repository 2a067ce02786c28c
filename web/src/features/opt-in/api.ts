/** The opt-in screen's API: the state to show (GET /api/opt-in) and recording the opt-in. */
import { queryOptions } from '@tanstack/react-query'
import { OptInResponseSchema, OptInStateResponseSchema } from '#common/opt-in'
import { api } from '#web/lib/api-client'

const optInKeys = {
  state: ['opt-in'] as const,
}

/** The number to text, the keyword and the exact consent text the server will record. */
export function optInQueryOptions() {
  return queryOptions({
    queryKey: optInKeys.state,
    queryFn: ({ signal }) => api.get('/api/opt-in', OptInStateResponseSchema, { signal }),
    staleTime: 0,
  })
}

/** POST /api/opt-in with the consent text that was shown; the server records it with the time. */
export function recordOptIn(consentText: string) {
  return api.post('/api/opt-in', { consentText }, OptInResponseSchema)
}
