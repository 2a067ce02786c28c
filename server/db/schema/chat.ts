import { sql } from 'drizzle-orm'
import { check, index, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core'
import { timestamps, users } from './users'

export type StoredChatMessage = {
  id: string
  text: string
  sender: 'user' | 'ai'
  timestamp: string
  /** Said in a voice call (a transcript), not typed. */
  spoken?: true
}

/**
 * A saved assistant conversation: ordered messages. `archived_at` is set when the conversation was
 * moved out of the list to make room (the cap on open conversations, docs/decisions/084); it is
 * cleared when the conversation is reopened.
 */
export const conversations = pgTable(
  'conversations',
  {
    id: uuid().primaryKey().defaultRandom(),
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    title: text().notNull().default('New Conversation'),
    content: jsonb().$type<StoredChatMessage[]>().notNull().default(sql`'[]'::jsonb`),
    /** The provider chat id of the last turn, so the next turn chains on it. */
    previousChatId: text(),
    /** When it was archived to keep the open conversations under the cap; null while it is open. */
    archivedAt: timestamp({ withTimezone: true }),
    ...timestamps,
  },
  (t) => [
    index('conversations_user_updated_at_idx').on(t.userId, t.updatedAt.desc()),
    // The open conversations: the list, the count under the cap, the oldest to archive.
    index('conversations_user_open_updated_at_idx').on(t.userId, t.updatedAt).where(sql`${t.archivedAt} is null`),
    check('conversations_title_length', sql`char_length(${t.title}) between 1 and 200`),
    check('conversations_content_is_array', sql`jsonb_typeof(${t.content}) = 'array'`),
  ],
)

export type Conversation = typeof conversations.$inferSelect
