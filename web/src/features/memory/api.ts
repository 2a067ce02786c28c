/** What your coach remembers, as the web reads and changes it (docs/decisions/083). */
import { queryOptions } from '@tanstack/react-query'
import { z } from 'zod'
import { MemoryViewSchema, type MemorySubject } from '#common/memory'
import { api } from '#web/lib/api-client'

export const memoryKeys = { view: ['memory'] as const }

export const memoryQueryOptions = () => queryOptions({ queryKey: memoryKeys.view, queryFn: ({ signal }) => api.get('/api/memory', MemoryViewSchema, { signal }) })

const factPath = (id: string) => `/api/memory/facts/${encodeURIComponent(id)}`

/** The correction supersedes the fact; the answer is the memory as it now is. */
export const correctFact = (id: string, body: { statement: string; subject?: MemorySubject }) => api.patch(factPath(id), body, MemoryViewSchema)
export const forgetFact = (id: string) => api.delete(factPath(id), z.undefined())
export const forgetEverything = () => api.delete('/api/memory', z.undefined(), undefined, { confirm: true })
export const setMemoryPaused = (paused: boolean) => api.put('/api/memory/pause', { paused }, z.undefined())
