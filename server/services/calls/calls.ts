import { desc, eq, sql } from 'drizzle-orm'
import { type CoachingCallView } from '#common/calls'
import { RECENT_CALLS_LIMIT, type DashboardStatsResponse } from '#common/dashboard'
import { countActiveDays } from '#server/db/activity'
import type { DbExecutor } from '#server/db/client'
import { prepared } from '#server/db/prepared'
import { coachingCalls, partnerPrograms, profiles, type User } from '#server/db/schema'
import { callLateness } from './lateness'

const lastCallsOfUser = (db: DbExecutor) =>
  prepared(db, 'last_calls_of_user', (db) =>
    db
      .select({
        id: coachingCalls.id,
        callDate: coachingCalls.callDate,
        callDuration: coachingCalls.callDuration,
        areasDiscussed: coachingCalls.areasDiscussed,
        completionStatus: coachingCalls.completionStatus,
        slot: coachingCalls.slot,
        kind: coachingCalls.kind,
        summary: coachingCalls.summary,
        dialledAt: coachingCalls.dialledAt,
        dialWaitReason: coachingCalls.dialWaitReason,
      })
      .from(coachingCalls)
      .where(eq(coachingCalls.userId, sql.placeholder('userId')))
      .orderBy(desc(coachingCalls.callDate), desc(coachingCalls.id))
      .limit(RECENT_CALLS_LIMIT)
      .prepare('last_calls_of_user'),
  )

/** The user's last 5 coaching calls, newest first, each with how late it was placed (if it was). */
export async function recentCalls(db: DbExecutor, userId: string): Promise<CoachingCallView[]> {
  const rows = await lastCallsOfUser(db).execute({ userId })
  return rows.map(({ dialledAt, dialWaitReason, ...row }) => ({
    ...row,
    callDate: row.callDate.toISOString(),
    ...callLateness({ slot: row.slot, callDate: row.callDate, dialledAt, dialWaitReason }),
  }))
}

/**
 * The dashboard's figures that are not goals: Days Active (distinct days in the user's time zone
 * with a sign-in, a goals save or a completed call, since sign-up), Calls Completed (every
 * completed call of the user, not only the five listed) and the partner program with its
 * company's name when it is a partner-company program.
 */
export async function dashboardStats(db: DbExecutor, user: Pick<User, 'id' | 'createdAt'>): Promise<DashboardStatsResponse> {
  const [row] = await db
    .select({
      timezone: profiles.timezone,
      partnerProgram: profiles.partnerProgram,
      companyName: partnerPrograms.companyName,
      callsCompleted: sql<number>`(select count(*)::int from ${coachingCalls} where ${coachingCalls.userId} = ${user.id} and ${coachingCalls.completionStatus} = 'completed')`,
    })
    .from(profiles)
    .leftJoin(partnerPrograms, eq(partnerPrograms.code, profiles.partnerProgram))
    .where(eq(profiles.id, user.id))
    .limit(1)
  const timezone = row?.timezone ?? 'America/New_York'
  const daysActive = await countActiveDays(db, user.id, timezone, user.createdAt)
  return {
    daysActive,
    timezone,
    partnerProgram: row?.partnerProgram ?? 'GENERAL',
    partnerCompanyName: row?.companyName ?? null,
    callsCompleted: Number(row?.callsCompleted ?? 0),
  }
}
