import { check, index, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core'
import { inList } from './helpers'
import { users } from './users'

export const ACTIVITY_KINDS = ['sign_in', 'goals_saved', 'call_completed'] as const
export type ActivityKind = (typeof ACTIVITY_KINDS)[number]

/**
 * What the user did and when, for the dashboard's Days Active: the distinct days, in the user's
 * time zone, with a sign-in, a goals save or a completed call.
 */
export const userActivity = pgTable(
  'user_activity',
  {
    id: uuid().primaryKey().defaultRandom(),
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    kind: text({ enum: ACTIVITY_KINDS }).notNull(),
    occurredAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('user_activity_user_occurred_at_idx').on(t.userId, t.occurredAt),
    check('user_activity_kind_check', inList(t.kind, ACTIVITY_KINDS)),
  ],
)

