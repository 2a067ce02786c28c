import { sql } from 'drizzle-orm'
import { check, date, index, integer, pgTable, primaryKey, timestamp, uuid } from 'drizzle-orm/pg-core'
import { coachingCalls } from './calls'
import { users } from './users'

/**
 * What a person used of their plan's in-app budget (docs/decisions/061), counted where it is
 * authoritative: chat turns as the chat accepts each one, voice seconds by the gateway's own call.
 * A month is the sum of its local dates (the person's time zone), so one table serves the monthly
 * budget and the daily guard.
 */

/** Chat turns accepted per person and local date, taken one at a time under a per-person lock. */
export const usageDays = pgTable(
  'usage_days',
  {
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The person's local date the turns counted against (their profile's zone when each was taken). */
    localDate: date({ mode: 'string' }).notNull(),
    chatTurns: integer().notNull().default(0),
    updatedAt: timestamp({ withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.localDate] }), check('usage_days_chat_turns_check', sql`${t.chatTurns} >= 0`)],
)

/**
 * The seconds of one in-app voice call counted against the budget: the gateway's own measure
 * while the call lives and at its end, raised (never lowered) to Vapi's billed duration when the
 * end-of-call report says more. One row per call, so a repeated count never adds twice.
 */
export const usageVoiceCalls = pgTable(
  'usage_voice_calls',
  {
    callId: uuid()
      .primaryKey()
      .references(() => coachingCalls.id, { onDelete: 'cascade' }),
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The person's local date when the call started: its seconds count against that day and month. */
    localDate: date({ mode: 'string' }).notNull(),
    seconds: integer().notNull().default(0),
    updatedAt: timestamp({ withTimezone: true }).notNull(),
  },
  (t) => [index('usage_voice_calls_user_date_idx').on(t.userId, t.localDate), check('usage_voice_calls_seconds_check', sql`${t.seconds} >= 0`)],
)

export type UsageDay = typeof usageDays.$inferSelect
export type UsageVoiceCall = typeof usageVoiceCalls.$inferSelect
