/**
 * The progress page's series (Premium and Elite's detailed analytics): the person's last weeks,
 * each with the weekly report's own figures (the same `reportContent` over the same rows, so the
 * page and the reports never disagree), the week running now with its figures so far, and how
 * often each life area came up. Three reads, each filtered by the person's id.
 */
import { and, eq, gte, inArray, lt, or } from 'drizzle-orm'
import { Temporal } from 'temporal-polyfill'
import { LIFE_AREAS, type LifeArea } from '#common/domain'
import { hasDetailedAnalytics, type ProgressResponse } from '#common/progress'
import type { Db } from '#server/db/client'
import { coachingCalls, commitments, goals, profiles } from '#server/db/schema'
import { AppError } from '#server/lib/app-error'
import type { Clock } from '#server/lib/clock'
import type { Access } from '#server/services/billing'
import { DEFAULT_ZONE, knownTimeZone, nextDueWeek, reportContent, reportWeek, type ReportWeek } from '#server/services/reports'

/** The `weeks` report weeks ending with the one running at `now` (oldest first). */
function progressWeeks(now: Date, timeZone: string, weeks: number): ReportWeek[] {
  const last = Temporal.PlainDate.from(nextDueWeek(now, timeZone).weekEnding)
  return Array.from({ length: weeks }, (_, i) => reportWeek(last.subtract({ days: 7 * (weeks - 1 - i) }).toString(), timeZone))
}

export function createProgress(deps: { db: Db; clock: Clock }) {
  const { db, clock } = deps
  return {
    /**
     * The series of the person's last `weeks` weeks. 403 PLAN_UPGRADE_REQUIRED unless their plan
     * has detailed analytics (the route's guard has already refused anyone not paid).
     */
    async series(userId: string, access: Pick<Access, 'tier'>, weeks: number): Promise<ProgressResponse> {
      if (!hasDetailedAnalytics(access.tier)) throw new AppError('PLAN_UPGRADE_REQUIRED')
      const now = clock.now()
      const [profile] = await db.select({ timeZone: profiles.timezone }).from(profiles).where(eq(profiles.id, userId)).limit(1)
      const timeZone = profile?.timeZone && knownTimeZone(profile.timeZone) ? profile.timeZone : DEFAULT_ZONE
      const span = progressWeeks(now, timeZone, weeks)
      const from = span[0]!.periodStart
      const to = span.at(-1)!.periodEnd

      const [calls, commitmentRows, goalRows] = await Promise.all([
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
          .where(and(eq(coachingCalls.userId, userId), gte(coachingCalls.callDate, from), lt(coachingCalls.callDate, to))),
        db
          .select({ userId: commitments.userId, status: commitments.status, madeAt: commitments.madeAt, resolvedAt: commitments.resolvedAt })
          .from(commitments)
          .where(and(eq(commitments.userId, userId), or(gte(commitments.madeAt, from), gte(commitments.resolvedAt, from)))),
        db
          .select({ userId: goals.userId, lifeArea: goals.lifeArea, satisfactionScore: goals.satisfactionScore, updatedAt: goals.updatedAt })
          .from(goals)
          .where(and(eq(goals.userId, userId), inArray(goals.lifeArea, [...LIFE_AREAS]))),
      ])

      const areaCalls = new Map<LifeArea, number>()
      const series = span.map((week) => {
        const content = reportContent({ id: '', userId, ...week }, { calls, commitments: commitmentRows, goals: goalRows, previous: null })
        for (const { area, calls: count } of content.areasDiscussed) areaCalls.set(area, (areaCalls.get(area) ?? 0) + count)
        return {
          weekEnding: week.weekEnding,
          periodStart: week.periodStart.toISOString(),
          periodEnd: week.periodEnd.toISOString(),
          current: week.periodEnd.getTime() > now.getTime(),
          callsCompleted: content.calls.completed,
          callsMissed: content.calls.missed,
          minutesTalked: content.calls.minutesTalked,
          moodAverage: content.mood.average,
          commitmentsKept: content.commitments.kept,
          commitmentsMissed: content.commitments.missed,
        }
      })
      const scores = new Map(goalRows.map((goal) => [goal.lifeArea, goal.satisfactionScore]))
      return {
        timeZone,
        weeks: series,
        areas: LIFE_AREAS.map((area) => ({ area, calls: areaCalls.get(area) ?? 0, score: scores.get(area) ?? null })),
      }
    },
  }
}
