import { sql } from 'drizzle-orm'
import { check, index, pgTable, smallint, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { COMMITMENT_RESOLVERS, COMMITMENT_STATUSES } from '#common/commitments'
import { coachingCalls } from './calls'
import { inList } from './helpers'
import { timestamps, users } from './users'

/**
 * What a person committed to in a call, one row per commitment of the call's report: open until
 * the next call's report says kept or missed (or the person marks it done in the app). The unique
 * (call, position) key means a report applied twice never makes a commitment twice.
 */
export const commitments = pgTable(
  'commitments',
  {
    id: uuid().primaryKey().defaultRandom(),
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The call it was made in. */
    callId: uuid()
      .notNull()
      .references(() => coachingCalls.id, { onDelete: 'cascade' }),
    /** Its place in that call's list (0-based). */
    position: smallint().notNull(),
    text: text().notNull(),
    status: text({ enum: COMMITMENT_STATUSES }).notNull().default('open'),
    /** When it was made: the call's end. */
    madeAt: timestamp({ withTimezone: true }).notNull(),
    resolvedAt: timestamp({ withTimezone: true }),
    resolvedBy: text({ enum: COMMITMENT_RESOLVERS }),
    /** The call whose report settled it (resolvedBy 'call'). */
    resolvedCallId: uuid().references(() => coachingCalls.id, { onDelete: 'set null' }),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('commitments_call_position_key').on(t.callId, t.position),
    // A person's commitments by when they were made: the open ones newest first (the dashboard,
    // the next call's variables), the ones made in a week (the weekly report).
    index('commitments_user_made_idx').on(t.userId, t.madeAt.desc()),
    // The kept rate and the weekly report: what was settled in a window.
    index('commitments_user_resolved_idx')
      .on(t.userId, t.resolvedAt)
      .where(sql`${t.resolvedAt} is not null`),
    check('commitments_status_check', inList(t.status, COMMITMENT_STATUSES)),
    check('commitments_resolved_by_check', sql`${t.resolvedBy} is null or ${inList(t.resolvedBy, COMMITMENT_RESOLVERS)}`),
    check('commitments_resolution', sql`(${t.status} = 'open') = (${t.resolvedAt} is null)`),
    check('commitments_position_range', sql`${t.position} between 0 and 99`),
  ],
)

export type Commitment = typeof commitments.$inferSelect
