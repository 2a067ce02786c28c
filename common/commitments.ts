/**
 * The commitment loop's API shapes, shared by the server's routes and the web: what the person
 * committed to in a call, whether they kept it (told in the next call, or marked done in the app),
 * and the kept rate over the last 30 days.
 */
import { z } from 'zod'
import { text } from './text'

/** open until the next call (or the person) says; kept or missed after. */
export const COMMITMENT_STATUSES = ['open', 'kept', 'missed'] as const

/** Who settled a commitment: the next call's report, or the person in the app. */
export const COMMITMENT_RESOLVERS = ['call', 'app'] as const

/** The window of the dashboard's kept rate. */
export const KEPT_RATE_DAYS = 30

/** How many open commitments a call's variables carry (the most recent ones). */
export const OPEN_COMMITMENTS_IN_CALL = 5

export const CommitmentSchema = z.object({
  id: text(),
  text: text(),
  status: z.enum(COMMITMENT_STATUSES),
  /** When it was made (the call's end), ISO 8601. */
  madeAt: text(),
  /** The call it was made in. */
  callId: text(),
  resolvedAt: text().nullable(),
  resolvedBy: z.enum(COMMITMENT_RESOLVERS).nullable(),
})
export type CommitmentView = z.infer<typeof CommitmentSchema>

export const KeptRateSchema = z.object({
  days: z.number().int(),
  kept: z.number().int(),
  missed: z.number().int(),
  /** Whole percent kept of those settled in the window; null when none was settled. */
  percent: z.number().int().nullable(),
})
export type KeptRate = z.infer<typeof KeptRateSchema>

export const CommitmentsResponseSchema = z.object({
  /** Open commitments, newest first. */
  open: z.array(CommitmentSchema),
  keptRate: KeptRateSchema,
})
export type CommitmentsResponse = z.infer<typeof CommitmentsResponseSchema>

export const CommitmentParamsSchema = z.object({ id: text() })

export const MarkCommitmentDoneResponseSchema = z.object({ commitment: CommitmentSchema, keptRate: KeptRateSchema })
export type MarkCommitmentDoneResponse = z.infer<typeof MarkCommitmentDoneResponseSchema>

/** "80% kept" and its longer form for the dashboard. */
export function keptRateText(rate: KeptRate): { value: string; detail: string } {
  if (rate.percent === null) return { value: '—', detail: `No commitments checked in the last ${rate.days} days` }
  const settled = rate.kept + rate.missed
  return { value: `${rate.percent}%`, detail: `${rate.kept} of ${settled} kept in the last ${rate.days} days` }
}
