/** The operator's view as the web reads it: the snapshot (polled while the page is open) and 'Retry' of a parked webhook message. */
import { queryOptions } from '@tanstack/react-query'
import { OpsSnapshotSchema, RetryParkedEventResponseSchema } from '#common/ops'
import { api } from '#web/lib/api-client'

/** How often the page asks again while it is open. */
const OPS_REFRESH_MS = 10_000

export const opsSnapshotQueryOptions = () =>
  queryOptions({
    queryKey: ['ops', 'snapshot'] as const,
    queryFn: () => api.get('/api/ops/status', OpsSnapshotSchema),
    refetchInterval: OPS_REFRESH_MS,
    refetchOnWindowFocus: true,
  })

export const retryParkedEvent = (id: number) => api.post(`/api/ops/webhook-events/${id}/retry`, undefined, RetryParkedEventResponseSchema)
