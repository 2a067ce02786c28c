import { sql } from 'drizzle-orm'
import { check, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { GOAL_TEMPLATE_OFFER_STATUSES, type GoalTemplateTargets } from '#common/goal-templates'
import { inList } from './helpers'
import { users } from './users'

/**
 * A goal template (docs/decisions/081): written by a coach or an admin (`created_by`, null for the
 * seed's starters and once the author's account is gone), archived rather than deleted, and
 * `current_version` naming the version members are shown. Its content lives in its versions.
 */
export const goalTemplates = pgTable(
  'goal_templates',
  {
    id: uuid().primaryKey().defaultRandom(),
    /** Stable key: the seed's starters are found again by it. */
    slug: text().notNull(),
    createdBy: uuid().references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp({ withTimezone: true }).notNull(),
    archivedAt: timestamp({ withTimezone: true }),
    currentVersion: integer().notNull().default(1),
  },
  (t) => [uniqueIndex('goal_templates_slug_key').on(t.slug), index('goal_templates_created_by_idx').on(t.createdBy), check('goal_templates_current_version_check', sql`${t.currentVersion} >= 1`)],
)

/**
 * One version of a template, as it was written: an edit adds the next version and never changes a
 * row (a trigger refuses UPDATE, but for the author's id set to null when their account goes), so
 * what a member took from a version (goals.template_version_id, an offer) stays what it was.
 */
export const goalTemplateVersions = pgTable(
  'goal_template_versions',
  {
    id: uuid().primaryKey().defaultRandom(),
    templateId: uuid()
      .notNull()
      .references(() => goalTemplates.id, { onDelete: 'cascade' }),
    version: integer().notNull(),
    name: text().notNull(),
    audience: text().notNull(),
    /** Life area → { score: the target (1 to 10), focus: the wizard's option ids }, validated by GoalTemplateTargetsSchema. */
    targets: jsonb().$type<GoalTemplateTargets>().notNull(),
    ninetyDayGoal: text().notNull(),
    obstacles: text().array().notNull(),
    firstCommitments: text().array().notNull(),
    createdBy: uuid().references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp({ withTimezone: true }).notNull(),
  },
  (t) => [
    uniqueIndex('goal_template_versions_template_version_key').on(t.templateId, t.version),
    index('goal_template_versions_created_by_idx').on(t.createdBy),
    check('goal_template_versions_version_check', sql`${t.version} >= 1`),
  ],
)

/**
 * A coach's offer of a template version to one of their members, and the member's answer. At most
 * one open (`offered`) per member (a unique index on the open rows). Goes with the member's
 * account; `offered_by` is null once the coach's account is gone.
 */
export const goalTemplateOffers = pgTable(
  'goal_template_offers',
  {
    id: uuid().primaryKey().defaultRandom(),
    memberUserId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    templateVersionId: uuid()
      .notNull()
      .references(() => goalTemplateVersions.id),
    offeredBy: uuid().references(() => users.id, { onDelete: 'set null' }),
    status: text({ enum: GOAL_TEMPLATE_OFFER_STATUSES }).notNull().default('offered'),
    createdAt: timestamp({ withTimezone: true }).notNull(),
    answeredAt: timestamp({ withTimezone: true }),
  },
  (t) => [
    uniqueIndex('goal_template_offers_open_key')
      .on(t.memberUserId)
      .where(sql`${t.status} = 'offered'`),
    index('goal_template_offers_member_idx').on(t.memberUserId, t.createdAt),
    index('goal_template_offers_version_idx').on(t.templateVersionId),
    index('goal_template_offers_offered_by_idx').on(t.offeredBy),
    check('goal_template_offers_status_check', inList(t.status, GOAL_TEMPLATE_OFFER_STATUSES)),
    check('goal_template_offers_answered_check', sql`(${t.status} = 'offered') = (${t.answeredAt} is null)`),
  ],
)

export type GoalTemplateVersionRow = typeof goalTemplateVersions.$inferSelect
