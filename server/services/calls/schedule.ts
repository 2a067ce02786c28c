/**
 * The daily call schedule as the goal intake saved it on the profile: the one place that reads
 * it, so a change made with Edit Goals is what the scheduler sees next.
 */
import { and, eq, isNotNull } from 'drizzle-orm'
import type { DbExecutor } from '#server/db/client'
import { profiles } from '#server/db/schema'

type CallSchedule = {
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
