import { z } from 'zod'
import { text } from './text'

export const PLAN_IDS = ['basic', 'premium', 'elite'] as const
export const PlanIdSchema = z.enum(PLAN_IDS)
export type PlanId = z.infer<typeof PlanIdSchema>

export const PlanSchema = z.object({
  id: PlanIdSchema,
  name: text(),
  /** Whole US dollars per month. */
  priceMonthly: z.number().int().positive(),
  interval: z.literal('month'),
  features: z.array(text()),
  mostPopular: z.boolean(),
})
export type Plan = z.infer<typeof PlanSchema>

/** Each plan starts with a free trial of this many days (once per member), in Stripe and in testing mode. */
export const TRIAL_DAYS = 7

/** How payments work on this server: testing mode (no Stripe keys) or Stripe. */
export const PAYMENT_MODES = ['testing', 'stripe'] as const
export const PaymentModeSchema = z.enum(PAYMENT_MODES)
export type PaymentMode = z.infer<typeof PaymentModeSchema>

export const PlansResponseSchema = z.object({ plans: z.array(PlanSchema), paymentMode: PaymentModeSchema })
export type PlansResponse = z.infer<typeof PlansResponseSchema>
