/**
 * A voice call's transcripts on screen (spec 2 §5), as pure code:
 * - a partial transcript replaces the previous partial of the same speaker in place (one live line
 *   per speaker), and never becomes a message;
 * - a final one ends that live line; a user's becomes a message only if it is non-empty and
 *   differs from the user's previous one; an assistant's goes through the duplicate rules (skipped,
 *   replacing a shorter stored one, or appended), the same rules the server applies to the chat.
 */
import { acceptUserTranscript, decideAssistantMessage, type ChatMessage } from '#common/chat'

export type TranscriptRole = 'user' | 'assistant'

export type LiveTranscripts = Readonly<Record<TranscriptRole, string | null>>

export type TranscriptState = {
  /** The partial line of each speaker being spoken now. */
  live: LiveTranscripts
  /** The user's last accepted final transcript (the next one must differ). */
  lastUserTranscript: string | null
}

export const initialTranscriptState = (): TranscriptState => ({ live: { user: null, assistant: null }, lastUserTranscript: null })

export type TranscriptEvent = { role: TranscriptRole; final: boolean; text: string }

type TranscriptResult<M> = {
  state: TranscriptState
  messages: M[]
  /** The message the final transcript added or updated, if any. */
  message: M | null
}

/**
 * Applies one transcript to the state and the message list. `create` makes the message a new final
 * becomes (its id and time are the caller's).
 */
export function applyTranscript<M extends ChatMessage>(
  state: TranscriptState,
  messages: readonly M[],
  event: TranscriptEvent,
  create: (sender: ChatMessage['sender'], text: string) => M,
): TranscriptResult<M> {
  const text = event.text.trim()
  if (!event.final) {
    return { state: { ...state, live: { ...state.live, [event.role]: text === '' ? null : text } }, messages: [...messages], message: null }
  }
  const live = { ...state.live, [event.role]: null }
  if (event.role === 'user') {
    if (!acceptUserTranscript(state.lastUserTranscript, text)) return { state: { ...state, live }, messages: [...messages], message: null }
    const message = create('user', text)
    return { state: { live, lastUserTranscript: text }, messages: [...messages, message], message }
  }
  if (text === '') return { state: { ...state, live }, messages: [...messages], message: null }
  const decision = decideAssistantMessage(messages, text)
  if (decision.action === 'skip') return { state: { ...state, live }, messages: [...messages], message: null }
  if (decision.action === 'replace') {
    let updated: M | null = null
    const next = messages.map((message) => {
      if (message.id !== decision.id) return message
      updated = { ...message, text }
      return updated
    })
    return { state: { ...state, live }, messages: next, message: updated }
  }
  const message = create('ai', text)
  return { state: { ...state, live }, messages: [...messages, message], message }
}
