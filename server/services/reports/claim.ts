/**
 * The weekly reports' claims. Every minute the tick works out, per time zone the members live in,
 * the latest Sunday 6:00 PM that has passed (with Temporal, in that zone), and claims a report for
 * each paid, onboarded member of a zone whose Sunday 6:00 PM passed less than CATCH_UP_MS ago and
 * who has none for that week yet: one INSERT … SELECT for all of them. The unique (user, week
 * ending) key makes the claim exactly once per person-week, whatever number of schedulers,
 * workers or servers run the tick at the same moment.
 */
import { and, eq, inArray, isNotNull, sql } from 'drizzle-orm'
import type { Logger } from 'pino'
import type { DbExecutor } from '#server/db/client'
import { profiles, users, weeklyReports, subscribers } from '#server/db/schema'
import { paidUserCondition } from '#server/services/billing'
import type { ClaimedReport } from './generate'
import { knownTimeZone, latestDueWeek, type ReportWeek } from './week'

/** A report is claimed up to this long after its Sunday 6:00 PM (a scheduler that was down catches up). */
export const CATCH_UP_MS = 12 * 60 * 60_000

/** The zone a profile without one is in (as the calls read it). */
export const DEFAULT_ZONE = 'America/New_York'

/** The farthest ahead of and behind UTC a zone is (Kiribati's +14:00, Baker Island's −12:00). */
const AHEAD_MS = 14 * 60 * 60_000
const BEHIND_MS = 12 * 60 * 60_000
const WEEK_MS = 7 * 24 * 60 * 60_000
const SLACK_MS = 60 * 60_000

/**
 * Whether some zone's Sunday 6:00 PM, or its catch-up, can fall at `now`: from Sunday 4:00 AM UTC
 * (18:00 at +14:00) to Monday 6:00 AM UTC (18:00 at −12:00) plus the catch-up, with an hour's
 * slack each side. The tick reads nothing the rest of the week.
 */
export function mayBeDue(now: Date): boolean {
  // Sunday 18:00 UTC of the week `now` falls in (weeks counted from Sunday 4 January 1970).
  const sunday1800 = Date.UTC(1970, 0, 4, 18)
  const sinceSunday = (((now.getTime() - sunday1800) % WEEK_MS) + WEEK_MS) % WEEK_MS
  const from = WEEK_MS - AHEAD_MS - SLACK_MS
  const to = BEHIND_MS + CATCH_UP_MS + SLACK_MS
  return sinceSunday >= from || sinceSunday <= to
}

const rowsOf = <T>(result: unknown): T[] => (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[]

/** The weeks due now: per zone the members live in, its latest Sunday 6:00 PM, if within the catch-up. */
export async function dueWeeks(db: DbExecutor, now: Date, log: Logger): Promise<ReportWeek[]> {
  const zones = await db
    .selectDistinct({ zone: sql<string>`coalesce(${profiles.timezone}, ${DEFAULT_ZONE})` })
    .from(profiles)
    .where(eq(profiles.onboardingCompleted, true))
  const due: ReportWeek[] = []
  for (const { zone } of zones) {
    if (!knownTimeZone(zone)) {
      log.warn({ zone }, 'weekly reports: a profile has a time zone Temporal does not know; its members get no report')
      continue
    }
    const week = latestDueWeek(now, zone)
    if (now.getTime() - week.periodEnd.getTime() < CATCH_UP_MS) due.push(week)
  }
  return due
}

/** Claims the reports of `weeks` for every member who should get one and has none yet; returns the claims. */
export async function claimReports(db: DbExecutor, weeks: readonly ReportWeek[], now: Date): Promise<ClaimedReport[]> {
  if (weeks.length === 0) return []
  const values = sql.join(
    weeks.map((week) => sql`(${week.timeZone}::text, ${week.weekEnding}::date, ${week.periodStart.toISOString()}::timestamptz, ${week.periodEnd.toISOString()}::timestamptz)`),
    sql`, `,
  )
  const at = now.toISOString()
  const result = await db.execute(sql`
    insert into ${weeklyReports} (user_id, week_ending, time_zone, period_start, period_end, created_at, updated_at)
    select ${profiles.id}, z.week_ending, z.zone, z.period_start, z.period_end, ${at}::timestamptz, ${at}::timestamptz
    from ${profiles}
    join ${users} on ${users.id} = ${profiles.id}
    left join ${subscribers} on ${subscribers.userId} = ${profiles.id}
    join (values ${values}) as z(zone, week_ending, period_start, period_end) on z.zone = coalesce(${profiles.timezone}, ${DEFAULT_ZONE})
    where ${profiles.onboardingCompleted} = true
      and ${users.createdAt} < z.period_end
      and ${paidUserCondition(now)}
      and not exists (select 1 from ${weeklyReports} r where r.user_id = ${profiles.id} and r.week_ending = z.week_ending)
    on conflict (user_id, week_ending) do nothing
    returning ${weeklyReports.id}`)
  const ids = rowsOf<{ id: string }>(result).map((row) => row.id)
  if (ids.length === 0) return []
  const claimed: ClaimedReport[] = []
  for (let i = 0; i < ids.length; i += 1000) {
    claimed.push(
      ...(await db
        .select({
          id: weeklyReports.id,
          userId: weeklyReports.userId,
          weekEnding: weeklyReports.weekEnding,
          timeZone: weeklyReports.timeZone,
          periodStart: weeklyReports.periodStart,
          periodEnd: weeklyReports.periodEnd,
        })
        .from(weeklyReports)
        .where(inArray(weeklyReports.id, ids.slice(i, i + 1000)))),
    )
  }
  return claimed
}

/** Generated reports whose email or text is still to go (the delivery job was lost), claimed before `before`. */
export async function undeliveredReports(db: DbExecutor, before: Date, since: Date, limit: number): Promise<string[]> {
  const rows = await db
    .select({ id: weeklyReports.id })
    .from(weeklyReports)
    .where(
      and(
        isNotNull(weeklyReports.generatedAt),
        sql`(${weeklyReports.emailStatus} = 'pending' or ${weeklyReports.textStatus} = 'pending')`,
        sql`${weeklyReports.createdAt} < ${before.toISOString()}::timestamptz`,
        sql`${weeklyReports.periodEnd} >= ${since.toISOString()}::timestamptz`,
      ),
    )
    .limit(limit)
  return rows.map((row) => row.id)
}
