/**
 * The dashboard: its stats response and its pure rules (Overall Score, Life Areas, This Week's
 * Focus, call minutes, the partner badge), shared by the server and the web.
 */
import { z } from 'zod'
import { text } from './text'
import { DEFAULT_PARTNER_PROGRAM, GOAL_RECORD_KINDS, LIFE_AREAS, type GoalRecordKind } from './domain'

export const DashboardStatsResponseSchema = z.object({
  /** Distinct days, in the user's time zone, with a sign-in, a goals save or a completed call since sign-up. */
  daysActive: z.number().int(),
  timezone: text(),
  partnerProgram: text(),
  /** The partner company's name when the program is a partner-company program. */
  partnerCompanyName: text().nullable(),
  /** Every completed coaching call of the user (not only the recent ones listed). */
  callsCompleted: z.number().int(),
})
export type DashboardStatsResponse = z.infer<typeof DashboardStatsResponseSchema>

// ---------------------------------------------------------------------------------------------
// Rules

/** The recent calls the dashboard lists. */
export const RECENT_CALLS_LIMIT = 5
export const FOCUS_AREA_COUNT = 3

type Scored = { lifeArea: GoalRecordKind | string; satisfactionScore: number | null }

/** The records of the eight life areas (not the company/industry and specific-goals records). */
export function lifeAreaRecords<T extends Scored>(records: readonly T[]): T[] {
  return records.filter((record) => (LIFE_AREAS as readonly string[]).includes(record.lifeArea))
}

/**
 * Overall Score: the rounded mean of the life areas that have a score; 0 when none has one. The
 * two special records carry no score and are not averaged in (see docs/decisions).
 */
export function overallScore(records: readonly Scored[]): number {
  const scores = lifeAreaRecords(records).flatMap((record) => (record.satisfactionScore === null ? [] : [record.satisfactionScore]))
  if (scores.length === 0) return 0
  return Math.round(scores.reduce((sum, score) => sum + score, 0) / scores.length)
}

/** Life Areas: how many of the eight life areas the person has set goals for. */
export const lifeAreaCount = (records: readonly Scored[]) => lifeAreaRecords(records).length

/** A life area scored below this needs attention; at or above it, it is in good shape. */
export const FOCUS_BELOW_SCORE = 7

/**
 * This Week's Focus: up to 3 life areas scored below FOCUS_BELOW_SCORE, lowest first (ties in
 * wizard order). Empty when every scored area is at or above it: 'Great job! All areas are well
 * balanced.'
 */
export function focusAreas<T extends Scored>(records: readonly T[]): Array<T & { satisfactionScore: number }> {
  const order = (kind: string) => {
    const index = (GOAL_RECORD_KINDS as readonly string[]).indexOf(kind)
    return index === -1 ? GOAL_RECORD_KINDS.length : index
  }
  return lifeAreaRecords(records)
    .filter((record): record is T & { satisfactionScore: number } => record.satisfactionScore !== null && record.satisfactionScore < FOCUS_BELOW_SCORE)
    .sort((a, b) => a.satisfactionScore - b.satisfactionScore || order(a.lifeArea) - order(b.lifeArea))
    .slice(0, FOCUS_AREA_COUNT)
}

/** Call duration in minutes as the dashboard shows it: seconds / 60, rounded. */
export const callMinutes = (seconds: number) => Math.round(seconds / 60)

export type BadgeVariant = 'default' | 'secondary' | 'outline'

/**
 * The partner-program badge (spec 2 §2): a partner-company program shows the company's name with
 * the default style; GENERAL shows 'General' with the secondary style; any other value as is.
 */
export function partnerBadge(program: string, partnerCompanyName: string | null): { label: string; variant: BadgeVariant } {
  if (program === DEFAULT_PARTNER_PROGRAM) return { label: 'General', variant: 'secondary' }
  if (partnerCompanyName) return { label: partnerCompanyName, variant: 'default' }
  return { label: program, variant: 'outline' }
}
