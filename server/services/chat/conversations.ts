import { randomUUID } from 'node:crypto'
import { and, desc, eq, ilike, or, sql } from 'drizzle-orm'
import {
  CONVERSATION_LIST_LIMIT,
  CONVERSATION_MESSAGES_MAX,
  DEFAULT_CONVERSATION_TITLE,
  addAssistantMessage,
  mergeMessages,
  titleFromMessages,
  type ChatMessage,
  type Conversation,
  type ConversationSummary,
  type SendMessageResponse,
} from '#common/chat'
import type { Db } from '#server/db/client'
import { conversations, type Conversation as ConversationRow } from '#server/db/schema'
import { AppError, notFound } from '#server/lib/app-error'
import type { Clock } from '#server/lib/clock'
import type { Assistant } from './assistant'
import { coachContextJson, toCoachContext, type CoachContext } from './coach-context'

/**
 * Saved assistant conversations and sending a message to the assistant.
 * Every query is filtered by the signed-in user's id; another user's conversation is "not found".
 * A conversation holds its messages in order (content, a JSON array); each message sent is stored
 * when it is sent, each reply when it has arrived, so history survives any failure.
 */

export type ChatDeps = { db: Db; clock: Clock; assistant: Assistant }

// ---------------------------------------------------------------------------------------------
// Reading

const conversationNotFound = () => notFound('Conversation not found')

const summaryColumns = {
  id: conversations.id,
  title: conversations.title,
  createdAt: conversations.createdAt,
  updatedAt: conversations.updatedAt,
  messageCount: sql<number>`jsonb_array_length(${conversations.content})`.mapWith(Number),
}

type SummaryRow = { id: string; title: string; createdAt: Date; updatedAt: Date; messageCount: number }

const toSummary = (row: SummaryRow): ConversationSummary => ({
  id: row.id,
  title: row.title,
  messageCount: row.messageCount,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
})

const toConversation = (row: Pick<ConversationRow, 'id' | 'title' | 'content' | 'createdAt' | 'updatedAt'>): Conversation => ({
  ...toSummary({ ...row, messageCount: row.content.length }),
  content: row.content,
})

/** `%`, `_` and `\` match themselves. */
const escapeLike = (value: string) => value.replace(/[\\%_]/g, '\\$&')

/**
 * The user's conversations, newest `updated_at` first. With `search`, only those whose title or
 * any message text contains it (case-insensitive).
 */
export async function listConversations(db: Db, userId: string, search?: string): Promise<ConversationSummary[]> {
  const term = search?.trim()
  const pattern = term ? `%${escapeLike(term)}%` : undefined
  const rows = await db
    .select(summaryColumns)
    .from(conversations)
    .where(
      and(
        eq(conversations.userId, userId),
        pattern
          ? or(
              ilike(conversations.title, pattern),
              sql`exists (select 1 from jsonb_array_elements(${conversations.content}) as message where message->>'text' ilike ${pattern})`,
            )
          : undefined,
      ),
    )
    .orderBy(desc(conversations.updatedAt), desc(conversations.id))
    .limit(CONVERSATION_LIST_LIMIT)
  return rows.map(toSummary)
}

export async function getConversation(db: Db, userId: string, id: string): Promise<Conversation> {
  const [row] = await db
    .select()
    .from(conversations)
    .where(and(eq(conversations.id, id), eq(conversations.userId, userId)))
    .limit(1)
  if (!row) throw conversationNotFound()
  return toConversation(row)
}

// ---------------------------------------------------------------------------------------------
// Writing

/**
 * Saves a new conversation: with the given title, else the title rule applied to its
 * messages. Messages go through the same merge as any later save (ids unique, replies deduplicated).
 */
export async function createConversation(
  db: Db,
  userId: string,
  input: { title?: string | undefined; content?: ChatMessage[] | undefined },
  now: Date,
): Promise<Conversation> {
  const { messages } = mergeMessages([], input.content ?? [])
  const title = input.title ?? titleFromMessages(messages)
  const [row] = await db
    .insert(conversations)
    .values({ userId, title, content: messages, createdAt: now, updatedAt: now })
    .returning()
  return toConversation(row!)
}

export async function renameConversation(db: Db, userId: string, id: string, title: string, now: Date): Promise<Conversation> {
  const [row] = await db
    .update(conversations)
    .set({ title, updatedAt: now })
    .where(and(eq(conversations.id, id), eq(conversations.userId, userId)))
    .returning()
  if (!row) throw conversationNotFound()
  return toConversation(row)
}

/**
 * The autosave: merges the given messages into the stored ones by id (see
 * mergeMessages), under a row lock so concurrent saves and replies never overwrite each other.
 * `updated_at` moves only when something changed.
 */
export async function saveConversationContent(db: Db, userId: string, id: string, incoming: ChatMessage[], now: Date): Promise<Conversation> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .select()
      .from(conversations)
      .where(and(eq(conversations.id, id), eq(conversations.userId, userId)))
      .for('update')
    if (!row) throw conversationNotFound()
    const { messages, changed } = mergeMessages(row.content, incoming)
    if (!changed) return toConversation(row)
    if (messages.length > CONVERSATION_MESSAGES_MAX) throw conversationFull()
    const titled = row.title === DEFAULT_CONVERSATION_TITLE && !row.content.some((m) => m.sender === 'user')
    const [updated] = await tx
      .update(conversations)
      .set({ content: messages, updatedAt: now, ...(titled ? { title: titleFromMessages(messages) } : {}) })
      .where(eq(conversations.id, id))
      .returning()
    return toConversation(updated!)
  })
}

export async function deleteConversation(db: Db, userId: string, id: string): Promise<void> {
  const deleted = await db
    .delete(conversations)
    .where(and(eq(conversations.id, id), eq(conversations.userId, userId)))
    .returning({ id: conversations.id })
  if (deleted.length === 0) throw conversationNotFound()
}

const conversationFull = () =>
  new AppError('CONVERSATION_FULL', `This conversation has reached ${CONVERSATION_MESSAGES_MAX} messages. Please start a new chat.`)

type AppendedUserMessage = { message: ChatMessage; previousChatId: string | null; turn: number; context: CoachContext | null }

/**
 * Appends the user's message in ONE statement, committed before the assistant is asked: only into
 * the user's own conversation, never twice under one id, never past the limit (the route's paid
 * guard has decided before).
 * The first user message of a conversation still titled 'New Conversation' also sets the title
 * rule. The same statement returns what the reply needs: the chat id to chain on, the turn, and the
 * user's coach context. When nothing was written, a second read says why (404 or 409).
 */
export async function appendUserMessage(db: Db, userId: string, id: string, message: ChatMessage, now: Date): Promise<AppendedUserMessage> {
  const title = titleFromMessages([message])
  const probe = JSON.stringify([{ id: message.id }])
  const hasUserMessage = sql`exists (select 1 from jsonb_array_elements(${conversations.content}) as m where m->>'sender' = 'user')`
  const [row] = await db
    .update(conversations)
    .set({
      content: sql`${conversations.content} || ${JSON.stringify([message])}::jsonb`,
      updatedAt: now,
      title: sql`case when ${conversations.title} = ${DEFAULT_CONVERSATION_TITLE} and not ${hasUserMessage} then ${title} else ${conversations.title} end`,
    })
    .where(
      and(
        eq(conversations.id, id),
        eq(conversations.userId, userId),
        sql`not (${conversations.content} @> ${probe}::jsonb)`,
        sql`jsonb_array_length(${conversations.content}) < ${CONVERSATION_MESSAGES_MAX}`,
      ),
    )
    .returning({
      previousChatId: conversations.previousChatId,
      turn: sql<number>`(select count(*) from jsonb_array_elements(${conversations.content}) as m where m->>'sender' = 'user')`.mapWith(Number),
      person: coachContextJson(userId),
    })
  if (row) return { message, previousChatId: row.previousChatId, turn: row.turn, context: toCoachContext(userId, row.person, now) }

  // Why nothing was written: not the user's (or no such) conversation, a repeated id, or full.
  const [why] = await db
    .select({
      owned: sql<boolean>`exists (select 1 from ${conversations} as c where c.id = ${id} and c.user_id = ${userId})`,
      duplicate: sql<boolean>`exists (select 1 from ${conversations} as c where c.id = ${id} and c.user_id = ${userId} and c.content @> ${probe}::jsonb)`,
    })
    .from(sql`(select 1) as one`)
  if (!why?.owned) throw conversationNotFound()
  if (why.duplicate) throw new AppError('DUPLICATE_MESSAGE', undefined, { field: 'id' })
  throw conversationFull()
}

/**
 * Stores the assistant's reply under the duplicate rules (common/chat.ts), and the provider chat id
 * the next turn chains on, in one locked read-modify-write.
 */
export async function appendAssistantReply(
  db: Db,
  userId: string,
  id: string,
  reply: ChatMessage,
  chatId: string | null,
  now: Date,
): Promise<Pick<SendMessageResponse, 'reply' | 'outcome' | 'conversation'>> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .select()
      .from(conversations)
      .where(and(eq(conversations.id, id), eq(conversations.userId, userId)))
      .for('update')
    if (!row) throw notFound('This conversation was deleted while the assistant was answering.')
    const result = addAssistantMessage(row.content, reply)
    const [updated] = await tx
      .update(conversations)
      .set({
        ...(result.outcome === 'skipped' ? {} : { content: result.messages }),
        ...(chatId ? { previousChatId: chatId } : {}),
        updatedAt: now,
      })
      .where(eq(conversations.id, id))
      .returning()
    return { reply: result.message, outcome: result.outcome, conversation: toSummary({ ...updated!, messageCount: updated!.content.length }) }
  })
}

export type SendEvents = {
  /** The user's message is stored. */
  onStored?: (message: ChatMessage) => void
  /** A piece of the reply (streaming). */
  onDelta?: (text: string) => void
  signal?: AbortSignal
}

/**
 * Sends a message: stores the user's message first (committed; paid users only), asks the
 * assistant with the user's current context, then stores the reply. When the assistant fails,
 * the user's message stays, nothing else is written, and the AppError (timeout 504, unavailable
 * 502) is thrown.
 */
export async function sendMessage(
  deps: ChatDeps,
  userId: string,
  conversationId: string,
  input: { text: string; id?: string | undefined },
  events: SendEvents = {},
): Promise<SendMessageResponse> {
  const now = deps.clock.now()
  const message: ChatMessage = { id: input.id ?? randomUUID(), text: input.text.trim(), sender: 'user', timestamp: now.toISOString() }
  const stored = await appendUserMessage(deps.db, userId, conversationId, message, now)
  const context = stored.context
  events.onStored?.(stored.message)
  if (!context) throw new AppError('UNAUTHENTICATED')

  const answer = await deps.assistant.reply(
    { input: message.text, turn: stored.turn, previousChatId: stored.previousChatId, context, signal: events.signal },
    events.onDelta,
  )
  const repliedAt = deps.clock.now()
  const reply: ChatMessage = { id: randomUUID(), text: answer.text.trim(), sender: 'ai', timestamp: repliedAt.toISOString() }
  const saved = await appendAssistantReply(deps.db, userId, conversationId, reply, answer.chatId, repliedAt)
  return { message: stored.message, ...saved }
}
