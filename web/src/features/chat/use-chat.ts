import { useQueryClient } from '@tanstack/react-query'
import { useCallback, useEffect, useMemo, useRef, useState } from 'react'
import type { ChatMessage } from '#common/chat'
import { toast } from '#web/lib/toast'
import { chatKeys, createConversation, fetchConversation, saveConversationContent, streamMessage } from './api'
import {
  earlierCursor,
  initialChat,
  nextChat,
  planSave,
  planSendCreate,
  saveDelay,
  visibleMessages,
  voiceConversationToOpen,
  type ChatEffect,
  type ChatEvent,
  type ChatState,
  type SavePlan,
} from './chat-machine'
import type { TranscriptEvent } from './voice/transcripts'

const now = () => new Date().toISOString()
/** The id and time of a message the chat makes itself. */
const made = (prefix: string) => ({ id: `${prefix}-${crypto.randomUUID()}`, at: now() })

/**
 * The chat (chat-machine.ts holds its states and rules): this carries out the machine's effects
 * (toasts, the console, the sidebar's list read again), runs the save timers, and makes the
 * requests the machine plans, feeding their answers back as events. Saves never overlap: a save
 * waits for the one going, then plans from the state as it is then.
 */
export function useChat({ greeting }: { greeting: string }) {
  const queryClient = useQueryClient()
  /** The state as of the last event (read by the requests in flight); `state` renders it. */
  const [initial] = useState(() => initialChat(greeting, now()))
  const store = useRef<ChatState>(initial)
  const [state, setState] = useState(initial)
  const savingRef = useRef<Promise<boolean> | null>(null)

  const run = useCallback(
    (effect: ChatEffect) => {
      if (effect.type === 'toast') void toast({ title: effect.title, ...(effect.description !== null ? { description: effect.description } : {}), variant: 'destructive' })
      else if (effect.type === 'refresh-list') void queryClient.invalidateQueries({ queryKey: chatKeys.lists })
      else console.error(`${effect.what}:`, effect.error)
    },
    [queryClient],
  )

  const dispatch = useCallback(
    (event: ChatEvent): ChatState => {
      const { state: next, effects } = nextChat(store.current, event)
      store.current = next
      setState(next)
      effects.forEach(run)
      return next
    },
    [run],
  )
  useEffect(() => {
    dispatch({ type: 'greeting-changed', greeting })
  }, [dispatch, greeting])

  /** Creates or updates as planned and tells the machine; resolves with the conversation's id. */
  const carryOut = useCallback(
    async (plan: SavePlan): Promise<string> => {
      const ids = plan.content.map((message) => message.id)
      if (plan.kind === 'update') {
        await saveConversationContent(plan.conversationId, plan.content)
        dispatch({ type: 'saved', ids, created: null, epoch: plan.epoch })
        return plan.conversationId
      }
      const created = await createConversation({ title: plan.title, content: plan.content })
      dispatch({ type: 'saved', ids, created: created.id, epoch: plan.epoch })
      return created.id
    },
    [dispatch],
  )

  /** Saves what the server does not have yet; resolves false (after the spec's toast) on failure. */
  const saveUnsaved = useCallback(
    async (mode: 'timer' | 'now'): Promise<boolean> => {
      if (savingRef.current) await savingRef.current
      const save = async (): Promise<boolean> => {
        const plan = planSave(store.current, mode)
        if (!plan) return true
        try {
          await carryOut(plan)
          return true
        } catch (error) {
          dispatch({ type: 'save-failed', creating: plan.kind === 'create', error })
          return false
        }
      }
      const promise = save()
      savingRef.current = promise
      try {
        return await promise
      } finally {
        if (savingRef.current === promise) savingRef.current = null
      }
    },
    [carryOut, dispatch],
  )

  // The save timer restarts on every change of the messages, the chat or `processing`, so it
  // counts from the last one.
  const { messages, conversationId, processing } = state
  useEffect(() => {
    const delay = saveDelay(store.current)
    if (delay === null) return
    const timer = window.setTimeout(() => void saveUnsaved('timer'), delay)
    return () => window.clearTimeout(timer)
  }, [messages, conversationId, processing, saveUnsaved])

  /** New Chat: saves unsaved messages first; stays on the current chat if that fails. */
  const newChat = useCallback(async () => {
    if (!(await saveUnsaved('now'))) return false
    dispatch({ type: 'shown', chat: { conversationId: null, content: [], hasEarlier: false }, at: now() })
    return true
  }, [dispatch, saveUnsaved])

  /** 'Load earlier messages': the page before the oldest message shown. */
  const loadEarlier = useCallback(async () => {
    const cursor = earlierCursor(store.current)
    if (!cursor) return
    dispatch({ type: 'earlier-loading' })
    try {
      const page = await fetchConversation(cursor.conversationId, cursor.before)
      dispatch({ type: 'earlier-loaded', content: page.content, hasEarlier: page.hasEarlier, epoch: cursor.epoch })
    } catch (error) {
      dispatch({ type: 'earlier-failed', error, epoch: cursor.epoch })
    }
  }, [dispatch])

  /** Selecting a conversation loads its messages (after saving what is unsaved here). */
  const selectConversation = useCallback(
    async (id: string) => {
      if (id === store.current.conversationId) return true
      if (!(await saveUnsaved('now'))) return false
      dispatch({ type: 'conversation-loading' })
      try {
        dispatch({ type: 'conversation-loaded', conversation: await fetchConversation(id), at: now() })
        return true
      } catch (error) {
        dispatch({ type: 'conversation-failed', error })
        return false
      }
    },
    [dispatch, saveUnsaved],
  )

  /** After a delete: if it was the open conversation, start a new chat (nothing left to save). */
  const forgetConversation = useCallback((id: string) => void dispatch({ type: 'forgotten', conversationId: id, at: now() }), [dispatch])

  /**
   * A voice call begins in the chat on screen (docs/decisions/084): what is unsaved here is saved
   * first, then the call goes on in this thread. Resolves with the conversation the call is to be
   * written into (null: a new chat the server does not have, the call makes one), or false when
   * the save failed.
   */
  const beginVoiceCall = useCallback(async (): Promise<{ conversationId: string | null } | false> => {
    if (!(await saveUnsaved('now'))) return false
    dispatch({ type: 'voice-began' })
    return { conversationId: store.current.conversationId }
  }, [dispatch, saveUnsaved])

  /** A conversation was reopened (the sidebar's or the thread's 'Reopen'). */
  const reopened = useCallback((id: string) => void dispatch({ type: 'reopened', conversationId: id }), [dispatch])

  /** A transcript from the voice call: partials replace the live line, finals become messages (spec 2 §5). */
  const voiceTranscript = useCallback(
    (transcript: TranscriptEvent) => void dispatch({ type: 'voice-transcript', transcript, message: made('voice') }),
    [dispatch],
  )

  /**
   * A message typed into the voice call: shown at once; the same words coming back as the user's
   * transcript are not shown twice (the transcript rule: it must differ from the previous one).
   */
  const voiceTyped = useCallback((text: string) => void dispatch({ type: 'voice-typed', text, ...made('voice') }), [dispatch])

  /** Shows one of the chat's own notices (never saved). */
  const notice = useCallback((text: string, tone: 'info' | 'error') => void dispatch({ type: 'notice', text, tone, ...made('notice') }), [dispatch])

  /**
   * The voice call ended. With the conversation the server saved it as, and the call's view still
   * on screen, that conversation becomes the current one (loaded as saved); then `reply` is shown.
   */
  const endVoiceCall = useCallback(
    async ({ conversationId: savedId, reply }: { conversationId: string | null; reply: { text: string; tone: 'info' | 'error' } | null }) => {
      const open = voiceConversationToOpen(store.current, savedId)
      dispatch({ type: 'voice-ended' })
      if (open) {
        try {
          const conversation = await fetchConversation(open.conversationId)
          dispatch({ type: 'voice-conversation-loaded', conversation, epoch: open.epoch, at: now() })
        } catch (error) {
          dispatch({ type: 'voice-conversation-failed', error })
        }
      }
      if (reply) notice(reply.text, reply.tone)
    },
    [dispatch, notice],
  )

  /** Sends a typed message (Enter or the send button). Resolves false when nothing was sent. */
  const send = useCallback(
    async (raw: string): Promise<boolean> => {
      const text = raw.trim()
      if (!text || store.current.processing) return false
      const message: ChatMessage = { id: crypto.randomUUID(), text, sender: 'user', timestamp: now() }
      const { epoch } = dispatch({ type: 'send-started', message })
      try {
        let id = store.current.conversationId
        if (!id && savingRef.current) {
          await savingRef.current
          id = store.current.conversationId
        }
        // The chat gets its saved id now, with the title rule and anything said before.
        if (!id) id = await carryOut(planSendCreate(store.current, message))
        const result = await streamMessage(
          id,
          { id: message.id, text },
          {
            onStored: (stored) => void dispatch({ type: 'send-stored', id: stored.id, epoch }),
            onDelta: (delta) => void dispatch({ type: 'send-delta', text: delta, epoch }),
          },
        )
        dispatch({ type: 'send-replied', reply: result.reply, outcome: result.outcome, epoch })
        return true
      } catch (error) {
        dispatch({ type: 'send-failed', error, epoch, notice: made('notice') })
        return true
      } finally {
        dispatch({ type: 'send-settled', id: message.id, epoch })
      }
    },
    [carryOut, dispatch],
  )

  const shown = useMemo(() => visibleMessages(state), [state])
  return {
    conversationId,
    /** The conversation shown is archived. */
    archived: state.archived,
    reopened,
    /** What the list shows: everything but the hidden greeting. */
    messages: shown,
    processing,
    streamingText: state.streamingText,
    loadingConversation: state.loadingConversation,
    hasEarlier: state.hasEarlier,
    loadingEarlier: state.loadingEarlier,
    earlierCount: state.earlierCount,
    loadEarlier,
    send,
    newChat,
    selectConversation,
    forgetConversation,
    liveTranscripts: state.transcripts.live,
    beginVoiceCall,
    voiceTranscript,
    voiceTyped,
    endVoiceCall,
    notice,
  }
}

export type Chat = ReturnType<typeof useChat>
