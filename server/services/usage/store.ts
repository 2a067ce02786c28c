/**
 * The usage tables (docs/decisions/061): the person and their access as the budget reads them, the
 * month's and the day's sums, a chat turn taken under the person's lock, and a voice call's
 * seconds written so that a repeated count never adds twice.
 */
import { and, eq, gte, lt, sql, type SQL } from 'drizzle-orm'
import { accessColumns } from '#server/db/access'
import type { DbExecutor } from '#server/db/client'
import { profiles, subscribers, usageDays, usageVoiceCalls, users } from '#server/db/schema'
import type { Periods, Used } from './budgets'

/** The person's zone and the paid rule's columns, in one statement (null: no such user). */
export async function readPerson(db: DbExecutor, userId: string) {
  const [row] = await db
    .select({ ...accessColumns, timeZone: profiles.timezone })
    .from(users)
    .leftJoin(profiles, eq(profiles.id, users.id))
    .leftJoin(subscribers, eq(subscribers.userId, users.id))
    .where(eq(users.id, userId))
    .limit(1)
  return row ?? null
}

/** What the person used in the month and on the day of `periods`, in one statement (their users row anchors it). */
export async function readUsed(db: DbExecutor, userId: string, periods: Periods): Promise<Used> {
  const voice = (where: SQL) => sql<number>`(select coalesce(sum(${usageVoiceCalls.seconds}), 0) from ${usageVoiceCalls} where ${usageVoiceCalls.userId} = ${users.id} and ${where})`.mapWith(Number)
  const chat = (where: SQL) => sql<number>`(select coalesce(sum(${usageDays.chatTurns}), 0) from ${usageDays} where ${usageDays.userId} = ${users.id} and ${where})`.mapWith(Number)
  const [row] = await db
    .select({
      voiceMonth: voice(and(gte(usageVoiceCalls.localDate, periods.monthFrom), lt(usageVoiceCalls.localDate, periods.monthTo))!),
      voiceDay: voice(eq(usageVoiceCalls.localDate, periods.date)),
      chatMonth: chat(and(gte(usageDays.localDate, periods.monthFrom), lt(usageDays.localDate, periods.monthTo))!),
      chatDay: chat(eq(usageDays.localDate, periods.date)),
    })
    .from(users)
    .where(eq(users.id, userId))
  return row ?? { voiceMonth: 0, voiceDay: 0, chatMonth: 0, chatDay: 0 }
}

/**
 * Serialises one person's chat turns until the transaction ends, on every server (a PostgreSQL
 * advisory lock): the turns left are read and taken one transaction at a time.
 */
export async function lockPersonUsage(tx: DbExecutor, userId: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`usage:${userId}`}))`)
}

/** One more chat turn on the person's local date. */
export async function addChatTurn(tx: DbExecutor, userId: string, localDate: string, now: Date): Promise<void> {
  await tx
    .insert(usageDays)
    .values({ userId, localDate, chatTurns: 1, updatedAt: now })
    .onConflictDoUpdate({ target: [usageDays.userId, usageDays.localDate], set: { chatTurns: sql`${usageDays.chatTurns} + 1`, updatedAt: now } })
}

/**
 * A voice call's seconds so far: raised to `seconds`, never lowered, so the gateway's counts while
 * the call lives, its count at the end and Vapi's billed duration may come in any order, any
 * number of times. Only the person's own call is written (the call row is theirs).
 */
export async function countVoiceCall(db: DbExecutor, input: { callId: string; userId: string; localDate: string; seconds: number; now: Date }): Promise<void> {
  const seconds = Math.max(0, Math.ceil(input.seconds))
  await db
    .insert(usageVoiceCalls)
    .values({ callId: input.callId, userId: input.userId, localDate: input.localDate, seconds, updatedAt: input.now })
    .onConflictDoUpdate({
      target: usageVoiceCalls.callId,
      set: { seconds: sql`greatest(${usageVoiceCalls.seconds}, excluded.seconds)`, updatedAt: input.now },
      where: sql`${usageVoiceCalls.userId} = ${input.userId} and ${usageVoiceCalls.seconds} < excluded.seconds`,
    })
}
