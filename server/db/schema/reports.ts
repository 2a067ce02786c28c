import { sql } from 'drizzle-orm'
import { check, date, index, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { REPORT_EMAIL_STATUSES, REPORT_TEXT_STATUSES, type WeeklyReportContent } from '#common/reports'
import { inList } from './helpers'
import { bytea, timestamps, users } from './users'

/**
 * A person's weekly progress report. The row is also its claim: it is inserted when the report
 * comes due (Sunday 6:00 PM in the person's zone), and the unique (user, week ending) key means a
 * second scheduler, worker or server can never make the same person-week twice. The content is
 * written once, then the email and the text are each claimed on the row before they are sent.
 */
export const weeklyReports = pgTable(
  'weekly_reports',
  {
    id: uuid().primaryKey().defaultRandom(),
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The person's local date of the Sunday the week ends on (the report's key and its URL). */
    weekEnding: date({ mode: 'string' }).notNull(),
    /** The zone the week was computed in. */
    timeZone: text().notNull(),
    /** The week: from the Sunday before at 6:00 PM local to this Sunday at 6:00 PM local (when it is due). */
    periodStart: timestamp({ withTimezone: true }).notNull(),
    periodEnd: timestamp({ withTimezone: true }).notNull(),
    /** The figures (null until generated, right after the claim). */
    content: jsonb().$type<WeeklyReportContent>(),
    generatedAt: timestamp({ withTimezone: true }),
    /** pending → sending (claimed by a sender) → sent; or skipped (why in email_skip_reason) or failed. */
    emailStatus: text({ enum: REPORT_EMAIL_STATUSES }).notNull().default('pending'),
    emailSkipReason: text(),
    emailClaimedAt: timestamp({ withTimezone: true }),
    emailSentAt: timestamp({ withTimezone: true }),
    /** The SHA-256 of the email's one-click unsubscribe secret (the token is `<report id>.<secret>`). */
    unsubscribeTokenHash: bytea(),
    /** pending → requested (handed to the texts service, which holds, caps and sends it); or skipped. */
    textStatus: text({ enum: REPORT_TEXT_STATUSES }).notNull().default('pending'),
    textSkipReason: text(),
    textRequestedAt: timestamp({ withTimezone: true }),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('weekly_reports_user_week_key').on(t.userId, t.weekEnding),
    // The report pages: a person's weeks, newest first.
    index('weekly_reports_user_period_idx').on(t.userId, t.periodEnd.desc()),
    // The tick's catch-up: claims not generated or not delivered yet.
    index('weekly_reports_undelivered_idx')
      .on(t.periodEnd)
      .where(sql`${t.generatedAt} is null or ${t.emailStatus} in ('pending', 'sending') or ${t.textStatus} = 'pending'`),
    check('weekly_reports_email_status_check', inList(t.emailStatus, REPORT_EMAIL_STATUSES)),
    check('weekly_reports_text_status_check', inList(t.textStatus, REPORT_TEXT_STATUSES)),
    check('weekly_reports_period', sql`${t.periodStart} < ${t.periodEnd}`),
    check('weekly_reports_generated', sql`(${t.content} is null) = (${t.generatedAt} is null)`),
  ],
)

export type WeeklyReport = typeof weeklyReports.$inferSelect
