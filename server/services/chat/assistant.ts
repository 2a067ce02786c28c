import type { ChatRequest, VapiChatClient } from '#server/integrations/vapi'
import { toVariableValues, type CoachContext } from './coach-context'

/** Who answers the chat: Vapi's Chat API, or the local fallback coach (coach-fallback.ts). */
export type Assistant = {
  kind: 'vapi' | 'fallback'
  /** Answers one turn; `onDelta` receives the reply piece by piece when given. Throws AppError. */
  reply(turn: AssistantTurn, onDelta?: (text: string) => void): Promise<AssistantReply>
}

export type AssistantTurn = {
  /** The user's message. */
  input: string
  /** 1 for the first user message of the conversation, 2 for the second, and so on. */
  turn: number
  /** The provider chat id of the previous turn (Vapi chains on it), or null. */
  previousChatId: string | null
  context: CoachContext
  /** The coach brief (docs/decisions/083), when the memory is wired. */
  brief?: string | undefined
  signal?: AbortSignal | undefined
}

export type AssistantReply = { text: string; chatId: string | null }

/**
 * Vapi as the chat's assistant: each turn chains on the previous chat id and sends the user's
 * context fresh as variable values; streaming when the caller wants deltas.
 */
export function createVapiAssistant(client: VapiChatClient): Assistant {
  return {
    kind: 'vapi',
    async reply(turn, onDelta) {
      const request: ChatRequest = {
        input: turn.input,
        previousChatId: turn.previousChatId,
        variableValues: { ...toVariableValues(turn.context), coachBrief: turn.brief ?? '' },
        signal: turn.signal,
      }
      const result = onDelta ? await client.streamChat(request, onDelta) : await client.createChat(request)
      return { text: result.text, chatId: result.chatId }
    },
  }
}
