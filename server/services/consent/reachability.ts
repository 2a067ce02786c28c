/** Whether texts can reach the person's number (the texts service suppresses one Twilio says cannot take them). */
import { and, eq, sql } from 'drizzle-orm'
import type { DbExecutor } from '#server/db/client'
import { profiles, textSuppressions, users } from '#server/db/schema'

/** The person's current number, if texts cannot reach it: the number (E.164), the error and since when. */
export async function undeliverableNumberOf(db: DbExecutor, userId: string): Promise<{ number: string; errorCode: number; since: Date } | null> {
  const [row] = await db
    .select({ number: textSuppressions.toNumber, errorCode: textSuppressions.errorCode, since: textSuppressions.createdAt })
    .from(textSuppressions)
    .innerJoin(users, eq(users.id, textSuppressions.userId))
    .leftJoin(profiles, eq(profiles.id, users.id))
    .where(and(eq(textSuppressions.userId, userId), eq(textSuppressions.toNumber, sql`'+1' || coalesce(${profiles.phoneNumber}, ${users.phoneNumber})`)))
    .limit(1)
  return row ?? null
}
