import { sql } from 'drizzle-orm'
import { boolean, check, date, index, integer, pgTable, smallint, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { inList } from './helpers'
import { users } from './users'

/**
 * A coach's weekly hours for 1-on-1 sessions (docs/decisions/082): windows on ISO weekdays (1 Monday
 * … 7 Sunday) in the coach's own zone (their profile's). A coach with none books in their profile's
 * working week.
 */
export const coachAvailability = pgTable(
  'coach_availability',
  {
    id: uuid().primaryKey().defaultRandom(),
    coachUserId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    weekday: smallint().notNull(),
    startTime: text().notNull(),
    endTime: text().notNull(),
  },
  (t) => [
    index('coach_availability_coach_idx').on(t.coachUserId),
    check('coach_availability_weekday_check', sql`${t.weekday} between 1 and 7`),
    check('coach_availability_times_check', sql`${t.endTime} > ${t.startTime}`),
  ],
)

/** A day off (no hours), or extra hours on one date, in the coach's own zone. */
export const coachAvailabilityExceptions = pgTable(
  'coach_availability_exceptions',
  {
    id: uuid().primaryKey().defaultRandom(),
    coachUserId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    date: date({ mode: 'string' }).notNull(),
    kind: text({ enum: ['off', 'extra'] }).notNull(),
    /** The extra hours (null for a day off). */
    startTime: text(),
    endTime: text(),
  },
  (t) => [
    index('coach_availability_exceptions_coach_idx').on(t.coachUserId, t.date),
    check('coach_availability_exceptions_kind_check', inList(t.kind, ['off', 'extra'])),
    check('coach_availability_exceptions_hours_check', sql`(${t.kind} = 'off') or (${t.startTime} is not null and ${t.endTime} is not null and ${t.endTime} > ${t.startTime})`),
  ],
)

export const COACH_SESSION_KINDS = ['monthly', 'onboarding'] as const
/**
 * held: a member chose the slot and is confirming (until hold_expires_at); booked; cancelled;
 * completed (the coach wrote the summary); no_show (marked by the coach).
 */
export const COACH_SESSION_STATUSES = ['held', 'booked', 'cancelled', 'completed', 'no_show'] as const

/**
 * Elite's 1-on-1 sessions and the holds on slots, one table so that one constraint covers both
 * (docs/decisions/082): no two live rows (held or booked) of a coach overlap in
 * [starts_at, blocked_until) (the session and the coach's buffer after it) — the exclusion
 * constraint, added by hand in the migration, makes a double booking impossible to store. A
 * member's month (`month`, YYYY-MM in their zone when booked) has one monthly session that counts:
 * booked, completed, a no-show, or cancelled late (`counts`). A reschedule moves the row (the same
 * calendar UID) and raises `sequence`.
 */
export const coachSessions = pgTable(
  'coach_sessions',
  {
    id: uuid().primaryKey().defaultRandom(),
    memberUserId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    coachUserId: uuid().references(() => users.id, { onDelete: 'set null' }),
    kind: text({ enum: COACH_SESSION_KINDS }).notNull(),
    status: text({ enum: COACH_SESSION_STATUSES }).notNull(),
    startsAt: timestamp({ withTimezone: true }).notNull(),
    endsAt: timestamp({ withTimezone: true }).notNull(),
    /** The session's end plus the coach's buffer: the coach's time it takes. */
    blockedUntil: timestamp({ withTimezone: true }).notNull(),
    /** A hold lapses then (and stops blocking once cleared). */
    holdExpiresAt: timestamp({ withTimezone: true }),
    /** A hold that would move this booked session (a reschedule) rather than book a new one. */
    movesSessionId: uuid(),
    /** The member's zone and calendar month (YYYY-MM) of the start. */
    memberTimeZone: text().notNull(),
    month: text().notNull(),
    /** Whether it uses the month's session (true once booked; false when cancelled in time). */
    counts: boolean().notNull().default(false),
    /** iCalendar SEQUENCE: raised on each reschedule and on the cancel. */
    sequence: integer().notNull().default(0),
    meeting: text({ enum: ['phone', 'video'] })
      .notNull()
      .default('phone'),
    videoUrl: text(),
    summary: text(),
    commitments: text().array(),
    reminder24hAt: timestamp({ withTimezone: true }),
    reminder1hAt: timestamp({ withTimezone: true }),
    coachReminder24hAt: timestamp({ withTimezone: true }),
    coachReminder1hAt: timestamp({ withTimezone: true }),
    bookedAt: timestamp({ withTimezone: true }),
    cancelledAt: timestamp({ withTimezone: true }),
    createdAt: timestamp({ withTimezone: true }).notNull(),
    updatedAt: timestamp({ withTimezone: true }).notNull(),
  },
  (t) => [
    index('coach_sessions_member_idx').on(t.memberUserId, t.startsAt),
    index('coach_sessions_coach_idx').on(t.coachUserId, t.startsAt),
    // The reminder job reads the booked sessions of the next day.
    index('coach_sessions_booked_idx')
      .on(t.startsAt)
      .where(sql`${t.status} = 'booked'`),
    // One session that counts per member, kind and month (onboarding: one ever, its month 'onboarding').
    uniqueIndex('coach_sessions_month_key')
      .on(t.memberUserId, t.kind, t.month)
      .where(sql`${t.counts}`),
    check('coach_sessions_kind_check', inList(t.kind, COACH_SESSION_KINDS)),
    check('coach_sessions_status_check', inList(t.status, COACH_SESSION_STATUSES)),
    check('coach_sessions_meeting_check', inList(t.meeting, ['phone', 'video'])),
    check('coach_sessions_range_check', sql`${t.endsAt} > ${t.startsAt} and ${t.blockedUntil} >= ${t.endsAt}`),
  ],
)

export type CoachSessionRow = typeof coachSessions.$inferSelect
