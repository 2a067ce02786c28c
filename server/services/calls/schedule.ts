/**
 * The daily call schedule as the goal intake saved it on the profile: the one place that reads
 * it, so a change made with Edit Goals is what the scheduler sees next.
 */
import { and, asc, eq, isNotNull, sql } from 'drizzle-orm'
import type { DbExecutor } from '#server/db/client'
import { profiles } from '#server/db/schema'

export type CallSchedule = {
  userId: string
  /** IANA time zone name. */
  timeZone: string
  /** Local wall-clock time of the daily call, 'HH:MM' (24-hour). */
  dailyCallTime: string
}

/**
 * The user's daily call schedule as last saved (Edit Goals changes it at once), or null when the
 * user has not chosen a call time. The scheduler must read it through here, not from the table.
 */
export async function getCallSchedule(db: DbExecutor, userId: string): Promise<CallSchedule | null> {
  const [row] = await db
    .select({ timeZone: profiles.timezone, dailyCallTime: profiles.dailyCallTime })
    .from(profiles)
    .where(and(eq(profiles.id, userId), isNotNull(profiles.dailyCallTime)))
    .limit(1)
  if (!row?.dailyCallTime) return null
  return { userId, timeZone: row.timeZone, dailyCallTime: row.dailyCallTime.slice(0, 5) }
}

/**
 * Users whose local call time falls in [from, to) (to − from under 24 hours), each in their own
 * time zone, among those who completed onboarding. A scheduler that ticks every minute passes the
 * last tick and now, so a late tick never skips anyone. Whether each user may be called (paid)
 * is for the caller to check with getAccess.
 */
export async function listUsersDueForCall(db: DbExecutor, from: Date, to: Date): Promise<CallSchedule[]> {
  if (!(to.getTime() > from.getTime()) || to.getTime() - from.getTime() >= 86_400_000) {
    throw new RangeError('listUsersDueForCall: the window must be longer than 0 and shorter than 24 hours')
  }
  const localFrom = sql`(${from.toISOString()}::timestamptz at time zone ${profiles.timezone})::time`
  const localTo = sql`(${to.toISOString()}::timestamptz at time zone ${profiles.timezone})::time`
  const rows = await db
    .select({ userId: profiles.id, timeZone: profiles.timezone, dailyCallTime: profiles.dailyCallTime })
    .from(profiles)
    .where(
      and(
        isNotNull(profiles.dailyCallTime),
        eq(profiles.onboardingCompleted, true),
        sql`case when ${localFrom} <= ${localTo}
              then ${profiles.dailyCallTime} >= ${localFrom} and ${profiles.dailyCallTime} < ${localTo}
              else ${profiles.dailyCallTime} >= ${localFrom} or ${profiles.dailyCallTime} < ${localTo} end`,
      ),
    )
    .orderBy(asc(profiles.id))
  return rows.map((row) => ({ userId: row.userId, timeZone: row.timeZone, dailyCallTime: row.dailyCallTime!.slice(0, 5) }))
}
