/** GET /api/progress, validated with the shared schema: the zod half of api.ts, loaded on first use. */
import { ProgressResponseSchema, type ProgressResponse } from '#common/progress'
import { api } from '#web/lib/api-client'

export function fetchProgress(signal?: AbortSignal): Promise<ProgressResponse> {
  return api.get('/api/progress', ProgressResponseSchema, { signal })
}
