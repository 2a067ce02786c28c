import { z } from 'zod'
import { text } from './text'
import { ERRORS } from './errors'

/**
 * The assistant chat and its saved conversations:
 * the constants, the exact texts, the wire schemas, and the pure rules (title, duplicate
 * assistant messages, placing saved messages by time, sizes) that the server and the web both run.
 */

// ---------------------------------------------------------------------------------------------
// Constants

/** The local fallback coach answers after this delay. */
export const FALLBACK_REPLY_DELAY_MS = 1500
/** A text reply that has not finished by then ends with TIMEOUT_MESSAGE. */
export const TEXT_REPLY_TIMEOUT_MS = 15_000
/** A new chat is saved this long after it has NEW_CHAT_SAVE_MIN_MESSAGES messages and no saved id. */
export const NEW_CHAT_SAVE_DELAY_MS = 3000
export const NEW_CHAT_SAVE_MIN_MESSAGES = 2
/** The content of a saved conversation is saved this long after a change. */
export const CONTENT_AUTOSAVE_DELAY_MS = 2000
/** The title rule: this many characters of the first user message, then TITLE_SUFFIX. */
export const TITLE_FROM_MESSAGE_LENGTH = 50
export const TITLE_SUFFIX = '...'
export const DEFAULT_CONVERSATION_TITLE = 'New Conversation'
/** The database allows 1 to 200 characters. */
export const CONVERSATION_TITLE_MAX = 200
/** What a person may type in one message. */
export const USER_MESSAGE_MAX = 4000
/** Any stored message (assistant replies can be longer than what a person types). */
export const STORED_MESSAGE_MAX = 20_000
/** Messages one conversation may hold; a longer chat continues in a new one. */
export const CONVERSATION_MESSAGES_MAX = 1000
/**
 * The message text one conversation may hold, in UTF-8 bytes (about 1 MB). Checked before anything
 * the user sends or saves is added; the assistant's reply to an accepted message is always stored.
 */
export const CONVERSATION_TEXT_BYTES_MAX = 1_000_000
/** Messages one save request may carry. */
export const SAVE_BATCH_MAX = 200
export const SEARCH_MAX = 200
/** The sidebar shows at most this many conversations (newest first). */
export const CONVERSATION_LIST_LIMIT = 200
/**
 * Open conversations one user may keep: as many as the sidebar lists, so every one stays
 * reachable. Creating (or reopening) one more archives the least recently updated open one; archived
 * ones are kept, found by the search and listed under 'Archived' (docs/decisions/084).
 * @alias
 */
export const CONVERSATIONS_PER_USER_MAX = CONVERSATION_LIST_LIMIT
/** A read of a conversation returns its newest messages (or those before a cursor), this many by default. */
export const MESSAGE_PAGE_SIZE = 50
/** The most messages one read may ask for. */
export const MESSAGE_PAGE_MAX = 200
/** Duplicate rules: containment counts only when the stored message is longer than this. */
export const DUPLICATE_MIN_STORED_LENGTH = 5
/** Duplicate rules: pairs where both are shorter than this are not compared (beyond exact equality). */
export const DUPLICATE_SHORT_LENGTH = 10
/** The id of the hidden initial greeting (never saved, never sent). */
export const GREETING_MESSAGE_ID = 'greeting'

// ---------------------------------------------------------------------------------------------
// Exact texts (spec 2 §2, §8)

export const CHAT_TEXT = {
  searchPlaceholder: 'Search conversations...',
  loadingConversations: 'Loading conversations...',
  noConversations: 'No conversations yet',
  noMatches: 'No conversations match your search',
  newChat: 'New Chat',
  logOut: 'Log Out',
  courses: 'Courses',
  currentConversation: 'Current Conversation',
  inputPlaceholder: 'Type a message...',
  inputPlaceholderListening: 'Voice active - you can still type here...',
  startVoiceCall: 'Start voice call',
  endVoiceCall: 'End call',
  deleteConfirm: 'Are you sure you want to delete this conversation?',
  loadEarlier: 'Load earlier messages',
  loadingEarlier: 'Loading earlier messages...',
  /** A message said in a voice call (read after its time; a mic icon shows it). */
  spoken: 'Spoken',
  archived: 'Archived',
  /** The sidebar's section of archived conversations (a toggle: expanded or not). */
  archivedConversations: 'Archived conversations',
  noArchived: 'No archived conversations',
  loadingArchived: 'Loading archived conversations...',
  reopen: 'Reopen',
  /** Above the message box while an archived conversation is open. */
  archivedNotice: 'This conversation is archived. Send a message or reopen it to move it back to your list.',
} as const

export const CHAT_ERRORS = {
  sendFailedTitle: 'Error',
  sendFailed: 'Failed to send message. Please try again.',
  /** Shown in the chat (never saved) when a reply could not be had. */
  connectionTrouble: "I'm having trouble connecting to the assistant service. Please check the console for more details.",
  /** The server's message when the assistant service failed. */
  processingTrouble: ERRORS.ASSISTANT_UNAVAILABLE.message,
  timeout: ERRORS.ASSISTANT_TIMEOUT.message,
  loadConversations: 'Failed to load conversations',
  createConversation: 'Failed to create conversation',
  updateConversation: 'Failed to update conversation',
  deleteConversation: 'Failed to delete conversation',
  configErrorTitle: 'Configuration Error',
  configError: 'Unable to load voice assistant configuration',
  voiceUnavailableTitle: 'Voice Assistant',
  voiceUnavailable: 'Voice assistant is not available. Please check your configuration.',
  audioEnabledTitle: 'Audio Enabled',
  audioEnabled: 'Voice responses are now enabled.',
  audioDisabledTitle: 'Audio Disabled',
  audioDisabled: 'Voice responses are now muted.',
  blankMessage: 'Message text must be non-blank',
  blankTitle: 'A renamed title must be non-blank',
  onlyUserMessages: 'Only your own messages can be saved: the server records the assistant replies',
} as const

// ---------------------------------------------------------------------------------------------
// Schemas

export const ChatSenderSchema = z.enum(['user', 'ai'])
export type ChatSender = z.infer<typeof ChatSenderSchema>

const MessageIdSchema = text()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_-]+$/, 'must be letters, digits, _ or -')

export const ChatMessageSchema = z.object({
  id: MessageIdSchema,
  text: text().trim().min(1, CHAT_ERRORS.blankMessage).max(STORED_MESSAGE_MAX),
  sender: ChatSenderSchema,
  timestamp: z.iso.datetime({ offset: true }),
  /** Said in a voice call (its transcript), not typed. Only the server marks a message so. */
  spoken: z.literal(true).optional(),
})
export type ChatMessage = z.infer<typeof ChatMessageSchema>

export const ConversationTitleSchema = text({ error: CHAT_ERRORS.blankTitle })
  .trim()
  .min(1, CHAT_ERRORS.blankTitle)
  .max(CONVERSATION_TITLE_MAX, `A title must be at most ${CONVERSATION_TITLE_MAX} characters`)

export const ConversationSummarySchema = z.object({
  id: z.uuid(),
  title: text(),
  messageCount: z.number().int().nonnegative(),
  createdAt: z.iso.datetime({ offset: true }),
  updatedAt: z.iso.datetime({ offset: true }),
  /** When it was archived to keep the open conversations under the cap; null while it is open. */
  archivedAt: z.iso.datetime({ offset: true }).nullable(),
})
export type ConversationSummary = z.infer<typeof ConversationSummarySchema>

/**
 * A message a client saves (a new chat's first messages, the autosave): only the user's own. The
 * server stores every assistant reply itself when it has it, so it never takes one from a client.
 */
export const SavedMessageSchema = z.object({
  id: MessageIdSchema,
  text: text({ error: CHAT_ERRORS.blankMessage })
    .trim()
    .min(1, CHAT_ERRORS.blankMessage)
    .max(USER_MESSAGE_MAX, `A message must be at most ${USER_MESSAGE_MAX} characters`),
  sender: z.literal('user', { error: CHAT_ERRORS.onlyUserMessages }),
  timestamp: z.iso.datetime({ offset: true }),
})
export type SavedMessage = z.infer<typeof SavedMessageSchema>

/**
 * One conversation with one page of its messages, in order: the newest MESSAGE_PAGE_SIZE, or with
 * `before` those just before that message. `hasEarlier` says whether older messages remain (ask
 * again with `before` set to the id of `content[0]`).
 */
export const ConversationSchema = ConversationSummarySchema.extend({
  content: z.array(ChatMessageSchema),
  hasEarlier: z.boolean(),
})
export type Conversation = z.infer<typeof ConversationSchema>

export const ConversationParamsSchema = z.object({ id: z.uuid('must be a conversation id') })

export const ConversationQuerySchema = z.object({
  /** The id of a message of the conversation: the page ends just before it. */
  before: MessageIdSchema.optional(),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(MESSAGE_PAGE_MAX, `At most ${MESSAGE_PAGE_MAX} messages per page`)
    .optional(),
})
export type ConversationQuery = z.infer<typeof ConversationQuerySchema>

/**
 * `archived`: 'true' lists only the archived conversations, 'false' only the open ones. Without it,
 * the open ones; with `search`, the matches among all of them (archived ones marked by `archivedAt`).
 */
export const ListConversationsQuerySchema = z.object({
  search: text().trim().max(SEARCH_MAX, `Search must be at most ${SEARCH_MAX} characters`).optional(),
  archived: z.enum(['true', 'false']).optional(),
})
export type ConversationListFilter = 'open' | 'archived' | 'all'

/** Which conversations a list query asks for. */
export function conversationListFilter(query: { search?: string | undefined; archived?: 'true' | 'false' | undefined }): ConversationListFilter {
  if (query.archived === 'true') return 'archived'
  if (query.archived === 'false') return 'open'
  return query.search?.trim() ? 'all' : 'open'
}

export const ConversationListResponseSchema = z.object({ conversations: z.array(ConversationSummarySchema) })
export type ConversationListResponse = z.infer<typeof ConversationListResponseSchema>

export const CreateConversationBodySchema = z.object({
  title: ConversationTitleSchema.optional(),
  content: z.array(SavedMessageSchema).max(SAVE_BATCH_MAX).optional(),
})
export type CreateConversationBody = z.input<typeof CreateConversationBodySchema>

export const RenameConversationBodySchema = z.object({ title: ConversationTitleSchema })

/** Saving content merges by message id: messages the server has are kept as they are. */
export const SaveContentBodySchema = z.object({
  content: z.array(SavedMessageSchema).max(SAVE_BATCH_MAX),
})

export const SendMessageBodySchema = z.object({
  text: text({ error: CHAT_ERRORS.blankMessage })
    .trim()
    .min(1, CHAT_ERRORS.blankMessage)
    .max(USER_MESSAGE_MAX, `A message must be at most ${USER_MESSAGE_MAX} characters`),
  /** The id the browser already shows the message under (a UUID); the server makes one otherwise. */
  id: z.uuid('must be a UUID').optional(),
})
export type SendMessageBody = z.input<typeof SendMessageBodySchema>

export const ReplyOutcomeSchema = z.enum(['appended', 'skipped', 'replaced'])
export type ReplyOutcome = z.infer<typeof ReplyOutcomeSchema>

export const SendMessageResponseSchema = z.object({
  /** The user's message as stored. */
  message: ChatMessageSchema,
  /** The assistant's reply; with outcome 'replaced' it carries the id of the stored message it replaced. */
  reply: ChatMessageSchema,
  /** What the duplicate rules did with the reply. */
  outcome: ReplyOutcomeSchema,
  conversation: ConversationSummarySchema,
})
export type SendMessageResponse = z.infer<typeof SendMessageResponseSchema>

/**
 * The server-sent events of a streamed send (`Accept: text/event-stream`), in order:
 * `user` once, `delta` any number of times, then `done` or `error`.
 */
export const ChatStreamEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('user'), message: ChatMessageSchema }),
  z.object({ type: z.literal('delta'), text: text() }),
  z.object({ type: z.literal('done'), result: SendMessageResponseSchema }),
  z.object({ type: z.literal('error'), error: z.object({ code: text(), message: text() }) }),
])
export type ChatStreamEvent = z.infer<typeof ChatStreamEventSchema>

// ---------------------------------------------------------------------------------------------
// The title rule

/**
 * The first 50 characters of the first user message plus '...' (whitespace runs collapse to one
 * space; characters are counted as code points). The default title when there is no user message.
 */
export function titleFromMessages(messages: readonly Pick<ChatMessage, 'text' | 'sender'>[]): string {
  const first = messages.find((message) => message.sender === 'user' && message.text.trim() !== '')
  if (!first) return DEFAULT_CONVERSATION_TITLE
  const text = first.text.replace(/\s+/g, ' ').trim()
  return Array.from(text).slice(0, TITLE_FROM_MESSAGE_LENGTH).join('') + TITLE_SUFFIX
}

// ---------------------------------------------------------------------------------------------
// Duplicate rules for assistant messages

export type AssistantMessageDecision =
  /** Not a duplicate: add it. */
  | { action: 'append' }
  /** A duplicate of (or contained in) a stored message: drop it. */
  | { action: 'skip'; duplicateOf: string }
  /** It contains a stored message and is longer: the stored one takes its text. */
  | { action: 'replace'; id: string }

/**
 * Whether a new assistant message is a duplicate of the stored assistant messages:
 * - an exact match is a duplicate;
 * - a pair where both are under 10 characters is not compared further;
 * - a shorter message contained in a stored one (stored longer than 5 characters) is a duplicate;
 * - a longer message that contains a stored one (stored longer than 5 characters) replaces it
 *   (the newest such one).
 * Texts are compared trimmed; user messages are never compared. One pass over the stored messages
 * with at most one substring search each (a pair can only contain one way round), so the work grows
 * with the conversation, never with the conversation times anything else.
 */
export function decideAssistantMessage(
  stored: readonly Pick<ChatMessage, 'id' | 'text' | 'sender'>[],
  text: string,
): AssistantMessageDecision {
  const candidate = text.trim()
  let container: string | undefined
  let contained: string | undefined
  for (const message of stored) {
    if (message.sender !== 'ai') continue
    const previous = message.text.trim()
    if (previous === candidate) return { action: 'skip', duplicateOf: message.id }
    if (previous.length <= DUPLICATE_MIN_STORED_LENGTH) continue
    if (previous.length < DUPLICATE_SHORT_LENGTH && candidate.length < DUPLICATE_SHORT_LENGTH) continue
    if (candidate.length < previous.length) {
      if (container === undefined && previous.includes(candidate)) container = message.id
    } else if (candidate.length > previous.length && candidate.includes(previous)) {
      contained = message.id
    }
  }
  if (container !== undefined) return { action: 'skip', duplicateOf: container }
  if (contained !== undefined) return { action: 'replace', id: contained }
  return { action: 'append' }
}

/** A user transcript is accepted only if it is non-empty and differs from the previous one. */
export function acceptUserTranscript(previous: string | null | undefined, next: string): boolean {
  const text = next.trim()
  return text !== '' && text !== (previous ?? '').trim()
}

/**
 * Places new messages among a list by time: each goes after the last message whose timestamp is not
 * later than its own, and new messages with equal times keep their order. Linear in the list (each
 * timestamp is read once) plus a sort of the new ones.
 */
export function insertByTime<M extends ChatMessage>(messages: readonly M[], added: readonly M[]): M[] {
  if (added.length === 0) return [...messages]
  // earliest[j]: the earliest time from message j to the end. It never decreases, and a new message
  // of time t goes after the last j with earliest[j] <= t, which is the last j with a time <= t.
  const earliest = new Array<number>(messages.length)
  let min = Infinity
  for (let j = messages.length - 1; j >= 0; j--) {
    min = Math.min(min, Date.parse(messages[j]!.timestamp))
    earliest[j] = min
  }
  const incoming = added
    .map((message, order) => ({ message, time: Date.parse(message.timestamp), order }))
    .sort((a, b) => a.time - b.time || a.order - b.order)
  const result: M[] = []
  let next = 0
  for (const { message, time } of incoming) {
    while (next < messages.length && earliest[next]! <= time) result.push(messages[next++]!)
    result.push(message)
  }
  while (next < messages.length) result.push(messages[next++]!)
  return result
}

export type AddAssistantResult = { messages: ChatMessage[]; outcome: ReplyOutcome; message: ChatMessage }

/**
 * Adds an assistant message to a list under the duplicate rules. With 'replaced' the stored
 * message keeps its id and position and takes the new text; `message` is what the list now holds.
 */
export function addAssistantMessage(messages: readonly ChatMessage[], reply: ChatMessage): AddAssistantResult {
  const decision = decideAssistantMessage(messages, reply.text)
  if (decision.action === 'skip') {
    return { messages: [...messages], outcome: 'skipped', message: messages.find((m) => m.id === decision.duplicateOf) ?? reply }
  }
  if (decision.action === 'replace') {
    const replaced = messages.find((m) => m.id === decision.id)!
    // Said in a voice call, the stored message now holds spoken words.
    const updated = { ...replaced, text: reply.text.trim(), ...(reply.spoken ? { spoken: true as const } : {}) }
    return { messages: messages.map((m) => (m.id === decision.id ? updated : m)), outcome: 'replaced', message: updated }
  }
  return { messages: insertByTime(messages, [reply]), outcome: 'appended', message: reply }
}

/** The UTF-8 length of a text, counted without encoding it (what PostgreSQL's octet_length says). */
export function utf8Length(text: string): number {
  let bytes = 0
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code < 0x80) bytes += 1
    else if (code < 0x800) bytes += 2
    else if (code >= 0xd800 && code < 0xdc00 && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4
      i += 1
    } else bytes += 3
  }
  return bytes
}

/** The UTF-8 bytes of the messages' texts: what CONVERSATION_TEXT_BYTES_MAX counts. */
export const textBytes = (messages: readonly Pick<ChatMessage, 'text'>[]): number =>
  messages.reduce((sum, message) => sum + utf8Length(message.text), 0)

/**
 * The messages of a save that a conversation does not hold yet (`known` is the ids it holds): the
 * first message under each new id, its text trimmed. One set lookup per message.
 */
export function unsavedMessages(known: ReadonlySet<string>, incoming: readonly SavedMessage[]): SavedMessage[] {
  const taken = new Set<string>()
  const added: SavedMessage[] = []
  for (const message of incoming) {
    if (known.has(message.id) || taken.has(message.id)) continue
    taken.add(message.id)
    added.push({ ...message, text: message.text.trim() })
  }
  return added
}

/**
 * Merges saved content with what a client sends (the autosave): messages are matched by id and
 * the stored version wins, so a repeated or stale save never duplicates or loses a message; the
 * new ones (the user's own: a client never saves assistant messages) are placed by time. Linear:
 * one set of the stored ids, one pass to place the new messages.
 */
export function mergeMessages(stored: readonly ChatMessage[], incoming: readonly SavedMessage[]): { messages: ChatMessage[]; changed: boolean } {
  const added = unsavedMessages(new Set(stored.map((message) => message.id)), incoming)
  return { messages: insertByTime<ChatMessage>(stored, added), changed: added.length > 0 }
}
