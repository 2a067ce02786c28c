import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { text } from '#common/text'
import {
  ConversationListResponseSchema,
  ConversationParamsSchema,
  ConversationQuerySchema,
  ConversationSchema,
  ConversationSummarySchema,
  CreateConversationBodySchema,
  ListConversationsQuerySchema,
  RenameConversationBodySchema,
  SaveContentBodySchema,
  SendMessageBodySchema,
  SendMessageResponseSchema,
  conversationListFilter,
  type ChatStreamEvent,
} from '#common/chat'
import { ErrorBodySchema, ERRORS } from '#common/errors'
import { AppError } from '../lib/app-error'
import { perUserLimit } from '../lib/route-hooks'
import { eventStream, EVENT_STREAM } from '../lib/sse'

/** Per signed-in user (the guard runs first), so one busy user never slows another. */
const limit = perUserLimit
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
 * The assistant chat's API (the saved conversations and sending a message, streamed or not).
 * Signed-in, paid users only (the chat is a paid screen); every query is filtered by the session
 * user, so another user's conversation is a 404 for every operation.
 */
const chatRoutes: FastifyPluginAsyncZod = async (app) => {
  const { chat } = app.services

  app.get(
    '/api/conversations',
    {
      schema: {
        operationId: 'listConversations',
        tags: ['conversations'],
        summary:
          "The user's conversations, newest first: the open ones, or the archived ones with `archived=true`; `search` matches titles and " +
          'message text among all of them (archived ones have `archivedAt`) unless `archived` is given',
        querystring: ListConversationsQuerySchema,
        response: { 200: ConversationListResponseSchema, ...errors },
      },
      config: { auth: 'paid', cache: 'no-store', rateLimit: READ_LIMIT },
    },
    async (request) => ({ conversations: await chat.list(request.user.id, request.query.search, conversationListFilter(request.query)) }),
  )

  app.post(
    '/api/conversations',
    {
      schema: {
        operationId: 'createConversation',
        tags: ['conversations'],
        summary:
          'Save a new conversation (title: the given one, else the first 50 characters of the first user message plus "..."); ' +
          'past the 200 open conversations, the least recently updated one is archived',
        body: CreateConversationBodySchema,
        response: { 201: ConversationSchema, ...errors, 413: ErrorBodySchema },
      },
      config: { auth: 'paid', rateLimit: WRITE_LIMIT },
    },
    async (request, reply) => reply.code(201).send(await chat.create(request.user.id, request.body)),
  )

  app.get(
    '/api/conversations/:id',
    {
      schema: {
        operationId: 'getConversation',
        tags: ['conversations'],
        summary: 'One conversation with a page of its messages: the newest `limit` (default 50, at most 200), or those just before the message `before`',
        params: ConversationParamsSchema,
        querystring: ConversationQuerySchema,
        response: { 200: ConversationSchema, ...errors },
      },
      config: { auth: 'paid', cache: 'no-store', rateLimit: READ_LIMIT },
    },
    async (request) => chat.get(request.user.id, request.params.id, request.query),
  )

  app.patch(
    '/api/conversations/:id',
    {
      schema: {
        operationId: 'renameConversation',
        tags: ['conversations'],
        summary: 'Rename a conversation (trimmed, 1 to 200 characters)',
        params: ConversationParamsSchema,
        body: RenameConversationBodySchema,
        response: { 200: ConversationSummarySchema, ...errors },
      },
      config: { auth: 'paid', rateLimit: WRITE_LIMIT },
    },
    async (request) => chat.rename(request.user.id, request.params.id, request.body.title),
  )

  app.put(
    '/api/conversations/:id/content',
    {
      schema: {
        operationId: 'autosaveConversation',
        tags: ['conversations'],
        summary:
          "Save the user's own messages (the autosave): merged by id, so a repeated or stale save never loses or duplicates one; " +
          'assistant messages are refused (the server stores every reply itself)',
        params: ConversationParamsSchema,
        body: SaveContentBodySchema,
        response: { 200: ConversationSummarySchema, ...errors, 413: ErrorBodySchema },
      },
      config: { auth: 'paid', rateLimit: WRITE_LIMIT },
    },
    async (request) => chat.saveContent(request.user.id, request.params.id, request.body.content),
  )

  app.delete(
    '/api/conversations/:id',
    {
      schema: {
        operationId: 'deleteConversation',
        tags: ['conversations'],
        summary: 'Delete a conversation',
        params: ConversationParamsSchema,
        response: { 204: z.undefined(), ...errors },
      },
      config: { auth: 'paid', rateLimit: WRITE_LIMIT },
    },
    async (request, reply) => {
      await chat.remove(request.user.id, request.params.id)
      return reply.code(204).send()
    },
  )

  app.post(
    '/api/conversations/:id/reopen',
    {
      schema: {
        operationId: 'reopenConversation',
        tags: ['conversations'],
        summary:
          'Reopen an archived conversation: back at the top of the list; past the 200 open conversations, the least recently ' +
          'updated one is archived (an open conversation is left as it is). Sending or saving a message into an archived one reopens it too',
        params: ConversationParamsSchema,
        response: { 200: ConversationSummarySchema, ...errors },
      },
      config: { auth: 'paid', rateLimit: WRITE_LIMIT },
    },
    async (request) => chat.reopen(request.user.id, request.params.id),
  )

  app.post(
    '/api/conversations/:id/messages',
    {
      schema: {
        operationId: 'sendMessage',
        tags: ['conversations'],
        summary: "Send a message: stores it, asks the assistant, stores the reply (the user's message survives a failed reply)",
        description: STREAM_DESCRIPTION,
        params: ConversationParamsSchema,
        body: SendMessageBodySchema,
        response: {
          200: text().describe('text/event-stream (see the description)'),
          201: SendMessageResponseSchema,
          ...errors,
          413: ErrorBodySchema,
          502: ErrorBodySchema,
          504: ErrorBodySchema,
        },
      },
      config: { auth: 'paid', rateLimit: SEND_LIMIT },
    },
    async (request, reply) => {
      const userId = request.user.id
      const { id } = request.params
      if (!(request.headers.accept ?? '').includes(EVENT_STREAM)) {
        return reply.code(201).send(await chat.send(userId, id, request.body))
      }

      // Streaming. Refusals before the message is stored (not found, repeated id, full) are
      // ordinary JSON errors; once it is stored the stream starts, and a failed reply is an
      // `error` event. A browser that leaves early does not stop the reply from being stored.
      const sse = eventStream()
      const emit = (event: ChatStreamEvent) => sse.event(event.type, event)
      let started = false
      try {
        const result = await chat.send(userId, id, request.body, {
          onStored: (message) => {
            started = true
            sse.open(reply)
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
          error: known ? { code: error.code, message: error.message } : { code: 'INTERNAL', message: ERRORS.INTERNAL.message },
        })
      }
      if (!sse.stream.destroyed) sse.stream.end()
      return reply
    },
  )
}

export default chatRoutes
