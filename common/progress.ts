/**
 * The progress page's series (Premium and Elite's "detailed analytics"), shared by the server's
 * GET /api/progress and the web's charts: for each of the person's last weeks (the weekly report's
 * weeks, Sunday 6:00 PM to Sunday 6:00 PM in their zone, the last one still running), the calls
 * completed and missed, the average mood and the commitments kept and missed; and over the whole
 * span, how many completed calls discussed each life area, beside its current score.
 */
import { z } from 'zod'
import { LIFE_AREAS } from './domain'
import type { PlanId } from './plans'
import { text } from './text'

/** The plans whose members have the progress page (spec 1's plans: "detailed analytics"). */
const ANALYTICS_PLANS = ['premium', 'elite'] as const satisfies readonly PlanId[]

export const hasDetailedAnalytics = (tier: PlanId | null | undefined): boolean => (ANALYTICS_PLANS as readonly string[]).includes(tier ?? '')

/** How many weeks the page shows unless asked for another number, and the most it may ask for. */
const PROGRESS_WEEKS = 12
const PROGRESS_MAX_WEEKS = 52

export const ProgressQuerySchema = z.object({
  weeks: z.coerce.number().int().min(1).max(PROGRESS_MAX_WEEKS).default(PROGRESS_WEEKS),
})

export const ProgressWeekSchema = z.object({
  /** The local date of the Sunday the week ends on (the weekly report's key). */
  weekEnding: text(),
  periodStart: text(),
  periodEnd: text(),
  /** The week still running: its figures so far. */
  current: z.boolean(),
  callsCompleted: z.number().int(),
  /** Daily and evening calls that never reached the person (as the weekly report counts them). */
  callsMissed: z.number().int(),
  minutesTalked: z.number().int(),
  /** The average mood (1–10, one decimal) of the week's completed calls with one; null without any. */
  moodAverage: z.number().nullable(),
  /** Commitments settled in the week. */
  commitmentsKept: z.number().int(),
  commitmentsMissed: z.number().int(),
})
export type ProgressWeek = z.infer<typeof ProgressWeekSchema>

const ProgressAreaSchema = z.object({
  area: z.enum(LIFE_AREAS),
  /** Completed calls of the span that discussed this area. */
  calls: z.number().int(),
  /** The area's score now (1–10), or null when unrated. */
  score: z.number().int().nullable(),
})

export const ProgressResponseSchema = z.object({
  timeZone: text(),
  /** Oldest first; the last one is the week running now. */
  weeks: z.array(ProgressWeekSchema),
  /** Every life area, in the app's order. */
  areas: z.array(ProgressAreaSchema),
})
export type ProgressResponse = z.infer<typeof ProgressResponseSchema>
