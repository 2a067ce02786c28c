/** The consent API as the web uses it: where each channel stands and the ledger (GET), a change (PUT). */
import { queryOptions } from '@tanstack/react-query'
import { ConsentResponseSchema, type SETTABLE_CONSENT_CHANNELS } from '#common/consent'
import { api } from '#web/lib/api-client'

export const consentKeys = { all: ['consent'] as const }

export const consentQueryOptions = () =>
  queryOptions({
    queryKey: consentKeys.all,
    queryFn: ({ signal }) => api.get('/api/consent', ConsentResponseSchema, { signal }),
    staleTime: 0,
  })

export const setConsent = (channel: (typeof SETTABLE_CONSENT_CHANNELS)[number], enabled: boolean) =>
  api.put(`/api/consent/${channel}`, { enabled }, ConsentResponseSchema)
