/**
 * The assistant chat: saved conversations (list with search, create, rename, autosave, delete,
 * reopen an archived one)
 * and sending a message to the assistant (Vapi's Chat API, or the local fallback coach). Every
 * query is filtered by the signed-in user's id; another user's conversation is "not found".
 */
import { randomUUID } from 'node:crypto'
import { FALLBACK_REPLY_DELAY_MS, TEXT_REPLY_TIMEOUT_MS, type ConversationListFilter, type ConversationQuery, type SavedMessage } from '#common/chat'
import type { Db } from '#server/db/client'
import type { VapiChatClient } from '#server/integrations/vapi'
import type { Clock } from '#server/lib/clock'
import { createVapiAssistant, type Assistant } from './assistant'
import { createFallbackAssistant } from './coach-fallback'
import {
  appendAssistantReply,
  appendUserMessage,
  assertOwnConversation,
  createConversation,
  deleteConversation,
  getConversation,
  listConversations,
  renameConversation,
  reopenConversation,
  saveConversationContent,
  sendMessage,
  type ChatTurns,
  type SendEvents,
} from './conversations'

export { coachContextJson, loadCoachContext, summarizeGoals, toCoachContext, toVariableValues, type CoachContext } from './coach-context'
export { areaMentioned, composeFallbackReply } from './coach-fallback'

type ChatSettings = {
  /** The limit on a whole reply (the spec's 15 s). Read on every request: tests shorten it. */
  replyTimeoutMs: number
  /** How long the fallback coach takes to answer (the spec's 1.5 s). */
  fallbackDelayMs: number
}

type ChatServiceDeps = {
  db: Db
  clock: Clock
  /** Vapi's chat client when VAPI_API_KEY and VAPI_ASSISTANT_ID are set; else the fallback coach answers. */
  vapiChat: VapiChatClient | undefined
  settings: ChatSettings
  /** The plan's budget of chat turns: taken as each message sent to the assistant is stored. */
  turns: ChatTurns
  /** The coach's memory (docs/decisions/083): the brief every turn reads, and the extraction a stored turn schedules. */
  memory?: ChatMemory | undefined
}

/** What the chat asks of the coach's memory. */
type ChatMemory = {
  /** The coach brief's text for this turn's words. */
  brief(userId: string, query: string): Promise<string>
  /** A turn was stored: the chat's extraction once it has been quiet. */
  turnStored(userId: string, conversationId: string, messageId: string): Promise<void>
}

export const defaultChatSettings = (): ChatSettings => ({ replyTimeoutMs: TEXT_REPLY_TIMEOUT_MS, fallbackDelayMs: FALLBACK_REPLY_DELAY_MS })

export function createChat(deps: ChatServiceDeps) {
  const { db, clock, settings } = deps
  const answering: Assistant = deps.vapiChat
    ? createVapiAssistant(deps.vapiChat)
    : createFallbackAssistant({ delayMs: () => settings.fallbackDelayMs })
  const memory = deps.memory
  // Every turn reads the coach brief, ranked by the words of the turn.
  const assistant: Assistant = memory
    ? { kind: answering.kind, reply: async (turn, onDelta) => answering.reply({ ...turn, brief: await memory.brief(turn.context.userId, turn.input) }, onDelta) }
    : answering
  return {
    settings,
    assistant,
    list: (userId: string, search: string | undefined, filter: ConversationListFilter) => listConversations(db, userId, search, filter),
    get: (userId: string, id: string, query?: ConversationQuery) => getConversation(db, userId, id, query),
    create: (userId: string, input: { title?: string | undefined; content?: SavedMessage[] | undefined }) =>
      createConversation(db, userId, input, clock.now()),
    rename: (userId: string, id: string, title: string) => renameConversation(db, userId, id, title, clock.now()),
    saveContent: (userId: string, id: string, content: SavedMessage[]) => saveConversationContent(db, userId, id, content, clock.now()),
    remove: (userId: string, id: string) => deleteConversation(db, userId, id),
    reopen: (userId: string, id: string) => reopenConversation(db, userId, id, clock.now()),
    send: async (userId: string, id: string, input: { text: string; id?: string | undefined }, events?: SendEvents) => {
      const sent = await sendMessage({ db, clock, assistant, turns: deps.turns }, userId, id, input, events)
      // The extraction is a job of its own: it never holds the reply.
      await memory?.turnStored(userId, id, sent.outcome === 'skipped' ? sent.message.id : sent.reply.id)
      return sent
    },
    /**
     * A voice call's conversation (the voice gateway saves its final transcripts,
     * docs/decisions/084): the conversation open when the call started (the user's own: another
     * user's is "not found"; an archived one is reopened by the first thing said), else a new one;
     * then the user's messages (a new one titled by the first, as a text chat) and the assistant's
     * under the duplicate rules, with the same limits as a text chat. Transcripts are marked
     * `spoken`; a line typed into the call is not.
     */
    voice: {
      check: (userId: string, id: string) => assertOwnConversation(db, userId, id),
      open: async (userId: string, id: string | null) => {
        if (!id) return (await createConversation(db, userId, {}, clock.now())).id
        await assertOwnConversation(db, userId, id)
        return id
      },
      addUser: async (userId: string, id: string, text: string, spoken: boolean) => {
        const now = clock.now()
        const message = { id: randomUUID(), text, sender: 'user' as const, timestamp: now.toISOString(), ...(spoken ? { spoken: true as const } : {}) }
        await db.transaction((tx) => appendUserMessage(tx, userId, id, message, now))
      },
      addAssistant: async (userId: string, id: string, text: string) => {
        const now = clock.now()
        const reply = { id: randomUUID(), text, sender: 'ai' as const, timestamp: now.toISOString(), spoken: true as const }
        return (await appendAssistantReply(db, userId, id, reply, null, now)).outcome
      },
    },
  }
}
