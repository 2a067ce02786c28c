import { useQueryClient } from '@tanstack/react-query'
import { useCallback, useEffect, useRef, useState } from 'react'
import {
  CHAT_ERRORS,
  CONTENT_AUTOSAVE_DELAY_MS,
  GREETING_MESSAGE_ID,
  NEW_CHAT_SAVE_DELAY_MS,
  NEW_CHAT_SAVE_MIN_MESSAGES,
  SAVE_BATCH_MAX,
  titleFromMessages,
  type ChatMessage,
  type ReplyOutcome,
  type SavedMessage,
} from '#common/chat'
import { toast } from '#web/lib/toast'
import { chatKeys, createConversation, fetchConversation, saveConversationContent, streamMessage } from './api'
import { sendFailure } from './send-failure'
import { applyTranscript, initialTranscriptState, type LiveTranscripts, type TranscriptEvent, type TranscriptState } from './voice/transcripts'

/**
 * A message on screen. `ephemeral` ones (the chat's own notices) are never saved; `info` marks a
 * notice that is not an error. `voice` ones were said (or typed) in a voice call: the server saves
 * the call's conversation itself, so the browser never saves them.
 */
export type LocalMessage = ChatMessage & { ephemeral?: true; info?: true; voice?: true }

const now = () => new Date().toISOString()

/** The hidden initial greeting: first in the list, never shown in it, never saved. */
export function greetingMessage(text: string): LocalMessage {
  return { id: GREETING_MESSAGE_ID, text, sender: 'ai', timestamp: now() }
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

/** The user's messages the server does not have and that are not being sent right now. */
const unsavedOf = (messages: readonly LocalMessage[], saved: ReadonlySet<string>, pending: ReadonlySet<string>) =>
  savable(messages).filter((message) => !saved.has(message.id) && !pending.has(message.id))

const errorMessage = (error: unknown) => (error instanceof Error ? error.message : String(error))

/**
 * The chat's state and its saving:
 * - a typed message is sent through the server, which stores it at once and the reply when it
 *   arrives; the first one in a new chat first saves the chat (the title rule) to have an id;
 * - messages the server does not have yet (none in a text chat unless a send failed before it was
 *   stored; voice transcripts later) are saved by the timers: a new chat about 3 s after it has
 *   2 messages, a saved one 2 s after a change. The server merges saves by message id, and a
 *   message being sent is never in a save, so nothing is lost or stored twice;
 * - New Chat and selecting another conversation save what is unsaved first;
 * - a conversation opens on its newest page of messages; `loadEarlier` adds the page before.
 */
export function useChat({ greeting }: { greeting: string }) {
  const queryClient = useQueryClient()
  const [conversationId, setConversationId] = useState<string | null>(null)
  const [messages, setMessages] = useState<LocalMessage[]>(() => [greetingMessage(greeting)])
  const [processing, setProcessing] = useState(false)
  const [streamingText, setStreamingText] = useState<string | null>(null)
  const [loadingConversation, setLoadingConversation] = useState(false)
  /** The server holds messages older than the first one shown. */
  const [hasEarlier, setHasEarlier] = useState(false)
  const [loadingEarlier, setLoadingEarlier] = useState(false)
  /** How many of the messages shown were added by `loadEarlier` (they lead the list). */
  const [earlierCount, setEarlierCount] = useState(0)
  /** A voice call's live (partial) transcripts, one line per speaker. */
  const [liveTranscripts, setLiveTranscripts] = useState<LiveTranscripts>(() => initialTranscriptState().live)
  const transcriptState = useRef<TranscriptState>(initialTranscriptState())
  /** The view the voice call began in (the epoch); null when no call is going. */
  const voiceEpoch = useRef<number | null>(null)

  /** Ids the server is known to have. */
  const saved = useRef(new Set<string>())
  /** Ids being sent through the send endpoint right now (never autosaved). */
  const pending = useRef(new Set<string>())
  /** Bumped when another chat is shown: late answers for the old one leave the screen alone. */
  const epoch = useRef(0)
  const messagesRef = useRef(messages)
  const conversationIdRef = useRef(conversationId)
  const savingRef = useRef<Promise<boolean> | null>(null)
  useEffect(() => {
    messagesRef.current = messages
    conversationIdRef.current = conversationId
  }, [messages, conversationId])

  const refreshList = useCallback(() => queryClient.invalidateQueries({ queryKey: chatKeys.lists }), [queryClient])

  /** Saves what the server does not have yet; resolves false (after the spec's toast) on failure. */
  const saveUnsaved = useCallback(
    async (mode: 'timer' | 'now'): Promise<boolean> => {
      if (savingRef.current) await savingRef.current
      const run = async (): Promise<boolean> => {
        const todo = unsavedOf(messagesRef.current, saved.current, pending.current).slice(0, SAVE_BATCH_MAX)
        const markSaved = (list: readonly ChatMessage[]) => list.forEach((message) => saved.current.add(message.id))
        if (todo.length === 0) return true
        const id = conversationIdRef.current
        const startedIn = epoch.current
        if (!id) {
          const all = savable(messagesRef.current)
          if (mode === 'timer' && all.length < NEW_CHAT_SAVE_MIN_MESSAGES) return true
          try {
            const created = await createConversation({ title: titleFromMessages(all), content: all.slice(0, SAVE_BATCH_MAX) })
            markSaved(all.slice(0, SAVE_BATCH_MAX))
            if (epoch.current === startedIn) {
              conversationIdRef.current = created.id
              setConversationId(created.id)
            }
            void refreshList()
            return true
          } catch (error) {
            console.error('Saving the conversation failed:', errorMessage(error))
            void toast({ title: CHAT_ERRORS.createConversation, variant: 'destructive' })
            return false
          }
        }
        try {
          await saveConversationContent(id, todo)
          markSaved(todo)
          void refreshList()
          return true
        } catch (error) {
          console.error('Saving the conversation failed:', errorMessage(error))
          void toast({ title: CHAT_ERRORS.updateConversation, variant: 'destructive' })
          return false
        }
      }
      const promise = run()
      savingRef.current = promise
      try {
        return await promise
      } finally {
        if (savingRef.current === promise) savingRef.current = null
      }
    },
    [refreshList],
  )

  // The save timers (they restart on every change, so they count from the last one).
  useEffect(() => {
    if (processing) return
    if (unsavedOf(messages, saved.current, pending.current).length === 0) return
    if (!conversationId && savable(messages).length < NEW_CHAT_SAVE_MIN_MESSAGES) return
    const timer = window.setTimeout(() => void saveUnsaved('timer'), conversationId ? CONTENT_AUTOSAVE_DELAY_MS : NEW_CHAT_SAVE_DELAY_MS)
    return () => window.clearTimeout(timer)
  }, [messages, conversationId, processing, saveUnsaved])

  const showChat = useCallback(
    (id: string | null, content: ChatMessage[], earlier: boolean) => {
      epoch.current += 1
      saved.current = new Set(content.map((m) => m.id))
      pending.current = new Set()
      setConversationId(id)
      conversationIdRef.current = id
      const next = [greetingMessage(greeting), ...content]
      messagesRef.current = next
      setMessages(next)
      setStreamingText(null)
      setProcessing(false)
      setHasEarlier(earlier)
      setLoadingEarlier(false)
      setEarlierCount(0)
    },
    [greeting],
  )

  /** New Chat: saves unsaved messages first; stays on the current chat if that fails. */
  const newChat = useCallback(async () => {
    if (!(await saveUnsaved('now'))) return false
    showChat(null, [], false)
    return true
  }, [saveUnsaved, showChat])

  /** 'Load earlier messages': the page before the oldest message shown. */
  const loadEarlier = useCallback(async () => {
    const id = conversationIdRef.current
    const oldest = messagesRef.current.find((message) => saved.current.has(message.id))
    if (!id || !oldest) return
    const startedIn = epoch.current
    setLoadingEarlier(true)
    try {
      const page = await fetchConversation(id, oldest.id)
      if (epoch.current !== startedIn) return
      const shown = new Set(messagesRef.current.map((message) => message.id))
      const older = page.content.filter((message) => !shown.has(message.id))
      older.forEach((message) => saved.current.add(message.id))
      const greetings = messagesRef.current.filter((message) => message.id === GREETING_MESSAGE_ID)
      const next = [...greetings, ...older, ...messagesRef.current.filter((message) => message.id !== GREETING_MESSAGE_ID)]
      messagesRef.current = next
      setMessages(next)
      setEarlierCount((count) => count + older.length)
      setHasEarlier(page.hasEarlier)
    } catch (error) {
      console.error('Loading earlier messages failed:', errorMessage(error))
      void toast({ title: CHAT_ERRORS.loadConversations, variant: 'destructive' })
    } finally {
      if (epoch.current === startedIn) setLoadingEarlier(false)
    }
  }, [])

  /** Selecting a conversation loads its messages (after saving what is unsaved here). */
  const selectConversation = useCallback(
    async (id: string) => {
      if (id === conversationIdRef.current) return true
      if (!(await saveUnsaved('now'))) return false
      setLoadingConversation(true)
      try {
        const conversation = await fetchConversation(id)
        showChat(conversation.id, conversation.content, conversation.hasEarlier)
        return true
      } catch (error) {
        console.error('Loading the conversation failed:', errorMessage(error))
        void toast({ title: CHAT_ERRORS.loadConversations, variant: 'destructive' })
        return false
      } finally {
        setLoadingConversation(false)
      }
    },
    [saveUnsaved, showChat],
  )

  /** After a delete: if it was the open conversation, start a new chat (nothing left to save). */
  const forgetConversation = useCallback(
    (id: string) => {
      if (conversationIdRef.current === id) showChat(null, [], false)
    },
    [showChat],
  )

  /** Adds a message to the list now (the ref too, so the next change in the same turn sees it). */
  const setList = useCallback((next: LocalMessage[]) => {
    messagesRef.current = next
    setMessages(next)
  }, [])

  const voiceMessage = useCallback(
    (sender: ChatMessage['sender'], text: string): LocalMessage => ({ id: `voice-${crypto.randomUUID()}`, text, sender, timestamp: now(), voice: true }),
    [],
  )

  /**
   * A voice call begins: what is unsaved here is saved first, then a new chat shows the call (the
   * server saves the call as its own conversation). Resolves false when the save failed.
   */
  const beginVoiceCall = useCallback(async (): Promise<boolean> => {
    if (!(await saveUnsaved('now'))) return false
    showChat(null, [], false)
    transcriptState.current = initialTranscriptState()
    setLiveTranscripts(transcriptState.current.live)
    voiceEpoch.current = epoch.current
    return true
  }, [saveUnsaved, showChat])

  /** A transcript from the voice call: partials replace the live line, finals become messages (spec 2 §5). */
  const voiceTranscript = useCallback(
    (event: TranscriptEvent) => {
      const result = applyTranscript(transcriptState.current, messagesRef.current, event, voiceMessage)
      transcriptState.current = result.state
      setLiveTranscripts(result.state.live)
      if (event.final) setList(result.messages)
    },
    [setList, voiceMessage],
  )

  /**
   * A message typed into the voice call: shown at once; the same words coming back as the user's
   * transcript are not shown twice (the transcript rule: it must differ from the previous one).
   */
  const voiceTyped = useCallback(
    (text: string) => {
      const trimmed = text.trim()
      if (!trimmed) return
      transcriptState.current = { ...transcriptState.current, lastUserTranscript: trimmed }
      setList([...messagesRef.current, voiceMessage('user', trimmed)])
    },
    [setList, voiceMessage],
  )

  /** Shows one of the chat's own notices (never saved). */
  const notice = useCallback(
    (text: string, tone: 'info' | 'error') => {
      const message: LocalMessage = { id: `notice-${crypto.randomUUID()}`, text, sender: 'ai', timestamp: now(), ephemeral: true, ...(tone === 'info' ? { info: true as const } : {}) }
      setList([...messagesRef.current, message])
    },
    [setList],
  )

  /**
   * The voice call ended. With the conversation the server saved it as, and the call's view still
   * on screen, that conversation becomes the current one (loaded as saved); then `reply` is shown.
   */
  const endVoiceCall = useCallback(
    async ({ conversationId: savedId, reply }: { conversationId: string | null; reply: { text: string; tone: 'info' | 'error' } | null }) => {
      const began = voiceEpoch.current
      voiceEpoch.current = null
      transcriptState.current = { ...transcriptState.current, live: { user: null, assistant: null } }
      setLiveTranscripts(transcriptState.current.live)
      void refreshList()
      if (savedId && began !== null && began === epoch.current) {
        try {
          const conversation = await fetchConversation(savedId)
          if (epoch.current !== began) return
          showChat(conversation.id, conversation.content, conversation.hasEarlier)
        } catch (error) {
          console.error('Loading the voice conversation failed:', errorMessage(error))
        }
      }
      if (reply) notice(reply.text, reply.tone)
    },
    [notice, refreshList, showChat],
  )

  /** Sends a typed message (Enter or the send button). Resolves false when nothing was sent. */
  const send = useCallback(
    async (raw: string): Promise<boolean> => {
      const text = raw.trim()
      if (!text || processing) return false
      const startedIn = epoch.current
      const current = () => epoch.current === startedIn
      const message: ChatMessage = { id: crypto.randomUUID(), text, sender: 'user', timestamp: now() }
      pending.current.add(message.id)
      setProcessing(true)
      setStreamingText(null)
      setMessages((list) => [...list, message])
      messagesRef.current = [...messagesRef.current, message]
      try {
        let id = conversationIdRef.current
        if (!id) {
          // The chat gets its saved id now, with the title rule and anything said before.
          if (savingRef.current) await savingRef.current
          id = conversationIdRef.current
        }
        if (!id) {
          const before = savable(messagesRef.current).filter((m) => m.id !== message.id)
          const created = await createConversation({
            title: titleFromMessages([...before, message]),
            content: before.slice(0, SAVE_BATCH_MAX),
          })
          before.slice(0, SAVE_BATCH_MAX).forEach((m) => saved.current.add(m.id))
          id = created.id
          if (current()) {
            setConversationId(id)
            conversationIdRef.current = id
          }
          void refreshList()
        }
        const result = await streamMessage(
          id,
          { id: message.id, text },
          {
            onStored: (storedMessage) => {
              saved.current.add(storedMessage.id)
              pending.current.delete(storedMessage.id)
            },
            onDelta: (delta) => {
              if (current()) setStreamingText((sofar) => (sofar ?? '') + delta)
            },
          },
        )
        saved.current.add(result.reply.id)
        if (current()) setMessages((list) => applyAssistantReply(list, result.reply, result.outcome))
        return true
      } catch (error) {
        console.error('Assistant error:', errorMessage(error))
        const failure = sendFailure(error)
        if (failure.toast) void toast({ ...failure.toast, variant: 'destructive' })
        if (failure.reply && current()) {
          const notice: LocalMessage = { id: `notice-${crypto.randomUUID()}`, text: failure.reply, sender: 'ai', timestamp: now(), ephemeral: true }
          setMessages((list) => [...list, notice])
        }
        return true
      } finally {
        pending.current.delete(message.id)
        if (current()) {
          setStreamingText(null)
          setProcessing(false)
        }
        void refreshList()
      }
    },
    [processing, refreshList],
  )

  return {
    conversationId,
    /** What the list shows: everything but the hidden greeting. */
    messages: messages.filter((message) => message.id !== GREETING_MESSAGE_ID),
    processing,
    streamingText,
    loadingConversation,
    hasEarlier,
    loadingEarlier,
    earlierCount,
    loadEarlier,
    send,
    newChat,
    selectConversation,
    forgetConversation,
    liveTranscripts,
    beginVoiceCall,
    voiceTranscript,
    voiceTyped,
    endVoiceCall,
    notice,
  }
}

export type Chat = ReturnType<typeof useChat>
