import { sql } from 'drizzle-orm'
import { bigint, boolean, check, index, integer, pgTable, smallint, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { DEFAULT_COACH_CAPACITY } from '#common/coach'
import { inList } from './helpers'
import { bytea, users } from './users'

/**
 * A coach's profile (docs/decisions/078): what their members see (bio, working week in their own
 * zone, reply-time promise) and how many members they take (`max_members`, set by an admin). A
 * coach is a staff account with the coach role; the row is made with defaults the first time it
 * is needed.
 */
export const coachProfiles = pgTable(
  'coach_profiles',
  {
    userId: uuid()
      .primaryKey()
      .references(() => users.id, { onDelete: 'cascade' }),
    bio: text().notNull().default(''),
    timeZone: text().notNull().default('America/New_York'),
    /** ISO weekdays, 1 Monday … 7 Sunday. */
    workingDays: smallint().array().notNull().default(sql`'{1,2,3,4,5}'::smallint[]`),
    startTime: text().notNull().default('09:00'),
    endTime: text().notNull().default('17:00'),
    replyWithinHours: smallint().notNull().default(4),
    maxMembers: integer().notNull().default(DEFAULT_COACH_CAPACITY),
    /** 1-on-1 sessions (docs/decisions/082): the coach's free time after each, how soon and how far ahead members may book. */
    sessionBufferMinutes: smallint().notNull().default(15),
    minNoticeHours: smallint().notNull().default(24),
    horizonDays: smallint().notNull().default(30),
    updatedAt: timestamp({ withTimezone: true }).notNull(),
  },
  (t) => [
    check('coach_profiles_max_members_check', sql`${t.maxMembers} between 0 and 500`),
    check('coach_profiles_reply_check', sql`${t.replyWithinHours} between 1 and 72`),
    check('coach_profiles_sessions_check', sql`${t.sessionBufferMinutes} between 0 and 120 and ${t.minNoticeHours} between 1 and 168 and ${t.horizonDays} between 7 and 90`),
  ],
)

/**
 * Which coach an Elite member has, with the history: each assignment from `started_at` until
 * `ended_at` (a reassignment ends one and starts the next; a member who leaves Elite has theirs
 * ended). At most one current assignment per member (a unique index on the open rows). `coach_user_id`
 * is null once the coach's account is deleted (the assignment is then ended by the sweep).
 */
export const coachAssignments = pgTable(
  'coach_assignments',
  {
    id: uuid().primaryKey().defaultRandom(),
    memberUserId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    coachUserId: uuid().references(() => users.id, { onDelete: 'set null' }),
    startedAt: timestamp({ withTimezone: true }).notNull(),
    endedAt: timestamp({ withTimezone: true }),
    /** auto: the coach with the most free places; admin: chosen by an admin (assigned_by). */
    how: text({ enum: ['auto', 'admin'] }).notNull(),
    assignedBy: uuid().references(() => users.id, { onDelete: 'set null' }),
  },
  (t) => [
    uniqueIndex('coach_assignments_current_key')
      .on(t.memberUserId)
      .where(sql`${t.endedAt} is null`),
    index('coach_assignments_coach_idx')
      .on(t.coachUserId)
      .where(sql`${t.endedAt} is null`),
    index('coach_assignments_member_idx').on(t.memberUserId, t.startedAt),
    index('coach_assignments_assigned_by_idx').on(t.assignedBy),
    check('coach_assignments_how_check', inList(t.how, ['auto', 'admin'])),
  ],
)

/**
 * A coach's private notes on a member: the member never sees them and their export leaves them out
 * (docs/decisions/078); they go with the member's account. `coach_user_id` is who wrote it.
 */
export const coachNotes = pgTable(
  'coach_notes',
  {
    id: uuid().primaryKey().defaultRandom(),
    memberUserId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    coachUserId: uuid().references(() => users.id, { onDelete: 'set null' }),
    body: text().notNull(),
    createdAt: timestamp({ withTimezone: true }).notNull(),
    updatedAt: timestamp({ withTimezone: true }).notNull(),
  },
  (t) => [index('coach_notes_member_idx').on(t.memberUserId, t.createdAt), index('coach_notes_coach_idx').on(t.coachUserId)],
)

export type CoachProfileRow = typeof coachProfiles.$inferSelect

/**
 * A coach's photo, shown to their members with the profile: the uploaded image decoded and
 * re-encoded by the server (square, at most PHOTO_SIZE pixels, WebP, no metadata), so what is
 * served is never the bytes that were sent. `version` names the image (a hash of its bytes): the
 * URL carries it, so a browser may keep it for good. Goes with the coach's account.
 */
export const coachPhotos = pgTable(
  'coach_photos',
  {
    userId: uuid()
      .primaryKey()
      .references(() => users.id, { onDelete: 'cascade' }),
    image: bytea().notNull(),
    contentType: text().notNull(),
    version: text().notNull(),
    bytes: integer().notNull(),
    updatedAt: timestamp({ withTimezone: true }).notNull(),
  },
  (t) => [check('coach_photos_bytes_check', sql`${t.bytes} between 1 and 1048576`)],
)

/**
 * An Elite member's messages with their coach (docs/decisions/079), both sides in one thread per
 * member (`coach_user_id`: the coach of the time). `read_at` is when the other side read it;
 * `notified_at` when a notice of it went out (or was folded into one); `crisis` when the member's
 * words spoke of suicide or self-harm. Goes with the member's account, and is in their export.
 */
export const coachMessages = pgTable(
  'coach_messages',
  {
    id: uuid().primaryKey().defaultRandom(),
    seq: bigint({ mode: 'number' }).notNull().generatedAlwaysAsIdentity(),
    memberUserId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    coachUserId: uuid().references(() => users.id, { onDelete: 'set null' }),
    from: text({ enum: ['member', 'coach'] }).notNull(),
    body: text().notNull(),
    createdAt: timestamp({ withTimezone: true }).notNull(),
    readAt: timestamp({ withTimezone: true }),
    notifiedAt: timestamp({ withTimezone: true }),
    crisis: boolean().notNull().default(false),
  },
  (t) => [
    index('coach_messages_member_idx').on(t.memberUserId, t.seq),
    index('coach_messages_coach_idx').on(t.coachUserId),
    index('coach_messages_unread_idx')
      .on(t.createdAt)
      .where(sql`${t.readAt} is null and ${t.notifiedAt} is null`),
    check('coach_messages_from_check', inList(t.from, ['member', 'coach'])),
  ],
)
