import { sql } from 'drizzle-orm'
import { check, index, jsonb, pgTable, text, uuid } from 'drizzle-orm/pg-core'
import { timestamps, users } from './users'

export type StoredChatMessage = {
  id: string
  text: string
  sender: 'user' | 'ai'
  timestamp: string
}

/** A saved assistant conversation: ordered messages. */
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
    ...timestamps,
  },
  (t) => [
    index('conversations_user_updated_at_idx').on(t.userId, t.updatedAt.desc()),
    check('conversations_title_length', sql`char_length(${t.title}) between 1 and 200`),
    check('conversations_content_is_array', sql`jsonb_typeof(${t.content}) = 'array'`),
  ],
)

export type Conversation = typeof conversations.$inferSelect
