/**
 * A weekly report's figures, computed for a batch of claimed reports at once: four reads for the
 * whole batch (their calls, commitments, goals and the weeks before's reports), the figures in
 * memory, and one statement that writes them all. A report is written once (`generated_at is null`).
 */
import { and, eq, gte, inArray, isNull, lt, or, sql } from 'drizzle-orm'
import { Temporal } from 'temporal-polyfill'
import { LIFE_AREAS, NOT_REACHED_STATUSES, type LifeArea } from '#common/domain'
import type { AreaScore, WeeklyReportContent } from '#common/reports'
import type { DbExecutor } from '#server/db/client'
import { coachingCalls, commitments, goals, weeklyReports } from '#server/db/schema'
import { localDateOf } from '#server/services/calls'
import { reportWeek } from './week'

/** A claimed report: the person, the week and its zone. */
export type ClaimedReport = { id: string; userId: string; weekEnding: string; timeZone: string; periodStart: Date; periodEnd: Date }

type CallRow = {
  userId: string
  slot: string
  localDate: string | null
  completionStatus: string
  callDate: Date
  callDuration: number
  areasDiscussed: string[]
  mood: number | null
}
type CommitmentRow = { userId: string; status: string; madeAt: Date; resolvedAt: Date | null }
type GoalRow = { userId: string; lifeArea: string; satisfactionScore: number | null; updatedAt: Date }

const NOT_REACHED = new Set<string>(NOT_REACHED_STATUSES)
const within = (at: Date, from: Date, to: Date) => at.getTime() >= from.getTime() && at.getTime() < to.getTime()
const oneDecimal = (value: number) => Math.round(value * 10) / 10

/** The Sunday a week before `weekEnding`. */
const weekBefore = (weekEnding: string) => Temporal.PlainDate.from(weekEnding).subtract({ days: 7 }).toString()

function averageMood(calls: readonly CallRow[]): number | null {
  const moods = calls.filter((call) => call.completionStatus === 'completed' && call.mood !== null).map((call) => call.mood!)
  return moods.length === 0 ? null : oneDecimal(moods.reduce((sum, mood) => sum + mood, 0) / moods.length)
}

/**
 * One report's figures from the person's rows (any rows outside its week are ignored):
 * - calls completed (every completed call in the week), missed (a daily or evening call whose
 *   tries all failed to reach the person: no answer, busy or voicemail), and time talked;
 * - the life areas discussed in the completed calls, most discussed first;
 * - commitments made in the week, kept and missed in the week, open now;
 * - the mood of each completed call with one, its average against the week before's, and the trend;
 * - each life area's score now against the week before: the week before's report when there is
 *   one, else the score itself when it has not changed since the week began, else unknown.
 */
export function reportContent(
  report: ClaimedReport,
  rows: { calls: readonly CallRow[]; commitments: readonly CommitmentRow[]; goals: readonly GoalRow[]; previous: WeeklyReportContent | null },
): WeeklyReportContent {
  const { periodStart, periodEnd, timeZone } = report
  const week = rows.calls.filter((call) => within(call.callDate, periodStart, periodEnd))
  const completed = week.filter((call) => call.completionStatus === 'completed')

  const slots = new Map<string, CallRow[]>()
  for (const call of week) {
    if ((call.slot !== 'daily' && call.slot !== 'evening') || !call.localDate) continue
    const key = `${call.slot}|${call.localDate}`
    slots.set(key, [...(slots.get(key) ?? []), call])
  }
  let missed = 0
  for (const tries of slots.values()) {
    if (!tries.some((call) => call.completionStatus === 'completed') && tries.some((call) => NOT_REACHED.has(call.completionStatus))) missed++
  }
  const secondsTalked = completed.reduce((sum, call) => sum + call.callDuration, 0)

  const areaCounts = new Map<LifeArea, number>()
  for (const call of completed) {
    for (const area of new Set(call.areasDiscussed)) {
      if ((LIFE_AREAS as readonly string[]).includes(area)) areaCounts.set(area as LifeArea, (areaCounts.get(area as LifeArea) ?? 0) + 1)
    }
  }
  const areasDiscussed = [...areaCounts]
    .map(([area, calls]) => ({ area, calls }))
    .sort((a, b) => b.calls - a.calls || LIFE_AREAS.indexOf(a.area) - LIFE_AREAS.indexOf(b.area))

  const made = rows.commitments.filter((row) => within(row.madeAt, periodStart, periodEnd)).length
  const settled = rows.commitments.filter((row) => row.resolvedAt !== null && within(row.resolvedAt, periodStart, periodEnd))
  const open = rows.commitments.filter((row) => row.status === 'open').length

  const previousWeek = reportWeek(weekBefore(report.weekEnding), timeZone)
  const before = rows.calls.filter((call) => within(call.callDate, previousWeek.periodStart, periodStart))
  const average = averageMood(week)
  const previousAverage = averageMood(before)
  const trend = average === null || previousAverage === null ? null : average - previousAverage >= 0.5 ? 'up' : previousAverage - average >= 0.5 ? 'down' : 'steady'
  const points = completed
    .filter((call) => call.mood !== null)
    .sort((a, b) => a.callDate.getTime() - b.callDate.getTime())
    .map((call) => ({ localDate: call.localDate ?? localDateOf(call.callDate, timeZone), at: call.callDate.toISOString(), mood: call.mood! }))

  const goalOf = new Map(rows.goals.map((goal) => [goal.lifeArea, goal]))
  const previousScores = new Map(rows.previous?.scores.map((score) => [score.area, score.score]) ?? [])
  const scores: AreaScore[] = LIFE_AREAS.map((area) => {
    const goal = goalOf.get(area)
    const score = goal?.satisfactionScore ?? null
    const previous = rows.previous ? (previousScores.get(area) ?? null) : goal && goal.updatedAt.getTime() < periodStart.getTime() ? score : null
    return { area, score, previous, change: score !== null && previous !== null ? score - previous : null }
  })

  return {
    calls: { completed: completed.length, missed, secondsTalked, minutesTalked: Math.round(secondsTalked / 60) },
    areasDiscussed,
    commitments: { made, kept: settled.filter((row) => row.status === 'kept').length, missed: settled.filter((row) => row.status === 'missed').length, open },
    mood: { points, average, previousAverage, trend },
    scores,
  }
}

const rowsOf = <T>(result: unknown): T[] => (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[]

/** Computes and writes the figures of claimed reports not generated yet; returns how many it wrote. */
export async function generateReports(db: DbExecutor, reports: readonly ClaimedReport[], now: Date): Promise<number> {
  if (reports.length === 0) return 0
  const userIds = [...new Set(reports.map((report) => report.userId))]
  const from = new Date(Math.min(...reports.map((report) => reportWeek(weekBefore(report.weekEnding), report.timeZone).periodStart.getTime())))
  const to = new Date(Math.max(...reports.map((report) => report.periodEnd.getTime())))
  const [calls, commitmentRows, goalRows, previousRows] = await Promise.all([
    db
      .select({
        userId: coachingCalls.userId,
        slot: coachingCalls.slot,
        localDate: coachingCalls.localDate,
        completionStatus: coachingCalls.completionStatus,
        callDate: coachingCalls.callDate,
        callDuration: coachingCalls.callDuration,
        areasDiscussed: coachingCalls.areasDiscussed,
        mood: coachingCalls.mood,
      })
      .from(coachingCalls)
      .where(and(inArray(coachingCalls.userId, userIds), gte(coachingCalls.callDate, from), lt(coachingCalls.callDate, to))),
    db
      .select({ userId: commitments.userId, status: commitments.status, madeAt: commitments.madeAt, resolvedAt: commitments.resolvedAt })
      .from(commitments)
      .where(and(inArray(commitments.userId, userIds), or(eq(commitments.status, 'open'), gte(commitments.madeAt, from), gte(commitments.resolvedAt, from)))),
    db
      .select({ userId: goals.userId, lifeArea: goals.lifeArea, satisfactionScore: goals.satisfactionScore, updatedAt: goals.updatedAt })
      .from(goals)
      .where(and(inArray(goals.userId, userIds), inArray(goals.lifeArea, [...LIFE_AREAS]))),
    db
      .select({ userId: weeklyReports.userId, weekEnding: weeklyReports.weekEnding, content: weeklyReports.content })
      .from(weeklyReports)
      .where(and(inArray(weeklyReports.userId, userIds), inArray(weeklyReports.weekEnding, [...new Set(reports.map((report) => weekBefore(report.weekEnding)))]))),
  ])
  const byUser = <T extends { userId: string }>(rows: readonly T[]) => {
    const map = new Map<string, T[]>()
    for (const row of rows) map.set(row.userId, [...(map.get(row.userId) ?? []), row])
    return map
  }
  const callsBy = byUser(calls)
  const commitmentsBy = byUser(commitmentRows)
  const goalsBy = byUser(goalRows)
  const previousBy = new Map(previousRows.map((row) => [`${row.userId}|${row.weekEnding}`, row.content]))
  const values = reports.map((report) => {
    const content = reportContent(report, {
      calls: callsBy.get(report.userId) ?? [],
      commitments: commitmentsBy.get(report.userId) ?? [],
      goals: goalsBy.get(report.userId) ?? [],
      previous: previousBy.get(`${report.userId}|${weekBefore(report.weekEnding)}`) ?? null,
    })
    return sql`(${report.id}::uuid, ${JSON.stringify(content)}::jsonb)`
  })
  const written = await db.execute(sql`
    update ${weeklyReports} set content = v.content, generated_at = ${now.toISOString()}::timestamptz, updated_at = ${now.toISOString()}::timestamptz
    from (values ${sql.join(values, sql`, `)}) as v(id, content)
    where ${weeklyReports.id} = v.id and ${weeklyReports.generatedAt} is null
    returning ${weeklyReports.id}`)
  return rowsOf<{ id: string }>(written).length
}

/** Claimed reports whose figures are not written yet (a tick that stopped between the claim and the figures). */
export async function ungeneratedReports(db: DbExecutor, before: Date, limit: number): Promise<ClaimedReport[]> {
  return db
    .select({
      id: weeklyReports.id,
      userId: weeklyReports.userId,
      weekEnding: weeklyReports.weekEnding,
      timeZone: weeklyReports.timeZone,
      periodStart: weeklyReports.periodStart,
      periodEnd: weeklyReports.periodEnd,
    })
    .from(weeklyReports)
    .where(and(isNull(weeklyReports.generatedAt), lt(weeklyReports.createdAt, before)))
    .limit(limit)
}
