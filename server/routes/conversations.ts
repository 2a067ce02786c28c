import { PassThrough } from 'node:stream'
import type { FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import {
  ConversationListResponseSchema,
  ConversationParamsSchema,
  ConversationSchema,
  CreateConversationBodySchema,
  FALLBACK_REPLY_DELAY_MS,
  ListConversationsQuerySchema,
  RenameConversationBodySchema,
  SaveContentBodySchema,
  SendMessageBodySchema,
  SendMessageResponseSchema,
  TEXT_REPLY_TIMEOUT_MS,
  formatSse,
  type ChatStreamEvent,
} from '#common/chat'
import { ErrorBodySchema } from '#common/errors'
import { AppError } from '../lib/app-error'
import { sessionAccess } from '../services/access'
import { createFallbackAssistant } from '../services/coach-fallback'
import {
  createConversation,
  deleteConversation,
  getConversation,
  listConversations,
  renameConversation,
  saveConversationContent,
  sendMessage,
  paymentRequired,
  type Assistant,
  type ChatDeps,
} from '../services/conversations'
import { createVapiAssistant, VapiGateway } from '../services/vapi'

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * The chat's timing (spec 2 §9): the reply time limit and the fallback coach's delay. Read on
     * every request; tests shorten them instead of waiting 15 s.
     */
    chatSettings: { replyTimeoutMs: number; fallbackDelayMs: number }
    /** Who answers the chat: Vapi when VAPI_API_KEY and VAPI_ASSISTANT_ID are set, else the fallback coach. */
    chatAssistant: Assistant
  }
}

/** Per signed-in user (the session is loaded by then), so one busy user never slows another. */
const perUser = (request: FastifyRequest) => request.session?.user.id ?? request.ip
const limit = (groupId: string, max: number) => ({ max, timeWindow: '1 minute', groupId, keyGenerator: perUser, hook: 'preHandler' as const })
/** Sending asks the assistant (Vapi costs money per chat): 20 a minute per user. */
const SEND_LIMIT = limit('chat-send', 20)
const WRITE_LIMIT = limit('chat-write', 60)
const READ_LIMIT = limit('chat-read', 300)

const errors = { 400: ErrorBodySchema, 401: ErrorBodySchema, 403: ErrorBodySchema, 404: ErrorBodySchema, 409: ErrorBodySchema, 429: ErrorBodySchema }

const STREAM_DESCRIPTION =
  'With `Accept: text/event-stream`: 200 and server-sent events `user` (the stored message), `delta` (pieces of the reply as ' +
  'they arrive), then `done` (the same body as the 201 answer) or `error` ({code, message}; the user\'s message stays stored). ' +
  'Otherwise: 201 with the whole exchange, or 502/504 when the assistant failed (the user\'s message stays stored).'

/**
 * The assistant chat's API (spec 2 §7 "conversations"): list with search, create, rename, save
 * content, delete, and send a message (streamed or not). Signed-in, paid users only (the chat is
 * a paid screen); every query is filtered by the session user, so another user's conversation
 * is a 404 for every operation.
 */
export default fp(
  async (fastify) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>()
    const settings = { replyTimeoutMs: TEXT_REPLY_TIMEOUT_MS, fallbackDelayMs: FALLBACK_REPLY_DELAY_MS }
    const vapi = app.config.vapi
    const assistant =
      vapi?.assistantId !== undefined
        ? createVapiAssistant(
            new VapiGateway(
              { apiKey: vapi.apiKey, assistantId: vapi.assistantId, apiUrl: vapi.apiUrl },
              { timeoutMs: () => settings.replyTimeoutMs, log: app.log },
            ),
          )
        : createFallbackAssistant({ delayMs: () => settings.fallbackDelayMs })
    if (vapi && vapi.assistantId === undefined) app.log.warn('VAPI_API_KEY is set without VAPI_ASSISTANT_ID: the chat uses the fallback coach')
    app.decorate('chatSettings', settings)
    app.decorate('chatAssistant', assistant)
    const deps = (): ChatDeps => ({ db: app.db, clock: app.clock, assistant: app.chatAssistant })

    /** The chat is a paid screen (spec 2 §2): so is its API. */
    const requirePaid = async (request: FastifyRequest): Promise<string> => {
      const userId = request.session!.user.id
      if (!sessionAccess(request.session!, app.clock.now()).paid) throw paymentRequired()
      return userId
    }

    app.get(
      '/api/conversations',
      {
        schema: {
          tags: ['conversations'],
          summary: "The user's conversations, newest first; `search` matches titles and message text",
          querystring: ListConversationsQuerySchema,
          response: { 200: ConversationListResponseSchema, ...errors },
        },
        config: { auth: 'session', rateLimit: READ_LIMIT },
      },
      async (request, reply) => {
        const userId = await requirePaid(request)
        reply.header('cache-control', 'no-store')
        return { conversations: await listConversations(app.db, userId, request.query.search) }
      },
    )

    app.post(
      '/api/conversations',
      {
        schema: {
          tags: ['conversations'],
          summary: 'Save a new conversation (title: the given one, else the first 50 characters of the first user message plus "...")',
          body: CreateConversationBodySchema,
          response: { 201: ConversationSchema, ...errors },
        },
        config: { auth: 'session', rateLimit: WRITE_LIMIT },
      },
      async (request, reply) => {
        const userId = await requirePaid(request)
        return reply.code(201).send(await createConversation(app.db, userId, request.body, app.clock.now()))
      },
    )

    app.get(
      '/api/conversations/:id',
      {
        schema: {
          tags: ['conversations'],
          summary: 'One conversation with its messages',
          params: ConversationParamsSchema,
          response: { 200: ConversationSchema, ...errors },
        },
        config: { auth: 'session', rateLimit: READ_LIMIT },
      },
      async (request, reply) => {
        const userId = await requirePaid(request)
        reply.header('cache-control', 'no-store')
        return getConversation(app.db, userId, request.params.id)
      },
    )

    app.patch(
      '/api/conversations/:id',
      {
        schema: {
          tags: ['conversations'],
          summary: 'Rename a conversation (trimmed, 1 to 200 characters)',
          params: ConversationParamsSchema,
          body: RenameConversationBodySchema,
          response: { 200: ConversationSchema, ...errors },
        },
        config: { auth: 'session', rateLimit: WRITE_LIMIT },
      },
      async (request) => {
        const userId = await requirePaid(request)
        return renameConversation(app.db, userId, request.params.id, request.body.title, app.clock.now())
      },
    )

    app.put(
      '/api/conversations/:id/content',
      {
        schema: {
          tags: ['conversations'],
          summary: 'Save messages (the autosave): merged by id, so a repeated or stale save never loses or duplicates one',
          params: ConversationParamsSchema,
          body: SaveContentBodySchema,
          response: { 200: ConversationSchema, ...errors },
        },
        config: { auth: 'session', rateLimit: WRITE_LIMIT },
      },
      async (request) => {
        const userId = await requirePaid(request)
        return saveConversationContent(app.db, userId, request.params.id, request.body.content, app.clock.now())
      },
    )

    app.delete(
      '/api/conversations/:id',
      {
        schema: {
          tags: ['conversations'],
          summary: 'Delete a conversation',
          params: ConversationParamsSchema,
          response: { 204: z.undefined(), ...errors },
        },
        config: { auth: 'session', rateLimit: WRITE_LIMIT },
      },
      async (request, reply) => {
        const userId = await requirePaid(request)
        await deleteConversation(app.db, userId, request.params.id)
        return reply.code(204).send()
      },
    )

    app.post(
      '/api/conversations/:id/messages',
      {
        schema: {
          tags: ['conversations'],
          summary: "Send a message: stores it, asks the assistant, stores the reply (the user's message survives a failed reply)",
          description: STREAM_DESCRIPTION,
          params: ConversationParamsSchema,
          body: SendMessageBodySchema,
          response: {
            200: z.string().describe('text/event-stream (see the description)'),
            201: SendMessageResponseSchema,
            ...errors,
            502: ErrorBodySchema,
            504: ErrorBodySchema,
          },
        },
        config: { auth: 'session', rateLimit: SEND_LIMIT },
      },
      async (request, reply) => {
        // Storing the message checks the paid rule in the same statement (see appendUserMessage).
        const userId = request.session!.user.id
        const { id } = request.params
        if (!(request.headers.accept ?? '').includes('text/event-stream')) {
          return reply.code(201).send(await sendMessage(deps(), userId, id, request.body))
        }

        // Streaming. Refusals before the message is stored (not found, repeated id, full) are
        // ordinary JSON errors; once it is stored the stream starts, and a failed reply is an
        // `error` event. A browser that leaves early does not stop the reply from being stored.
        const stream = new PassThrough()
        // A browser that went away destroys the stream; its error is of no further interest.
        stream.on('error', () => {})
        const emit = (event: ChatStreamEvent) => {
          if (!stream.destroyed && !stream.writableEnded) stream.write(formatSse(event.type, event))
        }
        let started = false
        try {
          const result = await sendMessage(deps(), userId, id, request.body, {
            onStored: (message) => {
              started = true
              reply
                .code(200)
                .type('text/event-stream; charset=utf-8')
                .header('cache-control', 'no-store')
                .header('x-accel-buffering', 'no')
                // A stream is sent as it is, never through the response serializer.
                .send(stream as never)
              emit({ type: 'user', message })
            },
            onDelta: (text) => emit({ type: 'delta', text }),
          })
          emit({ type: 'done', result: SendMessageResponseSchema.parse(result) })
        } catch (error) {
          if (!started) throw error
          const known = error instanceof AppError
          if (!known || error.statusCode >= 500) request.log[known ? 'warn' : 'error']({ err: error }, 'chat reply failed')
          emit({
            type: 'error',
            error: known
              ? { code: error.code, message: error.message }
              : { code: 'INTERNAL', message: 'Something went wrong on our side. Please try again.' },
          })
        }
        if (!stream.destroyed) stream.end()
        return reply
      },
    )
  },
  { name: 'conversation-routes', dependencies: ['auth', 'rate-limit', 'services'] },
)
