import { sql } from 'drizzle-orm'
import { check, index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { GOAL_RECORD_KINDS, SATISFACTION_MAX, SATISFACTION_MIN } from '#common/domain'
import { goalTemplateVersions } from './goal-templates'
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
    /** The goal template version the intake that wrote this record started from (docs/decisions/081); a version never changes, so this is what the member took. */
    templateVersionId: uuid().references(() => goalTemplateVersions.id),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('goals_user_life_area_key').on(t.userId, t.lifeArea),
    index('goals_template_version_idx').on(t.templateVersionId),
    check('goals_life_area_check', inList(t.lifeArea, GOAL_RECORD_KINDS)),
    check(
      'goals_satisfaction_score_range',
      sql`${t.satisfactionScore} is null or ${t.satisfactionScore} between ${sql.raw(String(SATISFACTION_MIN))} and ${sql.raw(String(SATISFACTION_MAX))}`,
    ),
  ],
)

export type Goal = typeof goals.$inferSelect
