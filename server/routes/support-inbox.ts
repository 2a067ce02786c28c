import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { ErrorBodySchema } from '#common/errors'
import {
  CannedRepliesResponseSchema,
  CannedReplyBodySchema,
  CannedReplyParamsSchema,
  CannedReplyResponseSchema,
  InboxTicketResponseSchema,
  SupportInboxQuerySchema,
  SupportInboxResponseSchema,
  SupportNoteBodySchema,
  SupportReplyBodySchema,
  SupportStatusBodySchema,
  SupportTicketParamsSchema,
} from '#common/support'
import { perUserLimit } from '../lib/route-hooks'

const WRITE_LIMIT = perUserLimit('support-inbox-write', 60)

const errors = { 403: ErrorBodySchema, 404: ErrorBodySchema, 429: ErrorBodySchema }

/**
 * The support inbox (docs/decisions/077), for staff with the support role (canned replies are
 * written by admins). The staff guard answers anyone else 404, or 403. Opening a ticket, replying,
 * a note and a change of status are each written to the audit log with the change.
 */
const supportInboxRoutes: FastifyPluginAsyncZod = async (app) => {
  const { support } = app.services

  app.get(
    '/api/staff/support/tickets',
    {
      schema: {
        operationId: 'listSupportInbox',
        tags: ['support inbox'],
        summary: 'The support inbox: requests of one status (open by default, or all), Elite first, then Premium, then the rest, oldest first, each with its first-reply target',
        querystring: SupportInboxQuerySchema,
        response: { 200: SupportInboxResponseSchema, 400: ErrorBodySchema, ...errors },
      },
      config: { auth: 'staff', role: 'support', cache: 'no-store', rateLimit: { max: 120, timeWindow: '1 minute' } },
    },
    async (request) => support.inbox(request.query.status),
  )

  app.get(
    '/api/staff/support/tickets/:id',
    {
      schema: {
        operationId: 'readSupportTicket',
        tags: ['support inbox'],
        summary: "A support request as support sees it: the conversation with internal notes, the member's account and billing state, the context sent; written to the audit log",
        params: SupportTicketParamsSchema,
        response: { 200: InboxTicketResponseSchema, ...errors },
      },
      config: { auth: 'staff', role: 'support', cache: 'no-store', rateLimit: { max: 120, timeWindow: '1 minute' } },
    },
    async (request) => ({ ticket: await support.read(request.user.id, request.params.id) }),
  )

  app.post(
    '/api/staff/support/tickets/:id/replies',
    {
      schema: {
        operationId: 'replyToSupportTicket',
        tags: ['support inbox'],
        summary: 'Replies to the member (emailed to them too); the request then waits for the member, or is resolved; written to the audit log',
        params: SupportTicketParamsSchema,
        body: SupportReplyBodySchema,
        response: { 200: InboxTicketResponseSchema, 400: ErrorBodySchema, ...errors, 409: ErrorBodySchema },
      },
      config: { auth: 'staff', role: 'support', cache: 'no-store', rateLimit: WRITE_LIMIT },
    },
    async (request) => ({ ticket: await support.reply(request.user.id, request.params.id, request.body) }),
  )

  app.post(
    '/api/staff/support/tickets/:id/notes',
    {
      schema: {
        operationId: 'addSupportNote',
        tags: ['support inbox'],
        summary: 'An internal note on a request: support sees it, the member never does; written to the audit log',
        params: SupportTicketParamsSchema,
        body: SupportNoteBodySchema,
        response: { 200: InboxTicketResponseSchema, 400: ErrorBodySchema, ...errors, 409: ErrorBodySchema },
      },
      config: { auth: 'staff', role: 'support', cache: 'no-store', rateLimit: WRITE_LIMIT },
    },
    async (request) => ({ ticket: await support.addNote(request.user.id, request.params.id, request.body.note) }),
  )

  app.put(
    '/api/staff/support/tickets/:id/status',
    {
      schema: {
        operationId: 'setSupportTicketStatus',
        tags: ['support inbox'],
        summary: 'Sets a request open, waiting on the member, or resolved; written to the audit log',
        params: SupportTicketParamsSchema,
        body: SupportStatusBodySchema,
        response: { 200: InboxTicketResponseSchema, 400: ErrorBodySchema, ...errors },
      },
      config: { auth: 'staff', role: 'support', cache: 'no-store', rateLimit: WRITE_LIMIT },
    },
    async (request) => ({ ticket: await support.setStatus(request.user.id, request.params.id, request.body.status) }),
  )

  app.get(
    '/api/staff/support/canned-replies',
    {
      schema: {
        operationId: 'listCannedReplies',
        tags: ['support inbox'],
        summary: 'The canned replies support can start a reply from, by title',
        response: { 200: CannedRepliesResponseSchema, ...errors },
      },
      config: { auth: 'staff', role: ['support', 'admin'], cache: 'no-store' },
    },
    async () => ({ replies: await support.cannedReplies.list() }),
  )

  app.post(
    '/api/staff/support/canned-replies',
    {
      schema: {
        operationId: 'createCannedReply',
        tags: ['support inbox'],
        summary: 'Adds a canned reply (admins); 409 CANNED_REPLY_LIMIT at 100',
        body: CannedReplyBodySchema,
        response: { 201: CannedReplyResponseSchema, 400: ErrorBodySchema, ...errors, 409: ErrorBodySchema },
      },
      config: { auth: 'staff', role: 'admin', cache: 'no-store', rateLimit: WRITE_LIMIT },
    },
    async (request, reply) => reply.code(201).send({ reply: await support.cannedReplies.create(request.body) }),
  )

  app.put(
    '/api/staff/support/canned-replies/:id',
    {
      schema: {
        operationId: 'updateCannedReply',
        tags: ['support inbox'],
        summary: 'Changes a canned reply (admins)',
        params: CannedReplyParamsSchema,
        body: CannedReplyBodySchema,
        response: { 200: CannedReplyResponseSchema, 400: ErrorBodySchema, ...errors },
      },
      config: { auth: 'staff', role: 'admin', cache: 'no-store', rateLimit: WRITE_LIMIT },
    },
    async (request) => ({ reply: await support.cannedReplies.update(request.params.id, request.body) }),
  )

  app.delete(
    '/api/staff/support/canned-replies/:id',
    {
      schema: {
        operationId: 'deleteCannedReply',
        tags: ['support inbox'],
        summary: 'Deletes a canned reply (admins)',
        params: CannedReplyParamsSchema,
        response: { 204: z.undefined(), ...errors },
      },
      config: { auth: 'staff', role: 'admin', cache: 'no-store', rateLimit: WRITE_LIMIT },
    },
    async (request, reply) => {
      await support.cannedReplies.remove(request.params.id)
      return reply.code(204).send()
    },
  )
}

export default supportInboxRoutes
