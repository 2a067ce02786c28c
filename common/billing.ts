import { z } from 'zod'
import { PlanIdSchema } from './plans'

/** Testing mode (no Stripe keys): choosing a plan activates it without payment (spec 1 §4). */
export const TestingActivationBodySchema = z.object({ plan: PlanIdSchema })
export const TestingActivationResponseSchema = z.object({
  subscribed: z.literal(true),
  subscription_tier: PlanIdSchema,
  subscription_end: z.string().nullable(),
  source: z.literal('testing'),
})
