import { sql } from 'drizzle-orm'
import { type AnyPgColumn, check, index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { MEMORY_CHANNELS, MEMORY_SOURCES, MEMORY_SUBJECTS } from '#common/memory'
import { inList } from './helpers'
import { users } from './users'

/**
 * The coach's memory of a person (docs/decisions/083): what they said about themselves, as facts
 * with a validity interval, one channel's conversation at a time. A newer fact that replaces one
 * closes it (`valid_to`, `superseded_by`); the brief reads only the current ones.
 */
export const memoryFacts = pgTable(
  'memory_facts',
  {
    id: uuid().primaryKey().defaultRandom(),
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    statement: text().notNull(),
    subject: text({ enum: MEMORY_SUBJECTS }).notNull(),
    /** Where it was said: a channel and that channel's id (a call, a conversation, a text, a coach session), or the person's own correction. */
    sourceChannel: text({ enum: MEMORY_SOURCES }).notNull(),
    sourceId: text().notNull(),
    validFrom: timestamp({ withTimezone: true }).notNull(),
    validTo: timestamp({ withTimezone: true }),
    supersededBy: uuid().references((): AnyPgColumn => memoryFacts.id, { onDelete: 'set null' }),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('memory_facts_current_idx').on(t.userId, t.validFrom.desc()).where(sql`${t.validTo} is null`),
    index('memory_facts_search_idx').using('gin', sql`to_tsvector('english', ${t.statement})`),
    index('memory_facts_source_idx').on(t.userId, t.sourceChannel, t.sourceId),
    check('memory_facts_statement_length', sql`char_length(${t.statement}) between 1 and 500`),
    check('memory_facts_subject_check', inList(t.subject, MEMORY_SUBJECTS)),
    check('memory_facts_source_check', inList(t.sourceChannel, MEMORY_SOURCES)),
    check('memory_facts_validity_check', sql`${t.validTo} is null or ${t.validTo} >= ${t.validFrom}`),
  ],
)

/** What happened in one conversation on one channel: its summary and when. One per source. */
export const memoryEpisodes = pgTable(
  'memory_episodes',
  {
    id: uuid().primaryKey().defaultRandom(),
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    channel: text({ enum: MEMORY_CHANNELS }).notNull(),
    sourceId: text().notNull(),
    summary: text().notNull(),
    occurredAt: timestamp({ withTimezone: true }).notNull(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('memory_episodes_source_idx').on(t.userId, t.channel, t.sourceId),
    index('memory_episodes_recent_idx').on(t.userId, t.occurredAt.desc()),
    check('memory_episodes_summary_length', sql`char_length(${t.summary}) between 1 and 4000`),
    check('memory_episodes_channel_check', inList(t.channel, MEMORY_CHANNELS)),
  ],
)

/**
 * What a source has given the memory: one row per extraction (a source and how far into it), so a
 * retried or repeated job adds nothing twice.
 */
export const memoryExtractions = pgTable(
  'memory_extractions',
  {
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    channel: text({ enum: MEMORY_CHANNELS }).notNull(),
    /** The source and, for a conversation that goes on, the last message read (`<id>:<message id>`). */
    key: text().notNull(),
    facts: integer().notNull().default(0),
    extractedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('memory_extractions_key_idx').on(t.userId, t.channel, t.key), check('memory_extractions_channel_check', inList(t.channel, MEMORY_CHANNELS))],
)

/**
 * A fact the person deleted: not its words, a fingerprint of them and its source, so processing
 * that source again never brings it back.
 */
export const memoryForgotten = pgTable(
  'memory_forgotten',
  {
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    sourceChannel: text({ enum: MEMORY_SOURCES }).notNull(),
    sourceId: text().notNull(),
    fingerprint: text().notNull(),
    forgottenAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('memory_forgotten_idx').on(t.userId, t.sourceChannel, t.sourceId, t.fingerprint), check('memory_forgotten_source_check', inList(t.sourceChannel, MEMORY_SOURCES))],
)

/**
 * When the person paused the memory, and when they resumed it (null while paused): while paused the
 * coach works from their goals only, and nothing said in a pause is remembered, even when it is read
 * after they resumed (a chat's extraction comes 10 minutes after its last turn).
 */
export const memoryPauses = pgTable(
  'memory_pauses',
  {
    id: uuid().primaryKey().defaultRandom(),
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    pausedAt: timestamp({ withTimezone: true }).notNull(),
    resumedAt: timestamp({ withTimezone: true }),
  },
  (t) => [
    uniqueIndex('memory_pauses_open_idx').on(t.userId).where(sql`${t.resumedAt} is null`),
    index('memory_pauses_user_idx').on(t.userId, t.pausedAt.desc()),
    check('memory_pauses_interval_check', sql`${t.resumedAt} is null or ${t.resumedAt} >= ${t.pausedAt}`),
  ],
)

export type MemoryFact = typeof memoryFacts.$inferSelect
export type MemoryEpisode = typeof memoryEpisodes.$inferSelect
