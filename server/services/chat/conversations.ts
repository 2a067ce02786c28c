import { randomUUID } from 'node:crypto'
import { and, desc, eq, ilike, inArray, isNotNull, isNull, ne, or, sql } from 'drizzle-orm'
import {
  CONVERSATION_LIST_LIMIT,
  CONVERSATION_MESSAGES_MAX,
  CONVERSATION_TEXT_BYTES_MAX,
  CONVERSATIONS_PER_USER_MAX,
  DEFAULT_CONVERSATION_TITLE,
  MESSAGE_PAGE_SIZE,
  STORED_MESSAGE_MAX,
  addAssistantMessage,
  mergeMessages,
  textBytes,
  titleFromMessages,
  unsavedMessages,
  utf8Length,
  type ChatMessage,
  type Conversation,
  type ConversationListFilter,
  type ConversationQuery,
  type ConversationSummary,
  type SavedMessage,
  type SendMessageResponse,
} from '#common/chat'
import { truncateText } from '#common/text'
import type { Db, DbExecutor } from '#server/db/client'
import { conversations } from '#server/db/schema'
import { AppError, notFound } from '#server/lib/app-error'
import type { Clock } from '#server/lib/clock'
import type { Assistant } from './assistant'
import { coachContextJson, toCoachContext, type CoachContext } from './coach-context'

/**
 * Saved assistant conversations and sending a message to the assistant.
 * Every query is filtered by the signed-in user's id; another user's conversation is "not found".
 * A conversation holds its messages in order (content, a JSON array); each message sent is stored
 * when it is sent, each reply when it has arrived, so history survives any failure. Clients save
 * only the user's own messages; every assistant reply is stored by the server (docs/decisions/026).
 * Sizes are bounded (messages and text bytes per conversation, open conversations per user) and
 * checked before any merging; reads return one page of messages. A user keeps at most
 * CONVERSATIONS_PER_USER_MAX open conversations: one more (created, or reopened) archives the least
 * recently updated open ones in the same transaction (docs/decisions/084). Archived ones keep their
 * messages, are found by the search, and writing into one (a message, a save, a voice call) reopens it.
 */

type ChatDeps = { db: Db; clock: Clock; assistant: Assistant; turns: ChatTurns }

/**
 * The plan's budget of chat turns (services/usage): one turn is taken inside the transaction that
 * stores the user's message, or the message is refused (USAGE_LIMIT_REACHED).
 */
export type ChatTurns = { take(tx: DbExecutor, userId: string): Promise<void> }

// ---------------------------------------------------------------------------------------------
// Limits

const conversationNotFound = () => notFound('Conversation not found')

const conversationFull = (field: string) =>
  new AppError('CONVERSATION_FULL', `This conversation has reached ${CONVERSATION_MESSAGES_MAX} messages. Please start a new chat.`, { field })

const conversationTooLarge = (field: string) => new AppError('CONVERSATION_TOO_LARGE', undefined, { field })


/** The UTF-8 bytes of a conversation's message texts, counted by the database (see textBytes). */
const storedTextBytes = sql<number>`coalesce((select sum(octet_length(m->>'text')) from jsonb_array_elements(${conversations.content}) as m), 0)`.mapWith(Number)

const messageCount = sql<number>`jsonb_array_length(${conversations.content})`.mapWith(Number)

// ---------------------------------------------------------------------------------------------
// Reading

const summaryColumns = {
  id: conversations.id,
  title: conversations.title,
  createdAt: conversations.createdAt,
  updatedAt: conversations.updatedAt,
  archivedAt: conversations.archivedAt,
  messageCount,
}

type SummaryRow = { id: string; title: string; createdAt: Date; updatedAt: Date; archivedAt: Date | null; messageCount: number }

const toSummary = (row: SummaryRow): ConversationSummary => ({
  id: row.id,
  title: row.title,
  messageCount: row.messageCount,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
  archivedAt: row.archivedAt?.toISOString() ?? null,
})

/** `%`, `_` and `\` match themselves. */
const escapeLike = (value: string) => value.replace(/[\\%_]/g, '\\$&')

/**
 * The user's conversations, newest `updated_at` first: the open ones, the archived ones, or all
 * (`filter`). With `search`, only those whose title or any message text contains it
 * (case-insensitive).
 */
export async function listConversations(db: Db, userId: string, search: string | undefined, filter: ConversationListFilter): Promise<ConversationSummary[]> {
  const term = search?.trim()
  const pattern = term ? `%${escapeLike(term)}%` : undefined
  const rows = await db
    .select(summaryColumns)
    .from(conversations)
    .where(
      and(
        eq(conversations.userId, userId),
        filter === 'open' ? isNull(conversations.archivedAt) : filter === 'archived' ? isNotNull(conversations.archivedAt) : undefined,
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

/**
 * One conversation with one page of its messages: the newest `limit` (50 by default), or with
 * `before` the `limit` messages just before that message. Only the page leaves the database.
 */
export async function getConversation(db: DbExecutor, userId: string, id: string, query: ConversationQuery = {}): Promise<Conversation> {
  const limit = query.limit ?? MESSAGE_PAGE_SIZE
  // How many messages come before the page's end: all of them, or those before the cursor (null
  // when the conversation has no message with that id).
  const end = query.before
    ? sql`(select (t.i - 1)::int from jsonb_array_elements(${conversations.content}) with ordinality as t(m, i) where t.m->>'id' = ${query.before} limit 1)`
    : sql`jsonb_array_length(${conversations.content})`
  const located = db
    .select({
      ...summaryColumns,
      messageCount: sql<number>`jsonb_array_length(${conversations.content})`.as('message_count'),
      end: sql<number | null>`${end}`.as('page_end'),
      content: conversations.content,
    })
    .from(conversations)
    .where(and(eq(conversations.id, id), eq(conversations.userId, userId)))
    // The LIMIT keeps PostgreSQL from folding this into the page's query, where `page_end` would be
    // computed again (unpacking the whole content) for every message it looks at.
    .limit(1)
    .as('located')
  const [row] = await db
    .select({
      id: located.id,
      title: located.title,
      createdAt: located.createdAt,
      updatedAt: located.updatedAt,
      archivedAt: located.archivedAt,
      messageCount: located.messageCount,
      end: located.end,
      page: sql<ChatMessage[]>`(select coalesce(jsonb_agg(t.m order by t.i), '[]'::jsonb) from jsonb_array_elements(${located.content}) with ordinality as t(m, i) where t.i > ${located.end} - ${limit}::int and t.i <= ${located.end})`,
    })
    .from(located)
  if (!row) throw conversationNotFound()
  if (row.end === null) throw new AppError('VALIDATION_FAILED', 'before: no message with this id in this conversation', { field: 'before' })
  return { ...toSummary({ ...row, messageCount: Number(row.messageCount) }), content: row.page, hasEarlier: Number(row.end) > limit }
}

/** The newest page of a list held in memory (what a read without a cursor would return). */
const newestPage = (summary: ConversationSummary, messages: readonly ChatMessage[]): Conversation => ({
  ...summary,
  content: messages.slice(-MESSAGE_PAGE_SIZE),
  hasEarlier: messages.length > MESSAGE_PAGE_SIZE,
})

// ---------------------------------------------------------------------------------------------
// Writing

/** Serialises what changes how many open conversations a user has (creates, reopens) until the transaction ends. */
async function lockOpenConversations(tx: DbExecutor, userId: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`conversations:${userId}`}))`)
}

/**
 * Makes room for one more open conversation (the lock held): every open one but the newest
 * CONVERSATIONS_PER_USER_MAX - 1 (`except` not counted) is archived, least recently updated first.
 */
async function makeRoom(tx: DbExecutor, userId: string, now: Date, except?: string): Promise<void> {
  const beyond = tx
    .select({ id: conversations.id })
    .from(conversations)
    .where(and(eq(conversations.userId, userId), isNull(conversations.archivedAt), except ? ne(conversations.id, except) : undefined))
    .orderBy(desc(conversations.updatedAt), desc(conversations.id))
    .offset(CONVERSATIONS_PER_USER_MAX - 1)
  await tx.update(conversations).set({ archivedAt: now }).where(inArray(conversations.id, beyond))
}

/**
 * Reopens an archived conversation whose row this transaction has already changed (its row lock
 * is taken before the user's lock, on every path): it is open again, and room is made for it.
 */
async function reopened(tx: DbExecutor, userId: string, id: string, now: Date): Promise<void> {
  await tx.update(conversations).set({ archivedAt: null }).where(eq(conversations.id, id))
  await lockOpenConversations(tx, userId)
  await makeRoom(tx, userId, now, id)
}

/**
 * Reopens an archived conversation (the "Reopen" button): open again, moved to the top of the list
 * (`updated_at`), and the least recently updated open one archived if the cap is reached. An open
 * conversation is left as it is.
 */
export async function reopenConversation(db: Db, userId: string, id: string, now: Date): Promise<ConversationSummary> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .update(conversations)
      .set({ archivedAt: null, updatedAt: now })
      .where(and(eq(conversations.id, id), eq(conversations.userId, userId), isNotNull(conversations.archivedAt)))
      .returning(summaryColumns)
    if (row) {
      await reopened(tx, userId, id, now)
      return toSummary(row)
    }
    const [open] = await tx
      .select(summaryColumns)
      .from(conversations)
      .where(and(eq(conversations.id, id), eq(conversations.userId, userId)))
    if (!open) throw conversationNotFound()
    return toSummary(open)
  })
}

/** Throws "not found" unless the conversation is the user's (a voice call checks the one it was started from). */
export async function assertOwnConversation(db: DbExecutor, userId: string, id: string): Promise<void> {
  const [row] = await db
    .select({ id: conversations.id })
    .from(conversations)
    .where(and(eq(conversations.id, id), eq(conversations.userId, userId)))
  if (!row) throw conversationNotFound()
}

/**
 * Saves a new conversation: with the given title, else the title rule applied to its
 * messages (the user's own; ids unique, placed by time). A user keeps at most
 * CONVERSATIONS_PER_USER_MAX open conversations: the least recently updated ones beyond it are
 * archived in the same transaction. Creates of one user are serialised by a lock, so two at once
 * cannot pass the cap together.
 */
export async function createConversation(
  db: Db,
  userId: string,
  input: { title?: string | undefined; content?: SavedMessage[] | undefined },
  now: Date,
): Promise<Conversation> {
  const { messages } = mergeMessages([], input.content ?? [])
  if (messages.length > CONVERSATION_MESSAGES_MAX) throw conversationFull('content')
  if (textBytes(messages) > CONVERSATION_TEXT_BYTES_MAX) throw conversationTooLarge('content')
  const title = input.title ?? titleFromMessages(messages)
  return db.transaction(async (tx) => {
    await lockOpenConversations(tx, userId)
    await makeRoom(tx, userId, now)
    const [row] = await tx
      .insert(conversations)
      .values({ userId, title, content: messages, createdAt: now, updatedAt: now })
      .returning(summaryColumns)
    return newestPage(toSummary(row!), messages)
  })
}

export async function renameConversation(db: Db, userId: string, id: string, title: string, now: Date): Promise<ConversationSummary> {
  const [row] = await db
    .update(conversations)
    .set({ title, updatedAt: now })
    .where(and(eq(conversations.id, id), eq(conversations.userId, userId)))
    .returning(summaryColumns)
  if (!row) throw conversationNotFound()
  return toSummary(row)
}

/**
 * The autosave: adds the user's messages the conversation does not hold yet (matched by id, so a
 * repeated or stale save never duplicates or loses one), placed by time, under a row lock so
 * concurrent saves and replies never overwrite each other. First the sizes: the database answers
 * which of the ids it holds, the count and the text bytes, without sending the content; only a save
 * that fits reads the content and writes it back. `updated_at` moves only when something changed;
 * a save that adds messages to an archived conversation reopens it.
 */
export async function saveConversationContent(
  db: Db,
  userId: string,
  id: string,
  incoming: SavedMessage[],
  now: Date,
): Promise<ConversationSummary> {
  return db.transaction(async (tx) => {
    const ids = JSON.stringify(incoming.map((message) => message.id))
    const [row] = await tx
      .select({
        ...summaryColumns,
        bytes: storedTextBytes,
        hasUserMessage: sql<boolean>`exists (select 1 from jsonb_array_elements(${conversations.content}) as m where m->>'sender' = 'user')`,
        known: sql<string[]>`(select coalesce(jsonb_agg(m->>'id'), '[]'::jsonb) from jsonb_array_elements(${conversations.content}) as m where m->>'id' in (select jsonb_array_elements_text(${ids}::jsonb)))`,
      })
      .from(conversations)
      .where(and(eq(conversations.id, id), eq(conversations.userId, userId)))
      .for('update')
    if (!row) throw conversationNotFound()
    const added = unsavedMessages(new Set(row.known), incoming)
    if (added.length === 0) return toSummary(row)
    if (row.messageCount + added.length > CONVERSATION_MESSAGES_MAX) throw conversationFull('content')
    if (row.bytes + textBytes(added) > CONVERSATION_TEXT_BYTES_MAX) throw conversationTooLarge('content')

    const [stored] = await tx.select({ content: conversations.content }).from(conversations).where(eq(conversations.id, id))
    const { messages } = mergeMessages(stored!.content, added)
    const titled = row.title === DEFAULT_CONVERSATION_TITLE && !row.hasUserMessage
    const [updated] = await tx
      .update(conversations)
      .set({ content: messages, updatedAt: now, ...(titled ? { title: titleFromMessages(messages) } : {}) })
      .where(eq(conversations.id, id))
      .returning(summaryColumns)
    if (!row.archivedAt) return toSummary(updated!)
    await reopened(tx, userId, id, now)
    return toSummary({ ...updated!, archivedAt: null })
  })
}

export async function deleteConversation(db: Db, userId: string, id: string): Promise<void> {
  const deleted = await db
    .delete(conversations)
    .where(and(eq(conversations.id, id), eq(conversations.userId, userId)))
    .returning({ id: conversations.id })
  if (deleted.length === 0) throw conversationNotFound()
}

type AppendedUserMessage = { message: ChatMessage; previousChatId: string | null; turn: number; context: CoachContext | null }

/**
 * Appends the user's message in ONE statement, committed before the assistant is asked: only into
 * the user's own conversation, never twice under one id, never past the limits on messages and text
 * bytes (the route's paid guard has decided before). Into an archived conversation, it reopens it
 * (so run it in a transaction: the user's lock is held until it ends).
 * The first user message of a conversation still titled 'New Conversation' also sets the title
 * rule. The same statement returns what the reply needs: the chat id to chain on, the turn, and the
 * user's coach context. When nothing was written, a second read says why (404, 409 or 413).
 */
export async function appendUserMessage(db: DbExecutor, userId: string, id: string, message: ChatMessage, now: Date): Promise<AppendedUserMessage> {
  const title = titleFromMessages([message])
  const probe = JSON.stringify([{ id: message.id }])
  const hasUserMessage = sql`exists (select 1 from jsonb_array_elements(${conversations.content}) as m where m->>'sender' = 'user')`
  const fits = sql`${storedTextBytes} + ${utf8Length(message.text)}::int <= ${CONVERSATION_TEXT_BYTES_MAX}::int`
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
        fits,
      ),
    )
    .returning({
      archivedAt: conversations.archivedAt,
      previousChatId: conversations.previousChatId,
      turn: sql<number>`(select count(*) from jsonb_array_elements(${conversations.content}) as m where m->>'sender' = 'user')`.mapWith(Number),
      person: coachContextJson(userId),
    })
  if (row) {
    if (row.archivedAt) await reopened(db, userId, id, now)
    return { message, previousChatId: row.previousChatId, turn: row.turn, context: toCoachContext(userId, row.person, now) }
  }

  // Why nothing was written: not the user's (or no such) conversation, a repeated id, full, or too large.
  const [why] = await db
    .select({
      duplicate: sql<boolean>`${conversations.content} @> ${probe}::jsonb`,
      full: sql<boolean>`jsonb_array_length(${conversations.content}) >= ${CONVERSATION_MESSAGES_MAX}`,
    })
    .from(conversations)
    .where(and(eq(conversations.id, id), eq(conversations.userId, userId)))
  if (!why) throw conversationNotFound()
  if (why.duplicate) throw new AppError('DUPLICATE_MESSAGE', undefined, { field: 'id' })
  if (why.full) throw conversationFull('text')
  throw conversationTooLarge('text')
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
      .returning(summaryColumns)
    return { reply: result.message, outcome: result.outcome, conversation: toSummary(updated!) }
  })
}

/**
 * The reply as stored: trimmed and at most STORED_MESSAGE_MAX characters (a longer one is cut at a
 * character boundary), so every stored message can be read back. An empty reply is the assistant
 * failing (502).
 */
function storableReply(text: string): string {
  const trimmed = text.trim()
  if (trimmed === '') throw new AppError('ASSISTANT_UNAVAILABLE')
  return truncateText(trimmed, STORED_MESSAGE_MAX).trimEnd()
}

export type SendEvents = {
  /** The user's message is stored. */
  onStored?: (message: ChatMessage) => void
  /** A piece of the reply (streaming). */
  onDelta?: (text: string) => void
  signal?: AbortSignal
}

/**
 * Sends a message: stores the user's message first (committed; paid users only; one turn of the
 * plan's budget taken with it), asks the assistant with the user's current context, then stores
 * the reply. When the assistant fails,
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
  // The message and the plan's turn it spends are one transaction: a message refused for either
  // reason is neither stored nor counted (the conversation's reasons come first: 404, 409, 413).
  const stored = await deps.db.transaction(async (tx) => {
    const appended = await appendUserMessage(tx, userId, conversationId, message, now)
    await deps.turns.take(tx, userId)
    return appended
  })
  const context = stored.context
  events.onStored?.(stored.message)
  if (!context) throw new AppError('UNAUTHENTICATED')

  const answer = await deps.assistant.reply(
    { input: message.text, turn: stored.turn, previousChatId: stored.previousChatId, context, signal: events.signal },
    events.onDelta,
  )
  const repliedAt = deps.clock.now()
  const reply: ChatMessage = { id: randomUUID(), text: storableReply(answer.text), sender: 'ai', timestamp: repliedAt.toISOString() }
  const saved = await appendAssistantReply(deps.db, userId, conversationId, reply, answer.chatId, repliedAt)
  return { message: stored.message, ...saved }
}
