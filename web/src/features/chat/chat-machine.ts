/**
 * The chat's state and its saving (spec 2 §2, §5, §8), as pure code: the hook (use-chat.ts) feeds
 * it events and carries out the effects and the requests; the unit tests check every path.
 *
 * - a typed message is sent through the server, which stores it at once and the reply when it
 *   arrives; the first one in a new chat first saves the chat (the title rule) to have an id;
 * - messages the server does not have yet (none in a text chat unless a send failed before it was
 *   stored; voice transcripts later) are saved by the timers: a new chat about 3 s after it has
 *   2 messages, a saved one 2 s after a change. The server merges saves by message id, and a
 *   message being sent is never in a save, so nothing is lost or stored twice;
 * - New Chat and selecting another conversation save what is unsaved first;
 * - a conversation opens on its newest page of messages; 'Load earlier messages' adds the page
 *   before;
 * - a voice call goes on in the chat that is open (docs/decisions/084): the thread stays, the
 *   call's transcripts are added to it live (partials) and as messages (finals, marked spoken);
 *   the server saves them into that conversation itself (or into a new one when the chat has no
 *   saved id yet), which the chat then opens again as saved;
 * - an archived conversation can be opened and read; sending into it (or reopening it) reopens it.
 *
 * Showing another chat bumps the `epoch`: answers that arrive later for the old one (events that
 * carry an older epoch) leave the screen alone.
 */
import {
  CHAT_ERRORS,
  CONTENT_AUTOSAVE_DELAY_MS,
  GREETING_MESSAGE_ID,
  NEW_CHAT_SAVE_DELAY_MS,
  NEW_CHAT_SAVE_MIN_MESSAGES,
  SAVE_BATCH_MAX,
  titleFromMessages,
  type ChatMessage,
  type Conversation,
  type ReplyOutcome,
  type SavedMessage,
} from '#common/chat'
import { sendFailure } from './send-failure'
import { applyTranscript, initialTranscriptState, type TranscriptEvent, type TranscriptState } from './voice/transcripts'

/**
 * A message on screen. `ephemeral` ones (the chat's own notices) are never saved; `info` marks a
 * notice that is not an error. `voice` ones were said (or typed) in a voice call: the server saves
 * the call's conversation itself, so the browser never saves them (`spoken` marks those said, as
 * the server marks them when it stores them).
 */
export type LocalMessage = ChatMessage & { ephemeral?: true; info?: true; voice?: true }

/** The hidden initial greeting: first in the list, never shown in it, never saved. */
function greetingMessage(text: string, timestamp: string): LocalMessage {
  return { id: GREETING_MESSAGE_ID, text, sender: 'ai', timestamp }
}

/**
 * What the browser may save: the user's own messages (not the greeting, not the local notices).
 * The server stores every assistant reply itself and refuses one from a client.
 */
export const savable = (messages: readonly LocalMessage[]): SavedMessage[] =>
  messages.flatMap(({ id, text, sender, timestamp, ephemeral, voice }) =>
    sender === 'user' && id !== GREETING_MESSAGE_ID && !ephemeral && !voice ? [{ id, text, sender, timestamp }] : [],
  )

/**
 * Shows the assistant's reply as the server stored it under the duplicate rules: appended, or
 * (skipped or replaced) kept under the id of an earlier message, which is updated in place when it
 * is on screen. The server decides with the whole conversation; the screen may hold only its
 * newest pages.
 */
export function applyAssistantReply(messages: readonly LocalMessage[], reply: ChatMessage, outcome: ReplyOutcome): LocalMessage[] {
  if (messages.some((message) => message.id === reply.id)) {
    return messages.map((message) => (message.id === reply.id ? { ...message, text: reply.text } : message))
  }
  return outcome === 'appended' ? [...messages, reply] : [...messages]
}

export type ChatState = Readonly<{
  /** The saved conversation shown; null for a new chat the server does not have yet. */
  conversationId: string | null
  /** The conversation shown is archived (until something is sent into it, or it is reopened). */
  archived: boolean
  /** Everything on screen, the hidden greeting first. */
  messages: readonly LocalMessage[]
  /** The greeting's text a newly shown chat starts with. */
  greeting: string
  /** A typed message is being answered. */
  processing: boolean
  /** The reply so far, while it streams. */
  streamingText: string | null
  loadingConversation: boolean
  /** The server holds messages older than the first one shown. */
  hasEarlier: boolean
  loadingEarlier: boolean
  /** How many of the messages shown were added by 'Load earlier messages' (they lead the list). */
  earlierCount: number
  /** A voice call's live (partial) transcripts and the user's last accepted one. */
  transcripts: TranscriptState
  /** The epoch the voice call began in; null when no call is going. */
  voiceEpoch: number | null
  /** Ids the server is known to have. */
  saved: ReadonlySet<string>
  /** Ids being sent through the send endpoint right now (never autosaved). */
  pending: ReadonlySet<string>
  /** Bumped when another chat is shown. */
  epoch: number
}>

/** A new chat with only the hidden greeting (`now` is its time). */
export function initialChat(greeting: string, now: string): ChatState {
  return {
    conversationId: null,
    archived: false,
    messages: [greetingMessage(greeting, now)],
    greeting,
    processing: false,
    streamingText: null,
    loadingConversation: false,
    hasEarlier: false,
    loadingEarlier: false,
    earlierCount: 0,
    transcripts: initialTranscriptState(),
    voiceEpoch: null,
    saved: new Set(),
    pending: new Set(),
    epoch: 0,
  }
}

/** A conversation to show: its id (null for a new chat), its page of messages, whether older ones remain. */
export type ShownChat = { conversationId: string | null; content: readonly ChatMessage[]; hasEarlier: boolean; archived?: boolean }

const NEW_CHAT: ShownChat = { conversationId: null, content: [], hasEarlier: false }

/** A message the chat makes itself: the hook gives it its id and time. */
type Made = { id: string; at: string }

export type ChatEvent =
  | { type: 'greeting-changed'; greeting: string }
  /** Another chat is shown (New Chat; a conversation opened); `at` is the greeting's time. */
  | { type: 'shown'; chat: ShownChat; at: string }
  /** A conversation was deleted: if it is the one open, a new chat replaces it. */
  | { type: 'forgotten'; conversationId: string; at: string }
  /** Selecting a conversation: its page is being read. */
  | { type: 'conversation-loading' }
  | { type: 'conversation-loaded'; conversation: Conversation; at: string }
  | { type: 'conversation-failed'; error: unknown }
  /** The server has these messages now (a save, or the new chat a send created); `created` is a new chat's id. */
  | { type: 'saved'; ids: readonly string[]; created: string | null; epoch: number }
  | { type: 'save-failed'; creating: boolean; error: unknown }
  /** 'Load earlier messages': the page before is being read. */
  | { type: 'earlier-loading' }
  | { type: 'earlier-loaded'; content: readonly ChatMessage[]; hasEarlier: boolean; epoch: number }
  | { type: 'earlier-failed'; error: unknown; epoch: number }
  /** A typed message goes out (shown at once, never autosaved while it is sent). */
  | { type: 'send-started'; message: ChatMessage }
  /** The server stored the user's message. */
  | { type: 'send-stored'; id: string; epoch: number }
  /** A piece of the reply. */
  | { type: 'send-delta'; text: string; epoch: number }
  /** The reply as the server stored it, with what the duplicate rules did with it. */
  | { type: 'send-replied'; reply: ChatMessage; outcome: ReplyOutcome; epoch: number }
  /** The message could not be answered (`notice` is the id and time a reply in the chat gets). */
  | { type: 'send-failed'; error: unknown; epoch: number; notice: Made }
  /** The send is over, answered or not. */
  | { type: 'send-settled'; id: string; epoch: number }
  /** A voice call begins in the chat on screen. */
  | { type: 'voice-began' }
  /** A transcript of the call (`message`: the id and time a final one gets as a message). */
  | { type: 'voice-transcript'; transcript: TranscriptEvent; message: Made }
  /** A message typed into the call. */
  | ({ type: 'voice-typed'; text: string } & Made)
  | { type: 'voice-ended' }
  /** The conversation the server saved the call as, read after the call. */
  | { type: 'voice-conversation-loaded'; conversation: Conversation; epoch: number; at: string }
  | { type: 'voice-conversation-failed'; error: unknown }
  /** One of the chat's own notices (never saved). */
  | ({ type: 'notice'; text: string; tone: 'info' | 'error' } & Made)
  /** A conversation was reopened (no longer archived). */
  | { type: 'reopened'; conversationId: string }

export type ChatEffect =
  /** A destructive toast (every toast of the chat's own is an error). */
  | { type: 'toast'; title: string; description: string | null }
  /** The sidebar's conversation list is read again. */
  | { type: 'refresh-list' }
  /** A failure for the console: `what` failed, with the error's message. */
  | { type: 'log'; what: string; error: string }

type ChatTransition = { state: ChatState; effects: ChatEffect[] }

const errorMessage = (error: unknown) => (error instanceof Error ? error.message : String(error))
const log = (what: string, error: unknown): ChatEffect => ({ type: 'log', what, error: errorMessage(error) })
const toast = (title: string, description: string | null = null): ChatEffect => ({ type: 'toast', title, description })
const REFRESH: ChatEffect = { type: 'refresh-list' }

const unchanged = (state: ChatState): ChatTransition => ({ state, effects: [] })
const only = (state: ChatState, effects: ChatEffect[] = []): ChatTransition => ({ state, effects })
const added = (set: ReadonlySet<string>, ids: readonly string[]): ReadonlySet<string> => new Set([...set, ...ids])
const without = (set: ReadonlySet<string>, id: string): ReadonlySet<string> => {
  const next = new Set(set)
  next.delete(id)
  return next
}

/** Another chat on screen: a new epoch, the greeting and the chat's messages, nothing going. */
function show(state: ChatState, chat: ShownChat, at: string): ChatState {
  return {
    ...state,
    epoch: state.epoch + 1,
    saved: new Set(chat.content.map((message) => message.id)),
    pending: new Set(),
    conversationId: chat.conversationId,
    archived: chat.archived ?? false,
    messages: [greetingMessage(state.greeting, at), ...chat.content],
    streamingText: null,
    processing: false,
    hasEarlier: chat.hasEarlier,
    loadingEarlier: false,
    earlierCount: 0,
  }
}

const opened = (conversation: Conversation): ShownChat => ({
  conversationId: conversation.id,
  content: conversation.content,
  hasEarlier: conversation.hasEarlier,
  archived: conversation.archivedAt !== null,
})

const noticeMessage = (text: string, tone: 'info' | 'error', { id, at }: Made): LocalMessage => ({
  id,
  text,
  sender: 'ai',
  timestamp: at,
  ephemeral: true,
  ...(tone === 'info' ? { info: true as const } : {}),
})

/** A line of the call on screen: `spoken` for a transcript, not for a line typed into the call. */
const voiceMessage = (sender: ChatMessage['sender'], text: string, { id, at }: Made, spoken: boolean): LocalMessage => ({
  id,
  text,
  sender,
  timestamp: at,
  voice: true,
  ...(spoken ? { spoken: true as const } : {}),
})

export function nextChat(state: ChatState, event: ChatEvent): ChatTransition {
  const current = (epoch: number) => epoch === state.epoch
  switch (event.type) {
    case 'greeting-changed':
      return event.greeting === state.greeting ? unchanged(state) : only({ ...state, greeting: event.greeting })
    case 'shown':
      return only(show(state, event.chat, event.at))
    case 'forgotten':
      return state.conversationId === event.conversationId ? only(show(state, NEW_CHAT, event.at)) : unchanged(state)
    case 'conversation-loading':
      return only({ ...state, loadingConversation: true })
    case 'conversation-loaded':
      return only({ ...show(state, opened(event.conversation), event.at), loadingConversation: false })
    case 'conversation-failed':
      return only({ ...state, loadingConversation: false }, [log('Loading the conversation failed', event.error), toast(CHAT_ERRORS.loadConversations)])
    case 'saved': {
      // The server reopens an archived conversation it saves into.
      const next = { ...state, saved: added(state.saved, event.ids), ...(current(event.epoch) ? { archived: false } : {}) }
      return only(event.created !== null && current(event.epoch) ? { ...next, conversationId: event.created } : next, [REFRESH])
    }
    case 'save-failed':
      return only(state, [
        log('Saving the conversation failed', event.error),
        toast(event.creating ? CHAT_ERRORS.createConversation : CHAT_ERRORS.updateConversation),
      ])
    case 'earlier-loading':
      return only({ ...state, loadingEarlier: true })
    case 'earlier-loaded': {
      if (!current(event.epoch)) return unchanged(state)
      const shown = new Set(state.messages.map((message) => message.id))
      const older = event.content.filter((message) => !shown.has(message.id))
      const greetings = state.messages.filter((message) => message.id === GREETING_MESSAGE_ID)
      return only({
        ...state,
        saved: added(
          state.saved,
          older.map((message) => message.id),
        ),
        messages: [...greetings, ...older, ...state.messages.filter((message) => message.id !== GREETING_MESSAGE_ID)],
        earlierCount: state.earlierCount + older.length,
        hasEarlier: event.hasEarlier,
        loadingEarlier: false,
      })
    }
    case 'earlier-failed':
      return only(current(event.epoch) ? { ...state, loadingEarlier: false } : state, [
        log('Loading earlier messages failed', event.error),
        toast(CHAT_ERRORS.loadConversations),
      ])
    case 'send-started':
      return only({
        ...state,
        pending: added(state.pending, [event.message.id]),
        processing: true,
        streamingText: null,
        messages: [...state.messages, event.message],
      })
    case 'send-stored':
      // Stored into an archived conversation, the message reopened it.
      return only({ ...state, saved: added(state.saved, [event.id]), pending: without(state.pending, event.id), ...(current(event.epoch) ? { archived: false } : {}) })
    case 'send-delta':
      return current(event.epoch) ? only({ ...state, streamingText: (state.streamingText ?? '') + event.text }) : unchanged(state)
    case 'send-replied': {
      const next = { ...state, saved: added(state.saved, [event.reply.id]) }
      return only(current(event.epoch) ? { ...next, messages: applyAssistantReply(state.messages, event.reply, event.outcome) } : next)
    }
    case 'send-failed': {
      const failure = sendFailure(event.error)
      const effects: ChatEffect[] = [log('Assistant error', event.error)]
      if (failure.toast) effects.push(toast(failure.toast.title, failure.toast.description))
      if (!failure.reply || !current(event.epoch)) return only(state, effects)
      const notice: LocalMessage = { id: event.notice.id, text: failure.reply, sender: 'ai', timestamp: event.notice.at, ephemeral: true }
      return only({ ...state, messages: [...state.messages, notice] }, effects)
    }
    case 'send-settled': {
      const next = { ...state, pending: without(state.pending, event.id) }
      return only(current(event.epoch) ? { ...next, streamingText: null, processing: false } : next, [REFRESH])
    }
    case 'voice-began':
      // The thread stays: the call is added to the chat on screen.
      return only({ ...state, transcripts: initialTranscriptState(), voiceEpoch: state.epoch })
    case 'voice-transcript': {
      // Only into the call's own chat: another one shown meanwhile is left alone.
      if (state.voiceEpoch !== state.epoch) return unchanged(state)
      const made = event.message
      const result = applyTranscript(state.transcripts, state.messages, event.transcript, (sender, text) => voiceMessage(sender, text, made, true))
      return only({ ...state, transcripts: result.state, ...(event.transcript.final ? { messages: result.messages } : {}) })
    }
    case 'voice-typed': {
      const text = event.text.trim()
      if (!text || state.voiceEpoch !== state.epoch) return unchanged(state)
      return only({
        ...state,
        transcripts: { ...state.transcripts, lastUserTranscript: text },
        messages: [...state.messages, voiceMessage('user', text, event, false)],
      })
    }
    case 'voice-ended':
      return only({ ...state, voiceEpoch: null, transcripts: { ...state.transcripts, live: { user: null, assistant: null } } }, [REFRESH])
    case 'voice-conversation-loaded':
      return current(event.epoch) ? only(show(state, opened(event.conversation), event.at)) : unchanged(state)
    case 'voice-conversation-failed':
      return only(state, [log('Loading the voice conversation failed', event.error)])
    case 'notice':
      return only({ ...state, messages: [...state.messages, noticeMessage(event.text, event.tone, event)] })
    case 'reopened':
      return state.conversationId === event.conversationId && state.archived ? only({ ...state, archived: false }) : unchanged(state)
  }
}

// ---------------------------------------------------------------------------------------------
// What the hook asks the server, decided from the state

/** The user's messages the server does not have and that are not being sent right now. */
export const unsaved = (state: ChatState): SavedMessage[] =>
  savable(state.messages).filter((message) => !state.saved.has(message.id) && !state.pending.has(message.id))

/**
 * How long the save timer waits from the last change, or null when there is nothing to save yet:
 * none while a message is answered, and a new chat only once it has NEW_CHAT_SAVE_MIN_MESSAGES.
 */
export function saveDelay(state: ChatState): number | null {
  if (state.processing || unsaved(state).length === 0) return null
  if (!state.conversationId) return savable(state.messages).length < NEW_CHAT_SAVE_MIN_MESSAGES ? null : NEW_CHAT_SAVE_DELAY_MS
  return CONTENT_AUTOSAVE_DELAY_MS
}

/**
 * A save of what the server does not have (at most SAVE_BATCH_MAX messages): into the open
 * conversation, or a new chat created with its title and first messages. `timer` saves a new chat
 * only once it has NEW_CHAT_SAVE_MIN_MESSAGES; `now` (before leaving the chat) saves anything.
 */
export type SavePlan =
  | { kind: 'update'; conversationId: string; content: SavedMessage[]; epoch: number }
  | { kind: 'create'; title: string; content: SavedMessage[]; epoch: number }

export function planSave(state: ChatState, mode: 'timer' | 'now'): SavePlan | null {
  const todo = unsaved(state).slice(0, SAVE_BATCH_MAX)
  if (todo.length === 0) return null
  if (state.conversationId) return { kind: 'update', conversationId: state.conversationId, content: todo, epoch: state.epoch }
  const all = savable(state.messages)
  if (mode === 'timer' && all.length < NEW_CHAT_SAVE_MIN_MESSAGES) return null
  return { kind: 'create', title: titleFromMessages(all), content: all.slice(0, SAVE_BATCH_MAX), epoch: state.epoch }
}

/**
 * The new chat a send creates when the chat has no saved id: titled by the title rule with the
 * message being sent, holding what was said before it.
 */
export function planSendCreate(state: ChatState, message: ChatMessage): Extract<SavePlan, { kind: 'create' }> {
  const before = savable(state.messages).filter((m) => m.id !== message.id)
  return { kind: 'create', title: titleFromMessages([...before, message]), content: before.slice(0, SAVE_BATCH_MAX), epoch: state.epoch }
}

/** 'Load earlier messages': the page before the oldest saved message shown, if there is one. */
export function earlierCursor(state: ChatState): { conversationId: string; before: string; epoch: number } | null {
  const oldest = state.messages.find((message) => state.saved.has(message.id))
  if (!state.conversationId || !oldest) return null
  return { conversationId: state.conversationId, before: oldest.id, epoch: state.epoch }
}

/**
 * After a voice call the server saved as `conversationId` (the chat's own, or a new one when the
 * chat had no saved id): that conversation is opened, as saved, only while the call's chat is still
 * on screen (nothing else was shown since the call began).
 */
export function voiceConversationToOpen(state: ChatState, conversationId: string | null): { conversationId: string; epoch: number } | null {
  if (!conversationId || state.voiceEpoch === null || state.voiceEpoch !== state.epoch) return null
  return { conversationId, epoch: state.epoch }
}

/** What the message list shows: everything but the hidden greeting. */
export const visibleMessages = (state: ChatState): LocalMessage[] => state.messages.filter((message) => message.id !== GREETING_MESSAGE_ID)
