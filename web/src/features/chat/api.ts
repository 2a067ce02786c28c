/**
 * The chat's calls to our API (conversations, the voice configuration), validated
 * with the shared schemas, and the streamed send: `POST /api/conversations/:id/messages` with
 * `Accept: text/event-stream`, read as server-sent events so the first words show at once.
 */
import { queryOptions } from '@tanstack/react-query'
import { z } from 'zod'
import {
  ChatStreamEventSchema,
  ConversationListResponseSchema,
  ConversationSchema,
  ConversationSummarySchema,
  type ChatMessage,
  type Conversation,
  type ConversationSummary,
  type CreateConversationBody,
  type SavedMessage,
  type SendMessageBody,
  type SendMessageResponse,
} from '#common/chat'
import { parseSse } from '#common/sse'
import { ErrorBodySchema } from '#common/errors'
import { VoiceConfigResponseSchema } from '#common/voice'
import { api, ApiError, NETWORK_ERROR_MESSAGE } from '#web/lib/api-client'

export const chatKeys = {
  all: ['conversations'] as const,
  lists: ['conversations', 'list'] as const,
  list: (search: string, archived = false) => ['conversations', 'list', search, archived ? 'archived' : 'default'] as const,
  voiceConfig: ['voice', 'config'] as const,
}

/**
 * The sidebar's list: the open conversations, or with `search` the matches among all of them
 * (archived ones marked); `archived`: the archived ones only.
 */
export function conversationsQueryOptions(search: string, archived = false) {
  return queryOptions({
    queryKey: chatKeys.list(search, archived),
    queryFn: async ({ signal }): Promise<ConversationSummary[]> => {
      const params = new URLSearchParams()
      if (search) params.set('search', search)
      if (archived) params.set('archived', 'true')
      const query = params.size > 0 ? `?${params.toString()}` : ''
      return (await api.get(`/api/conversations${query}`, ConversationListResponseSchema, { signal })).conversations
    },
    staleTime: 10_000,
  })
}

export const voiceConfigQueryOptions = () =>
  queryOptions({
    queryKey: chatKeys.voiceConfig,
    queryFn: ({ signal }) => api.get('/api/voice/config', VoiceConfigResponseSchema, { signal }),
    staleTime: 5 * 60_000,
  })

/** A conversation with its newest page of messages, or with `before` the page just before that message. */
export const fetchConversation = (id: string, before?: string): Promise<Conversation> =>
  api.get(`/api/conversations/${id}${before ? `?before=${encodeURIComponent(before)}` : ''}`, ConversationSchema)

export const createConversation = (body: CreateConversationBody): Promise<Conversation> => api.post('/api/conversations', body, ConversationSchema)

export const renameConversation = (id: string, title: string): Promise<ConversationSummary> =>
  api.patch(`/api/conversations/${id}`, { title }, ConversationSummarySchema)

/** The autosave of the user's own messages: the server merges by message id. */
export const saveConversationContent = (id: string, content: SavedMessage[]): Promise<ConversationSummary> =>
  api.put(`/api/conversations/${id}/content`, { content }, ConversationSummarySchema)

/** Reopens an archived conversation (the least recently updated open one may be archived instead). */
export const reopenConversation = (id: string): Promise<ConversationSummary> => api.post(`/api/conversations/${id}/reopen`, undefined, ConversationSummarySchema)

export const deleteConversation = (id: string): Promise<void> => api.delete(`/api/conversations/${id}`, z.undefined())

type StreamHandlers = {
  /** The server stored the user's message. */
  onStored?: (message: ChatMessage) => void
  /** A piece of the reply. */
  onDelta?: (text: string) => void
}

async function errorFrom(response: Response): Promise<ApiError> {
  try {
    const body = ErrorBodySchema.safeParse(await response.json())
    if (body.success) return new ApiError({ status: response.status, ...body.data.error })
  } catch {
    // not our JSON error
  }
  return new ApiError({ status: response.status, code: response.status >= 500 ? 'INTERNAL' : 'BAD_REQUEST', message: 'The message could not be sent.' })
}

/**
 * Sends a message and follows the reply as it streams. Resolves with the stored exchange; rejects
 * with an ApiError (the server's code and message, e.g. ASSISTANT_TIMEOUT with 'Timeout waiting
 * for assistant response').
 */
export async function streamMessage(
  conversationId: string,
  body: SendMessageBody,
  handlers: StreamHandlers = {},
  signal?: AbortSignal,
): Promise<SendMessageResponse> {
  let response: Response
  try {
    response = await fetch(`/api/conversations/${conversationId}/messages`, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream' },
      body: JSON.stringify(body),
      ...(signal ? { signal } : {}),
    })
  } catch (error) {
    throw new ApiError({ status: 0, code: 'NETWORK_ERROR', message: NETWORK_ERROR_MESSAGE, cause: error })
  }
  if (!response.ok || !(response.headers.get('content-type') ?? '').startsWith('text/event-stream') || !response.body) {
    throw await errorFrom(response)
  }
  try {
    for await (const raw of parseSse(response.body)) {
      const parsed = ChatStreamEventSchema.safeParse(JSON.parse(raw.data))
      if (!parsed.success) continue
      const event = parsed.data
      if (event.type === 'user') handlers.onStored?.(event.message)
      else if (event.type === 'delta') handlers.onDelta?.(event.text)
      else if (event.type === 'done') return event.result
      else throw new ApiError({ status: 502, code: event.error.code, message: event.error.message })
    }
  } catch (error) {
    if (error instanceof ApiError) throw error
    throw new ApiError({ status: 0, code: 'NETWORK_ERROR', message: NETWORK_ERROR_MESSAGE, cause: error })
  }
  throw new ApiError({ status: 0, code: 'NETWORK_ERROR', message: 'The reply ended before it was complete.' })
}
