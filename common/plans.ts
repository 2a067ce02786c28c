import { z } from 'zod'

export const PLAN_IDS = ['basic', 'premium', 'elite'] as const
export const PlanIdSchema = z.enum(PLAN_IDS)
export type PlanId = z.infer<typeof PlanIdSchema>

export const PlanSchema = z.object({
  id: PlanIdSchema,
  name: z.string(),
  /** Whole US dollars per month. */
  priceMonthly: z.number().int().positive(),
  interval: z.literal('month'),
  features: z.array(z.string()),
  mostPopular: z.boolean(),
})
export type Plan = z.infer<typeof PlanSchema>

export const PlansResponseSchema = z.object({ plans: z.array(PlanSchema) })
export type PlansResponse = z.infer<typeof PlansResponseSchema>
