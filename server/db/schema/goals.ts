import { relations, sql } from 'drizzle-orm'
import { check, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { CALL_STATUSES, GOAL_RECORD_KINDS, SATISFACTION_MAX, SATISFACTION_MIN } from '#common/domain'
import { inList } from './helpers'
import { timestamps, users } from './users'

/** One row per user and life area (plus the company_industry and specific_goals records). */
export const goals = pgTable(
  'goals',
  {
    id: uuid().primaryKey().defaultRandom(),
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    lifeArea: text({ enum: GOAL_RECORD_KINDS }).notNull(),
    selectedOptions: text().array().notNull().default(sql`'{}'::text[]`),
    satisfactionScore: integer(),
    customNotes: text(),
    specificGoals: jsonb().$type<Record<string, string | null>>(),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('goals_user_life_area_key').on(t.userId, t.lifeArea),
    check('goals_life_area_check', inList(t.lifeArea, GOAL_RECORD_KINDS)),
    check(
      'goals_satisfaction_score_range',
      sql`${t.satisfactionScore} is null or ${t.satisfactionScore} between ${sql.raw(String(SATISFACTION_MIN))} and ${sql.raw(String(SATISFACTION_MAX))}`,
    ),
  ],
)

/** A daily AI coaching call. */
export const coachingCalls = pgTable(
  'coaching_calls',
  {
    id: uuid().primaryKey().defaultRandom(),
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    callDate: timestamp({ withTimezone: true }).notNull(),
    /** Seconds. */
    callDuration: integer().notNull().default(0),
    areasDiscussed: text().array().notNull().default(sql`'{}'::text[]`),
    completionStatus: text({ enum: CALL_STATUSES }).notNull().default('scheduled'),
    /** The provider's call id once the call is placed. */
    vapiCallId: text(),
    summary: text(),
    ...timestamps,
  },
  (t) => [
    index('coaching_calls_user_call_date_idx').on(t.userId, t.callDate.desc()),
    uniqueIndex('coaching_calls_vapi_call_id_key').on(t.vapiCallId),
    check('coaching_calls_status_check', inList(t.completionStatus, CALL_STATUSES)),
    check('coaching_calls_duration_nonnegative', sql`${t.callDuration} >= 0`),
  ],
)

export const goalsRelations = relations(goals, ({ one }) => ({
  user: one(users, { fields: [goals.userId], references: [users.id] }),
}))

export const coachingCallsRelations = relations(coachingCalls, ({ one }) => ({
  user: one(users, { fields: [coachingCalls.userId], references: [users.id] }),
}))

export type Goal = typeof goals.$inferSelect
export type CoachingCall = typeof coachingCalls.$inferSelect
