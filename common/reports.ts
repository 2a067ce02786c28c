/**
 * The weekly progress report's shapes, shared by the server (what it stores and sends) and the
 * web (the report pages): the week's calls completed and missed, minutes talked, life areas
 * discussed, commitments, the mood trend, and each life area's score against the week before.
 */
import { z } from 'zod'
import { LIFE_AREAS } from './domain'
import { text } from './text'

export const REPORT_LOCAL_TIME = '18:00'

/** pending → sending → sent; skipped (no consent, no address) or failed (the sender was lost). */
export const REPORT_EMAIL_STATUSES = ['pending', 'sending', 'sent', 'skipped', 'failed'] as const
/** pending → requested (handed to the texts service); skipped (texts off, or not available). */
export const REPORT_TEXT_STATUSES = ['pending', 'requested', 'skipped'] as const

/** A week's key: the local date of the Sunday it ends on. */
const WeekEndingSchema = text().regex(/^\d{4}-\d{2}-\d{2}$/, 'Use the date of the week’s Sunday, YYYY-MM-DD')

const MoodPointSchema = z.object({
  /** The call's local date. */
  localDate: text(),
  at: text(),
  mood: z.number().int(),
})

const MOOD_TRENDS = ['up', 'down', 'steady'] as const

export const AreaScoreSchema = z.object({
  area: z.enum(LIFE_AREAS),
  /** The score (1–10) when the report was made, or null when unrated. */
  score: z.number().int().nullable(),
  /** The score a week before, or null when unknown (a first report with a score changed this week). */
  previous: z.number().int().nullable(),
  change: z.number().int().nullable(),
})
export type AreaScore = z.infer<typeof AreaScoreSchema>

export const WeeklyReportContentSchema = z.object({
  calls: z.object({
    completed: z.number().int(),
    /** Daily and evening calls that never reached the person (every try unanswered, busy or voicemail). */
    missed: z.number().int(),
    secondsTalked: z.number().int(),
    /** Whole minutes, rounded. */
    minutesTalked: z.number().int(),
  }),
  /** The life areas discussed in the week's completed calls, most discussed first. */
  areasDiscussed: z.array(z.object({ area: z.enum(LIFE_AREAS), calls: z.number().int() })),
  commitments: z.object({
    /** Made in the week's calls. */
    made: z.number().int(),
    /** Settled in the week. */
    kept: z.number().int(),
    missed: z.number().int(),
    /** Still open when the report was made. */
    open: z.number().int(),
  }),
  mood: z.object({
    /** The week's completed calls with a mood, in order. */
    points: z.array(MoodPointSchema),
    /** The week's average mood (one decimal), and the week before's. */
    average: z.number().nullable(),
    previousAverage: z.number().nullable(),
    /** up / down (by half a point or more) / steady; null without both weeks. */
    trend: z.enum(MOOD_TRENDS).nullable(),
  }),
  /** Each of the eight life areas: its score against the week before. */
  scores: z.array(AreaScoreSchema),
})
export type WeeklyReportContent = z.infer<typeof WeeklyReportContentSchema>

export const WeeklyReportSchema = z.object({
  weekEnding: text(),
  timeZone: text(),
  periodStart: text(),
  periodEnd: text(),
  generatedAt: text(),
  content: WeeklyReportContentSchema,
})
export type WeeklyReportView = z.infer<typeof WeeklyReportSchema>

export const WeeklyReportSummarySchema = z.object({
  weekEnding: text(),
  periodStart: text(),
  periodEnd: text(),
  timeZone: text(),
  callsCompleted: z.number().int(),
  callsMissed: z.number().int(),
  minutesTalked: z.number().int(),
  commitmentsKept: z.number().int(),
})

/** How many past weeks the history lists. */
export const REPORT_HISTORY_LIMIT = 52

export const WeeklyReportsResponseSchema = z.object({ reports: z.array(WeeklyReportSummarySchema) })
export type WeeklyReportsResponse = z.infer<typeof WeeklyReportsResponseSchema>

export const WeeklyReportParamsSchema = z.object({ week: WeekEndingSchema })

/**
 * The one-click unsubscribe (RFC 8058): the token rides in the List-Unsubscribe URL's query (a
 * mail provider POSTs `List-Unsubscribe=One-Click` there) or, from the app's /unsubscribe page,
 * in the JSON body.
 */
export const UnsubscribeQuerySchema = z.object({ token: text().max(200).optional() })
export const UnsubscribeBodySchema = z
  .object({
    token: text().max(200).optional(),
    'List-Unsubscribe': text().max(50).optional(),
  })
  .optional()
export const UnsubscribeResponseSchema = z.object({
  /** Report emails are off for the person now. */
  unsubscribed: z.literal(true),
  /** Whether this request turned them off (false: they already were). */
  changed: z.boolean(),
})
export type UnsubscribeResponse = z.infer<typeof UnsubscribeResponseSchema>

/** What the ledger records for a one-click unsubscribe, and for the /unsubscribe page's button. */
export const ONE_CLICK_CONSENT_TEXT = 'List-Unsubscribe=One-Click'
export const UNSUBSCRIBE_BUTTON_TEXT = 'Unsubscribe from weekly report emails'

/** "Nov 23 – Nov 29, 2026": a week's dates for headings (the period's Monday to its Sunday). */
export function weekLabel(weekEnding: string): string {
  const end = new Date(`${weekEnding}T12:00:00Z`)
  const start = new Date(end.getTime() - 6 * 24 * 60 * 60 * 1000)
  const day = (date: Date, year: boolean) => date.toLocaleDateString('en-US', { month: 'short', day: 'numeric', ...(year ? { year: 'numeric' } : {}), timeZone: 'UTC' })
  return `${day(start, false)} – ${day(end, true)}`
}

/** "7/10, up 2 from 5", "7/10, no change", "7/10" (no earlier figure) or "not rated": one area's score against the week before. */
export function scoreChangeText(score: WeeklyReportContent['scores'][number]): string {
  if (score.score === null) return 'not rated'
  if (score.previous === null || score.change === null) return `${score.score}/10`
  if (score.change === 0) return `${score.score}/10, no change`
  return `${score.score}/10, ${score.change > 0 ? 'up' : 'down'} ${Math.abs(score.change)} from ${score.previous}`
}

/** The mood line: the average and how it moved against the week before. */
export function moodText(mood: WeeklyReportContent['mood']): string {
  if (mood.average === null) return 'No mood recorded this week'
  const base = `${mood.average} out of 10 on average`
  if (mood.previousAverage === null || mood.trend === null) return base
  if (mood.trend === 'steady') return `${base}, steady against ${mood.previousAverage} the week before`
  return `${base}, ${mood.trend} from ${mood.previousAverage} the week before`
}
