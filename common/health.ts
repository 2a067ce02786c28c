import { z } from 'zod'
import { text } from './text'

export const DependencyStateSchema = z.enum(['up', 'down', 'not_configured'])

export const HealthResponseSchema = z.object({
  status: z.enum(['ok', 'degraded']),
  database: z.object({ state: DependencyStateSchema, driver: z.enum(['postgres', 'pglite']) }),
  redis: z.object({ state: DependencyStateSchema }),
  uptimeSeconds: z.number(),
  version: text(),
})
export type HealthResponse = z.infer<typeof HealthResponseSchema>
