import { describe, expect, it } from 'vitest'
import {
  CHAT_ERRORS,
  CONTENT_AUTOSAVE_DELAY_MS,
  DEFAULT_CONVERSATION_TITLE,
  GREETING_MESSAGE_ID,
  NEW_CHAT_SAVE_DELAY_MS,
  SAVE_BATCH_MAX,
  type ChatMessage,
  type Conversation,
} from '#common/chat'
import { ERRORS } from '#common/errors'
import { USAGE_TEXT } from '#common/usage'
import { ApiError } from '../../web/src/lib/api-error'
import { replay } from '../helpers/machine'
import {
  applyAssistantReply,
  earlierCursor,
  initialChat,
  nextChat,
  planSave,
  planSendCreate,
  savable,
  saveDelay,
  unsaved,
  visibleMessages,
  voiceConversationToOpen,
  type ChatEffect,
  type ChatEvent,
  type ChatState,
  type LocalMessage,
} from '../../web/src/features/chat/chat-machine'

const AT = '2026-11-24T10:00:00.000Z'
const GREETING = 'Hi Ada! How can I help you today?'
const CONVERSATION = '7b0c5f1e-1d2a-4c3b-9e8f-0a1b2c3d4e5f'
const OTHER = '0a1b2c3d-4e5f-4c3b-9e8f-7b0c5f1e1d2a'

const user = (id: string, text = `said ${id}`): ChatMessage => ({ id, text, sender: 'user', timestamp: AT })
const ai = (id: string, text = `answered ${id}`): ChatMessage => ({ id, text, sender: 'ai', timestamp: AT })
const conversation = (id: string, content: ChatMessage[], hasEarlier = false): Conversation => ({
  id,
  title: 'A chat',
  messageCount: content.length,
  createdAt: AT,
  updatedAt: AT,
  archivedAt: null,
  content,
  hasEarlier,
})

/** Runs events from `from` (a new chat by default); returns the final state and every effect in order. */
const run = (events: ChatEvent[], from: ChatState = initialChat(GREETING, AT)) => replay(nextChat, from, events)

const ids = (state: ChatState) => visibleMessages(state).map((message) => message.id)
const toasts = (effects: ChatEffect[]) => effects.flatMap((effect) => (effect.type === 'toast' ? [[effect.title, effect.description]] : []))
const refreshes = (effects: ChatEffect[]) => effects.filter((effect) => effect.type === 'refresh-list').length

/** A saved conversation on screen with these messages. */
const opened = (content: ChatMessage[], hasEarlier = false) =>
  run([{ type: 'conversation-loaded', conversation: conversation(CONVERSATION, content, hasEarlier), at: AT }]).state

/** A typed message through the send's events, from start to its reply. */
const sent = (message: ChatMessage, reply: ChatMessage, epoch: number): ChatEvent[] => [
  { type: 'send-started', message },
  { type: 'send-stored', id: message.id, epoch },
  { type: 'send-delta', text: 'Hel', epoch },
  { type: 'send-delta', text: 'lo', epoch },
  { type: 'send-replied', reply, outcome: 'appended', epoch },
  { type: 'send-settled', id: message.id, epoch },
]

describe('a new chat', () => {
  it('holds only the hidden greeting, which is never shown and never saved', () => {
    const state = initialChat(GREETING, AT)
    expect(state.messages).toEqual([{ id: GREETING_MESSAGE_ID, text: GREETING, sender: 'ai', timestamp: AT }])
    expect(visibleMessages(state)).toEqual([])
    expect(savable(state.messages)).toEqual([])
    expect(state).toMatchObject({ conversationId: null, processing: false, streamingText: null, hasEarlier: false, earlierCount: 0, epoch: 0, voiceEpoch: null })
    expect(planSave(state, 'now')).toBeNull()
  })

  it('a changed greeting is what the next chat shown starts with; the one on screen stays', () => {
    const { state } = run([{ type: 'greeting-changed', greeting: 'Hi! How can I help you today?' }])
    expect(state.messages[0]!.text).toBe(GREETING)
    expect(run([{ type: 'shown', chat: { conversationId: null, content: [], hasEarlier: false }, at: AT }], state).state.messages[0]!.text).toBe(
      'Hi! How can I help you today?',
    )
    const same = initialChat(GREETING, AT)
    expect(nextChat(same, { type: 'greeting-changed', greeting: GREETING }).state).toBe(same)
  })
})

describe('what the browser saves', () => {
  it("only the user's own messages: not the greeting, the notices, the assistant's replies or a voice call's messages", () => {
    const messages: LocalMessage[] = [
      { id: GREETING_MESSAGE_ID, text: 'Hi', sender: 'user', timestamp: AT },
      user('u1'),
      ai('a1'),
      { ...user('n1'), ephemeral: true },
      { ...user('v1'), voice: true },
    ]
    expect(savable(messages)).toEqual([user('u1')])
  })

  it('nothing the server has, nor a message being sent', () => {
    const state = run([{ type: 'notice', text: 'note', tone: 'info', id: 'n', at: AT }, { type: 'send-started', message: user('u2') }], opened([user('u1')])).state
    expect(unsaved(state)).toEqual([])
    const typedBefore = { ...state, messages: [...state.messages, user('u3')] }
    expect(unsaved(typedBefore)).toEqual([user('u3')])
  })
})

describe('the save timers', () => {
  const withUsers = (count: number, from = initialChat(GREETING, AT)): ChatState => ({
    ...from,
    messages: [...from.messages, ...Array.from({ length: count }, (_, i) => user(`u${i}`))],
  })

  it('a new chat is saved about 3 s after it has 2 messages, not before', () => {
    expect(saveDelay(withUsers(1))).toBeNull()
    expect(saveDelay(withUsers(2))).toBe(NEW_CHAT_SAVE_DELAY_MS)
  })

  it('a saved chat is saved 2 s after a change; nothing to save, no timer', () => {
    expect(saveDelay(opened([user('u1')]))).toBeNull()
    expect(saveDelay(withUsers(1, opened([])))).toBe(CONTENT_AUTOSAVE_DELAY_MS)
  })

  it('no timer while a message is being answered', () => {
    expect(saveDelay({ ...withUsers(2), processing: true })).toBeNull()
  })
})

describe('planning a save', () => {
  it('a saved chat: its unsaved messages, at most SAVE_BATCH_MAX in one save', () => {
    const state = { ...opened([user('old')]), messages: [...opened([user('old')]).messages, ...Array.from({ length: SAVE_BATCH_MAX + 5 }, (_, i) => user(`n${i}`))] }
    const plan = planSave(state, 'timer')
    expect(plan).toMatchObject({ kind: 'update', conversationId: CONVERSATION, epoch: 1 })
    expect(plan!.content).toHaveLength(SAVE_BATCH_MAX)
    expect(plan!.content[0]!.id).toBe('n0')
  })

  it("a new chat is created with the title rule; the timer waits for 2 messages, 'now' does not", () => {
    const one = { ...initialChat(GREETING, AT), messages: [...initialChat(GREETING, AT).messages, user('u1', 'I want to   run a marathon next spring with my sister and her kids')] }
    expect(planSave(one, 'timer')).toBeNull()
    expect(planSave(one, 'now')).toEqual({ kind: 'create', title: 'I want to run a marathon next spring with my siste...', content: [one.messages[1]], epoch: 0 })
    const two = { ...one, messages: [...one.messages, user('u2')] }
    expect(planSave(two, 'timer')).toMatchObject({ kind: 'create', content: [one.messages[1], user('u2')] })
  })

  it('a saved save marks the messages saved and refreshes the list; a created chat takes its id', () => {
    const state = { ...initialChat(GREETING, AT), messages: [...initialChat(GREETING, AT).messages, user('u1'), user('u2')] }
    const { state: after, effects } = run([{ type: 'saved', ids: ['u1', 'u2'], created: CONVERSATION, epoch: 0 }], state)
    expect(after.conversationId).toBe(CONVERSATION)
    expect(unsaved(after)).toEqual([])
    expect(saveDelay(after)).toBeNull()
    expect(refreshes(effects)).toBe(1)
  })

  it('a chat created for a chat no longer shown does not become the current one', () => {
    const state = run([{ type: 'shown', chat: { conversationId: null, content: [], hasEarlier: false }, at: AT }]).state
    const { state: after } = run([{ type: 'saved', ids: ['u1'], created: CONVERSATION, epoch: 0 }], state)
    expect(after.conversationId).toBeNull()
  })

  it("a failed save: 'Failed to create conversation' for a new chat, 'Failed to update conversation' for a saved one; nothing changes", () => {
    const state = opened([])
    const created = nextChat(state, { type: 'save-failed', creating: true, error: new Error('down') })
    expect(created.state).toBe(state)
    expect(toasts(created.effects)).toEqual([[CHAT_ERRORS.createConversation, null]])
    expect(created.effects).toContainEqual({ type: 'log', what: 'Saving the conversation failed', error: 'down' })
    expect(toasts(nextChat(state, { type: 'save-failed', creating: false, error: 'down' }).effects)).toEqual([[CHAT_ERRORS.updateConversation, null]])
  })
})

describe('sending a typed message', () => {
  it('shows the message at once, streams the reply, then shows the reply as stored', () => {
    const message = user('u1', 'Hello')
    const started = run([{ type: 'send-started', message }], opened([])).state
    expect(started).toMatchObject({ processing: true, streamingText: null })
    expect(ids(started)).toEqual(['u1'])
    expect(started.pending.has('u1')).toBe(true)
    const streaming = run(sent(message, ai('a1'), 1).slice(1, 4), started).state
    expect(streaming.streamingText).toBe('Hello')
    expect(streaming.saved.has('u1')).toBe(true)
    expect(streaming.pending.has('u1')).toBe(false)
    const { state, effects } = run(sent(message, ai('a1'), 1).slice(4), streaming)
    expect(ids(state)).toEqual(['u1', 'a1'])
    expect(state).toMatchObject({ processing: false, streamingText: null })
    expect(state.saved.has('a1')).toBe(true)
    expect(refreshes(effects)).toBe(1)
    expect(unsaved(state)).toEqual([])
  })

  it('a new chat is created first: titled with the message, holding what was said before it', () => {
    const before = user('b1', 'Earlier words')
    const message = user('u1', 'Hello')
    const state = run([{ type: 'send-started', message }], { ...initialChat(GREETING, AT), messages: [...initialChat(GREETING, AT).messages, before] }).state
    expect(planSendCreate(state, message)).toEqual({ kind: 'create', title: 'Earlier words...', content: [before], epoch: 0 })
    const alone = run([{ type: 'send-started', message }]).state
    expect(planSendCreate(alone, message)).toEqual({ kind: 'create', title: 'Hello...', content: [], epoch: 0 })
  })

  it('a reply the duplicate rules skipped or replaced updates the message on screen, never adds one', () => {
    const state = opened([user('u1'), ai('a1', 'Keep going')])
    const { state: replaced } = run([{ type: 'send-replied', reply: ai('a1', 'Keep going, you are doing well'), outcome: 'replaced', epoch: 1 }], state)
    expect(visibleMessages(replaced).map((message) => message.text)).toEqual(['said u1', 'Keep going, you are doing well'])
    const { state: skipped } = run([{ type: 'send-replied', reply: ai('gone', 'Earlier words'), outcome: 'skipped', epoch: 1 }], state)
    expect(ids(skipped)).toEqual(['u1', 'a1'])
    expect(applyAssistantReply(state.messages, ai('a2'), 'appended').map((message) => message.id)).toEqual([GREETING_MESSAGE_ID, 'u1', 'a1', 'a2'])
  })

  it("the assistant's failure is its reply in the chat (never saved), no toast", () => {
    const message = user('u1')
    const error = new ApiError({ status: 504, code: 'ASSISTANT_TIMEOUT', message: ERRORS.ASSISTANT_TIMEOUT.message })
    const { state, effects } = run(
      [{ type: 'send-started', message }, { type: 'send-failed', error, epoch: 1, notice: { id: 'n1', at: AT } }, { type: 'send-settled', id: 'u1', epoch: 1 }],
      opened([]),
    )
    expect(visibleMessages(state).at(-1)).toEqual({ id: 'n1', text: CHAT_ERRORS.timeout, sender: 'ai', timestamp: AT, ephemeral: true })
    expect(toasts(effects)).toEqual([])
    expect(effects).toContainEqual({ type: 'log', what: 'Assistant error', error: ERRORS.ASSISTANT_TIMEOUT.message })
    expect(state.processing).toBe(false)
    // The user's message was never stored: the timer saves it.
    expect(unsaved(state)).toEqual([message])
    expect(savable(state.messages)).toEqual([message])
  })

  it("a network failure: the toast 'Error' - 'Failed to send message. Please try again.' and the connection-trouble reply", () => {
    const { state, effects } = run([{ type: 'send-failed', error: new TypeError('fetch failed'), epoch: 1, notice: { id: 'n1', at: AT } }], opened([]))
    expect(toasts(effects)).toEqual([['Error', CHAT_ERRORS.sendFailed]])
    expect(visibleMessages(state).at(-1)!.text).toBe(CHAT_ERRORS.connectionTrouble)
  })

  it("the plan's messages used up: its toast with the server's words, no reply", () => {
    const words = "You've used this month's 300 messages to your coach. They come back on July 1."
    const { state, effects } = run([{ type: 'send-failed', error: new ApiError({ status: 429, code: 'USAGE_LIMIT_REACHED', message: words }), epoch: 1, notice: { id: 'n1', at: AT } }], opened([]))
    expect(toasts(effects)).toEqual([[USAGE_TEXT.chatLimitTitle, words]])
    expect(ids(state)).toEqual([])
  })

  it('answers for a chat no longer shown leave the screen alone', () => {
    const message = user('u1')
    const moved = run([{ type: 'send-started', message }, { type: 'shown', chat: { conversationId: OTHER, content: [user('x1')], hasEarlier: false }, at: AT }], opened([])).state
    const { state, effects } = run(
      [
        { type: 'send-delta', text: 'late', epoch: 1 },
        { type: 'send-replied', reply: ai('a1'), outcome: 'appended', epoch: 1 },
        { type: 'send-failed', error: new TypeError('x'), epoch: 1, notice: { id: 'n1', at: AT } },
        { type: 'send-settled', id: 'u1', epoch: 1 },
      ],
      { ...moved, processing: true, streamingText: 'mine' },
    )
    expect(ids(state)).toEqual(['x1'])
    expect(state).toMatchObject({ streamingText: 'mine', processing: true, conversationId: OTHER })
    // The list is still refreshed, and the failure still said.
    expect(refreshes(effects)).toBe(1)
    expect(toasts(effects)).toHaveLength(1)
  })
})

describe('showing another chat', () => {
  it('opens a conversation on its page, everything of the old chat gone, a new epoch', () => {
    const busy = run([{ type: 'send-started', message: user('u1') }, { type: 'conversation-loading' }]).state
    expect(busy.loadingConversation).toBe(true)
    const { state } = run([{ type: 'conversation-loaded', conversation: conversation(OTHER, [user('x1'), ai('x2')], true), at: AT }], busy)
    expect(state).toMatchObject({ conversationId: OTHER, processing: false, streamingText: null, hasEarlier: true, earlierCount: 0, loadingConversation: false, epoch: 1 })
    expect(ids(state)).toEqual(['x1', 'x2'])
    expect(state.messages[0]!.id).toBe(GREETING_MESSAGE_ID)
    expect([...state.saved]).toEqual(['x1', 'x2'])
    expect(state.pending.size).toBe(0)
  })

  it("a conversation that could not be read: 'Failed to load conversations', and the chat stays", () => {
    const before = run([{ type: 'conversation-loading' }], opened([user('u1')])).state
    const { state, effects } = run([{ type: 'conversation-failed', error: new Error('gone') }], before)
    expect(state).toEqual({ ...before, loadingConversation: false })
    expect(toasts(effects)).toEqual([[CHAT_ERRORS.loadConversations, null]])
  })

  it('deleting the open conversation starts a new chat; deleting another changes nothing', () => {
    const state = opened([user('u1')])
    expect(nextChat(state, { type: 'forgotten', conversationId: OTHER, at: AT }).state).toBe(state)
    const { state: after } = run([{ type: 'forgotten', conversationId: CONVERSATION, at: AT }], state)
    expect(after).toMatchObject({ conversationId: null, epoch: 2 })
    expect(ids(after)).toEqual([])
  })
})

describe('loading earlier messages', () => {
  it('asks for the page before the oldest saved message shown; a new chat has none', () => {
    expect(earlierCursor(initialChat(GREETING, AT))).toBeNull()
    expect(earlierCursor(opened([]))).toBeNull()
    expect(earlierCursor(opened([user('u5'), ai('a5')], true))).toEqual({ conversationId: CONVERSATION, before: 'u5', epoch: 1 })
  })

  it('puts the page before the messages shown (after the greeting), skipping any already shown, and counts them', () => {
    const loading = run([{ type: 'earlier-loading' }], opened([user('u5'), ai('a5')], true)).state
    expect(loading.loadingEarlier).toBe(true)
    const { state } = run([{ type: 'earlier-loaded', content: [user('u3'), ai('a3'), user('u5')], hasEarlier: false, epoch: 1 }], loading)
    expect(state.messages.map((message) => message.id)).toEqual([GREETING_MESSAGE_ID, 'u3', 'a3', 'u5', 'a5'])
    expect(state).toMatchObject({ earlierCount: 2, hasEarlier: false, loadingEarlier: false })
    expect(earlierCursor(state)!.before).toBe('u3')
    expect(unsaved(state)).toEqual([])
    const again = run([{ type: 'earlier-loaded', content: [user('u1')], hasEarlier: true, epoch: 1 }], state).state
    expect(again.earlierCount).toBe(3)
  })

  it('a page for a chat no longer shown is dropped; a failure says so', () => {
    const moved = { ...opened([user('u5')], true), epoch: 2, loadingEarlier: true }
    expect(nextChat(moved, { type: 'earlier-loaded', content: [user('u1')], hasEarlier: false, epoch: 1 }).state).toBe(moved)
    const failedLate = nextChat(moved, { type: 'earlier-failed', error: new Error('x'), epoch: 1 })
    expect(failedLate.state.loadingEarlier).toBe(true)
    const failed = nextChat(moved, { type: 'earlier-failed', error: new Error('x'), epoch: 2 })
    expect(failed.state.loadingEarlier).toBe(false)
    expect(toasts(failed.effects)).toEqual([[CHAT_ERRORS.loadConversations, null]])
  })
})

describe('a voice call in the chat (spec 2 §5)', () => {
  const began = (from = opened([user('u1')])) => run([{ type: 'voice-began' }], from).state
  const transcript = (role: 'user' | 'assistant', text: string, final: boolean, id: string): ChatEvent => ({
    type: 'voice-transcript',
    transcript: { role, text, final },
    message: { id, at: AT },
  })

  it('begins in the chat on screen, its thread kept and its epoch remembered (docs/decisions/084)', () => {
    const state = began()
    expect(state).toMatchObject({ conversationId: CONVERSATION, voiceEpoch: 1, epoch: 1 })
    expect(ids(state)).toEqual(['u1'])
    expect(state.transcripts.live).toEqual({ user: null, assistant: null })
    // A new chat too: the call makes its conversation.
    expect(began(initialChat(GREETING, AT))).toMatchObject({ conversationId: null, voiceEpoch: 0, epoch: 0 })
  })

  it('partials are the live lines; finals become voice messages, which the browser never saves', () => {
    const live = run([transcript('user', 'I want', false, 'v1'), transcript('assistant', 'Sure', false, 'v2')], began()).state
    expect(live.transcripts.live).toEqual({ user: 'I want', assistant: 'Sure' })
    expect(ids(live)).toEqual(['u1'])
    const { state } = run([transcript('user', 'I want to run', true, 'v3'), transcript('assistant', 'Sure, let us plan it', true, 'v4')], live)
    expect(visibleMessages(state)).toEqual([
      user('u1'),
      { id: 'v3', text: 'I want to run', sender: 'user', timestamp: AT, voice: true, spoken: true },
      { id: 'v4', text: 'Sure, let us plan it', sender: 'ai', timestamp: AT, voice: true, spoken: true },
    ])
    expect(state.transcripts.live).toEqual({ user: null, assistant: null })
    // The call's lines are never saved by the browser (u1 is the server's already).
    expect(savable(state.messages).map((message) => message.id)).toEqual(['u1'])
    expect(saveDelay(state)).toBeNull()
  })

  it("typed words are shown at once, and the same words coming back as the user's transcript are not shown twice", () => {
    const { state } = run([{ type: 'voice-typed', text: '  Hello coach ', id: 't1', at: AT }, transcript('user', 'Hello coach', true, 'v1')], began())
    expect(visibleMessages(state).map((message) => [message.id, message.text, message.voice, message.spoken])).toEqual([
      ['u1', 'said u1', undefined, undefined],
      ['t1', 'Hello coach', true, undefined],
    ])
    const blank = began()
    expect(nextChat(blank, { type: 'voice-typed', text: '   ', id: 't2', at: AT }).state).toBe(blank)
  })

  it('ends with the live lines cleared and the list refreshed; the saved conversation opens while the call is on screen', () => {
    const going = run([transcript('user', 'I want', false, 'v1')], began()).state
    expect(voiceConversationToOpen(going, CONVERSATION)).toEqual({ conversationId: CONVERSATION, epoch: 1 })
    expect(voiceConversationToOpen(going, null)).toBeNull()
    const { state, effects } = run([{ type: 'voice-ended' }], going)
    expect(state.voiceEpoch).toBeNull()
    expect(state.transcripts.live).toEqual({ user: null, assistant: null })
    expect(refreshes(effects)).toBe(1)
    const shown = run(
      [
        { type: 'voice-conversation-loaded', conversation: conversation(CONVERSATION, [user('s1'), ai('s2')]), epoch: 1, at: AT },
        { type: 'notice', text: 'Voice call ended. The conversation has been processed.', tone: 'info', id: 'n1', at: AT },
      ],
      state,
    ).state
    expect(shown.conversationId).toBe(CONVERSATION)
    expect(visibleMessages(shown).map((message) => message.id)).toEqual(['s1', 's2', 'n1'])
    expect(visibleMessages(shown).at(-1)).toMatchObject({ ephemeral: true, info: true })
  })

  it('after another chat was shown during the call, the saved conversation does not replace it, and the call adds nothing to it', () => {
    const moved = run([{ type: 'shown', chat: { conversationId: OTHER, content: [], hasEarlier: false }, at: AT }], began()).state
    expect(voiceConversationToOpen(moved, CONVERSATION)).toBeNull()
    expect(voiceConversationToOpen(initialChat(GREETING, AT), CONVERSATION)).toBeNull()
    expect(nextChat(moved, { type: 'voice-conversation-loaded', conversation: conversation(CONVERSATION, []), epoch: 1, at: AT }).state).toBe(moved)
    expect(nextChat(moved, transcript('user', 'Still talking', true, 'v9')).state).toBe(moved)
    expect(nextChat(moved, { type: 'voice-typed', text: 'Typed', id: 't9', at: AT }).state).toBe(moved)
    const failed = nextChat(moved, { type: 'voice-conversation-failed', error: new Error('gone') })
    expect(failed.effects).toEqual([{ type: 'log', what: 'Loading the voice conversation failed', error: 'gone' }])
    expect(toasts(failed.effects)).toEqual([])
  })
})

describe("the chat's notices", () => {
  it('an error notice is never saved and not marked info', () => {
    const { state } = run([{ type: 'notice', text: 'Not currently in a call.', tone: 'error', id: 'n1', at: AT }])
    expect(visibleMessages(state)).toEqual([{ id: 'n1', text: 'Not currently in a call.', sender: 'ai', timestamp: AT, ephemeral: true }])
    expect(savable(state.messages)).toEqual([])
  })

  it('a new chat with only notices keeps the default title if saved now', () => {
    const state = run([{ type: 'notice', text: 'x', tone: 'info', id: 'n1', at: AT }]).state
    expect(planSave(state, 'now')).toBeNull()
    expect(planSendCreate(state, user('u1', 'Plan my week')).title).toBe('Plan my week...')
    expect(planSendCreate({ ...state, messages: state.messages }, { ...user('u1'), text: '   ' }).title).toBe(DEFAULT_CONVERSATION_TITLE)
  })
})

describe('an archived conversation (docs/decisions/084)', () => {
  const archivedChat = () =>
    run([{ type: 'conversation-loaded', conversation: { ...conversation(CONVERSATION, [user('u1')]), archivedAt: AT }, at: AT }]).state

  it('opens as archived; a message stored into it, a save, or reopening it makes it open again', () => {
    const state = archivedChat()
    expect(state.archived).toBe(true)
    expect(run([{ type: 'send-started', message: user('u2') }, { type: 'send-stored', id: 'u2', epoch: 1 }], state).state.archived).toBe(false)
    // A message stored for a chat shown before leaves this one as it is.
    expect(run([{ type: 'send-stored', id: 'u2', epoch: 0 }], state).state.archived).toBe(true)
    expect(run([{ type: 'saved', ids: ['u2'], created: null, epoch: 1 }], state).state.archived).toBe(false)
    expect(run([{ type: 'reopened', conversationId: CONVERSATION }], state).state.archived).toBe(false)
    expect(nextChat(state, { type: 'reopened', conversationId: OTHER }).state).toBe(state)
    // Another chat shown: not archived.
    expect(run([{ type: 'shown', chat: { conversationId: null, content: [], hasEarlier: false }, at: AT }], state).state.archived).toBe(false)
  })
})
