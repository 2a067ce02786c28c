/**
 * The assistant chat: saved conversations (list with search, create, rename, autosave, delete)
 * and sending a message to the assistant (Vapi's Chat API, or the local fallback coach). Every
 * query is filtered by the signed-in user's id; another user's conversation is "not found".
 */
import { randomUUID } from 'node:crypto'
import { FALLBACK_REPLY_DELAY_MS, TEXT_REPLY_TIMEOUT_MS, type ConversationQuery, type SavedMessage } from '#common/chat'
import type { Db } from '#server/db/client'
import type { VapiChatClient } from '#server/integrations/vapi'
import type { Clock } from '#server/lib/clock'
import { createVapiAssistant, type Assistant } from './assistant'
import { createFallbackAssistant } from './coach-fallback'
import {
  appendAssistantReply,
  appendUserMessage,
  createConversation,
  deleteConversation,
  getConversation,
  listConversations,
  renameConversation,
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
}

export const defaultChatSettings = (): ChatSettings => ({ replyTimeoutMs: TEXT_REPLY_TIMEOUT_MS, fallbackDelayMs: FALLBACK_REPLY_DELAY_MS })

export function createChat(deps: ChatServiceDeps) {
  const { db, clock, settings } = deps
  const assistant: Assistant = deps.vapiChat
    ? createVapiAssistant(deps.vapiChat)
    : createFallbackAssistant({ delayMs: () => settings.fallbackDelayMs })
  return {
    settings,
    assistant,
    list: (userId: string, search?: string) => listConversations(db, userId, search),
    get: (userId: string, id: string, query?: ConversationQuery) => getConversation(db, userId, id, query),
    create: (userId: string, input: { title?: string | undefined; content?: SavedMessage[] | undefined }) =>
      createConversation(db, userId, input, clock.now()),
    rename: (userId: string, id: string, title: string) => renameConversation(db, userId, id, title, clock.now()),
    saveContent: (userId: string, id: string, content: SavedMessage[]) => saveConversationContent(db, userId, id, content, clock.now()),
    remove: (userId: string, id: string) => deleteConversation(db, userId, id),
    send: (userId: string, id: string, input: { text: string; id?: string | undefined }, events?: SendEvents) =>
      sendMessage({ db, clock, assistant, turns: deps.turns }, userId, id, input, events),
    /**
     * A voice call's conversation (the voice gateway saves its final transcripts): a new
     * conversation, then the user's messages (titled by the first, as a text chat) and the
     * assistant's under the duplicate rules, with the same limits as a text chat.
     */
    voice: {
      open: async (userId: string) => (await createConversation(db, userId, {}, clock.now())).id,
      addUser: async (userId: string, id: string, text: string) => {
        const now = clock.now()
        await appendUserMessage(db, userId, id, { id: randomUUID(), text, sender: 'user', timestamp: now.toISOString() }, now)
      },
      addAssistant: async (userId: string, id: string, text: string) => {
        const now = clock.now()
        return (await appendAssistantReply(db, userId, id, { id: randomUUID(), text, sender: 'ai', timestamp: now.toISOString() }, null, now)).outcome
      },
    },
  }
}
