/**
 * The user activity log behind Days Active (sign-ins, goal saves, completed calls). Data access
 * only: the session check records a sign-in here without depending on the services.
 */
import { and, countDistinct, eq, gte, sql } from 'drizzle-orm'
import type { DbExecutor } from './client'
import { userActivity, type ActivityKind } from './schema'

export async function recordActivity(db: DbExecutor, userId: string, kind: ActivityKind, at: Date): Promise<void> {
  await db.insert(userActivity).values({ userId, kind, occurredAt: at })
}

/**
 * Days Active: the number of distinct calendar days, in the user's time zone, since `since`, on
 * which the user signed in (or came back to a live session), saved goals or had a completed call.
 */
export async function countActiveDays(db: DbExecutor, userId: string, timeZone: string, since: Date): Promise<number> {
  const [row] = await db
    .select({ days: countDistinct(sql`(${userActivity.occurredAt} at time zone ${timeZone})::date`) })
    .from(userActivity)
    .where(and(eq(userActivity.userId, userId), gte(userActivity.occurredAt, since)))
  return Number(row?.days ?? 0)
}
