import type { Vapi } from '@vapi-ai/server-sdk'
import { TEXT_REPLY_TIMEOUT_MS } from '#common/chat'
import { parseSse } from '#common/sse'
import { AppError } from '../lib/app-error'
import { messageOf, type VapiApi } from './vapi-client'
import { isVapiError, isVapiTimeoutError } from './vapi-sdk'

/**
 * The app's client of Vapi's Chat API, on the one Vapi client (vapi-client.ts: the key, VAPI_API_URL,
 * no retries, the pooled connections): the chat's 15 s limit on a whole reply, the casts for the
 * SDK's type gaps, and Vapi's errors mapped to ours.
 *
 * Chat: `POST /chat` chained through `previousChatId` (the newest chat id, stored per
 * conversation), with fresh `assistantOverrides.variableValues` on every turn (a session would
 * freeze them when created). Streaming goes through the SDK's `fetch('/chat')` with `stream: true`
 * and our own server-sent-events parsing, because `chats.create` has no streaming mode.
 */

export type ChatRequest = {
  input: string
  /** The newest chat id of the conversation, or null to start a new chain. */
  previousChatId: string | null
  variableValues: Record<string, string>
  /** Ends the request early (the caller gave up). */
  signal?: AbortSignal | undefined
}

type ChatResult = { chatId: string; text: string }

type Log = { warn(obj: object, msg: string): void; error(obj: object, msg: string): void }

type VapiChatClientOptions = {
  /** The limit on a whole reply (read on every request); the spec's 15 s by default. */
  timeoutMs?: () => number
  log?: Log
}

const assistantTimeout = () => new AppError('ASSISTANT_TIMEOUT')
const assistantUnavailable = () => new AppError('ASSISTANT_UNAVAILABLE')

/** A failure Vapi reported, before it is mapped to what the client sees. */
class VapiFailure extends Error {
  readonly status: number | undefined
  readonly timedOut: boolean
  constructor(status: number | undefined, message: string, timedOut = false) {
    super(message)
    this.status = status
    this.timedOut = timedOut
  }
}

/** The assistant's text in a Chat's `output` (all assistant items, in order). */
function outputText(chat: Pick<Vapi.Chat, 'output'>): string {
  return (chat.output ?? [])
    .filter((item) => (item as { role?: string }).role === 'assistant')
    .map((item) => (item as { content?: unknown }).content)
    .filter((content): content is string => typeof content === 'string')
    .join('\n\n')
    .trim()
}

/** Vapi's Chat API (`POST /chat`), whole or streamed. */
export class VapiChatClient {
  readonly #api: VapiApi
  readonly #assistantId: string
  readonly #timeoutMs: () => number
  readonly #log: Log | undefined

  constructor(api: VapiApi, assistantId: string, options: VapiChatClientOptions = {}) {
    this.#api = api
    this.#assistantId = assistantId
    this.#timeoutMs = options.timeoutMs ?? (() => TEXT_REPLY_TIMEOUT_MS)
    this.#log = options.log
  }

  #body(request: ChatRequest, stream: boolean): Vapi.CreateChatDto {
    return {
      assistantId: this.#assistantId,
      input: request.input,
      ...(request.previousChatId ? { previousChatId: request.previousChatId } : {}),
      assistantOverrides: { variableValues: request.variableValues },
      ...(stream ? { stream: true } : {}),
    }
  }

  /** Runs one attempt under the reply deadline; a broken chain (404 on previousChatId) starts a new one. */
  async #withDeadline(request: ChatRequest, attempt: (request: ChatRequest, signal: AbortSignal) => Promise<ChatResult>): Promise<ChatResult> {
    const deadline = new AbortController()
    const timer = setTimeout(() => deadline.abort(new VapiFailure(undefined, 'timeout', true)), this.#timeoutMs())
    const signal = request.signal ? AbortSignal.any([deadline.signal, request.signal]) : deadline.signal
    try {
      try {
        return await attempt(request, signal)
      } catch (error) {
        if (error instanceof VapiFailure && error.status === 404 && request.previousChatId && !signal.aborted) {
          this.#log?.warn({ previousChatId: request.previousChatId, vapiMessage: error.message }, 'vapi: previous chat not found; starting a new chain')
          return await attempt({ ...request, previousChatId: null }, signal)
        }
        throw error
      }
    } catch (error) {
      throw this.#map(error, deadline.signal)
    } finally {
      clearTimeout(timer)
    }
  }

  #map(error: unknown, deadline: AbortSignal): AppError {
    if (error instanceof AppError) return error
    const timedOut =
      deadline.aborted ||
      (error instanceof VapiFailure && error.timedOut) ||
      isVapiTimeoutError(error) ||
      // SDK 2.0.1 on Node 20 reports its own timeout as a VapiError whose message is "timeout".
      (isVapiError(error) && error.statusCode === undefined && /timeout/i.test(error.message))
    if (timedOut) {
      this.#log?.warn({}, 'vapi: no complete reply within the time limit')
      return assistantTimeout()
    }
    const status = error instanceof VapiFailure ? error.status : isVapiError(error) ? error.statusCode : undefined
    const detail = isVapiError(error) ? messageOf(error.body) : error instanceof Error ? error.message : String(error)
    this.#log?.error({ status, vapiMessage: detail }, 'vapi: chat request failed')
    return assistantUnavailable()
  }

  /** `POST /chat` through `chats.create`: the whole reply at once. */
  createChat(request: ChatRequest): Promise<ChatResult> {
    return this.#withDeadline(request, async (req, signal) => {
      let chat: Vapi.CreateChatsResponse
      try {
        chat = await (await this.#api.sdk()).chats.create(this.#body(req, false), { maxRetries: 0, abortSignal: signal })
      } catch (error) {
        if (isVapiError(error) && error.statusCode !== undefined) throw new VapiFailure(error.statusCode, messageOf(error.body))
        throw error
      }
      if (!('output' in chat) || typeof chat.id !== 'string') throw new VapiFailure(undefined, 'the chat response has no output')
      const text = outputText(chat)
      if (!text) throw new VapiFailure(undefined, 'the assistant sent an empty reply')
      return { chatId: chat.id, text }
    })
  }

  /**
   * `GET /chat/{id}`: the chat this one was chained on (`previousChatId`, null for the first of a
   * conversation), or 'not-found' when Vapi no longer has it. A conversation keeps only its newest
   * chat id: its older chats are found by following this back.
   */
  async previousChatOf(chatId: string): Promise<{ previousChatId: string | null } | 'not-found'> {
    try {
      const chat = await (await this.#api.sdk()).chats.get({ id: chatId }, { maxRetries: 0 })
      return { previousChatId: chat.previousChatId ?? null }
    } catch (error) {
      if (isVapiError(error) && error.statusCode === 404) return 'not-found'
      throw error
    }
  }

  /** `DELETE /chat/{id}`: 'deleted', or 'not-found' when Vapi no longer has it. Other failures throw (the caller retries). */
  async deleteChat(chatId: string): Promise<'deleted' | 'not-found'> {
    try {
      await (await this.#api.sdk()).chats.delete({ id: chatId }, { maxRetries: 0 })
      return 'deleted'
    } catch (error) {
      if (isVapiError(error) && error.statusCode === 404) return 'not-found'
      throw error
    }
  }

  /**
   * `POST /chat` with `stream: true`: calls `onDelta` with each piece of the reply as it arrives
   * (`data: {"id","path":"chat.output[0].content","delta"}` events); resolves with the whole text
   * and the chat id (the events' `id`) when the stream ends.
   */
  streamChat(request: ChatRequest, onDelta: (text: string) => void): Promise<ChatResult> {
    return this.#withDeadline(request, async (req, signal) => {
      const response = await (await this.#api.sdk()).fetch(
        '/chat',
        {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
          body: JSON.stringify(this.#body(req, true)),
        },
        { maxRetries: 0, abortSignal: signal },
      )
      if (!response.ok) {
        const raw = await response.text().catch(() => '')
        let body: unknown = raw
        try {
          body = JSON.parse(raw)
        } catch {
          // not JSON: keep the text
        }
        throw new VapiFailure(response.status, messageOf(body))
      }
      if (!response.body) throw new VapiFailure(response.status, 'the stream has no body')

      // A server that ignores `stream` answers with the Chat as JSON: use it whole.
      if ((response.headers.get('content-type') ?? '').includes('application/json')) {
        const chat = (await response.json()) as Vapi.Chat
        const text = outputText(chat)
        if (!text || typeof chat.id !== 'string') throw new VapiFailure(response.status, 'the chat response has no output')
        onDelta(text)
        return { chatId: chat.id, text }
      }

      let chatId: string | undefined
      let text = ''
      for await (const event of parseSse(response.body)) {
        if (event.data === '[DONE]') break
        let data: Record<string, unknown>
        try {
          data = JSON.parse(event.data) as Record<string, unknown>
        } catch {
          continue
        }
        if (typeof data.delta === 'string') {
          const path = typeof data.path === 'string' ? data.path : ''
          if (typeof data.id === 'string') chatId ??= data.id
          if (path && !path.startsWith('chat.output')) continue
          if (data.delta === '') continue
          text += data.delta
          onDelta(data.delta)
        } else if (Array.isArray(data.output) && typeof data.id === 'string') {
          // A final Chat object, if the service sends one: it names the chat and holds the whole text.
          chatId = data.id
          if (!text) {
            text = outputText(data as unknown as Vapi.Chat)
            if (text) onDelta(text)
          }
        } else if (typeof data.statusCode === 'number' || data.error !== undefined) {
          throw new VapiFailure(typeof data.statusCode === 'number' ? data.statusCode : 500, messageOf(data))
        }
      }
      if (signal.aborted) throw signal.reason
      if (!chatId) throw new VapiFailure(undefined, 'the stream named no chat id')
      if (!text.trim()) throw new VapiFailure(undefined, 'the assistant sent an empty reply')
      return { chatId, text }
    })
  }
}
