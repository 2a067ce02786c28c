import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { ErrorBodySchema } from '#common/errors'
import { CreateSupportTicketBodySchema, SupportMessageBodySchema, SupportTicketParamsSchema, SupportTicketResponseSchema, SupportTicketsResponseSchema } from '#common/support'
import { perUserLimit } from '../lib/route-hooks'

/** Opening requests: 10 a minute per person (at most 5 are open at once anyway). */
const OPEN_LIMIT = perUserLimit('support-open', 10)
/** Adding to a request: far above anyone's typing pace. */
const MESSAGE_LIMIT = perUserLimit('support-message', 20)

const errors = { 401: ErrorBodySchema, 429: ErrorBodySchema }

/**
 * The Help page's support requests (docs/decisions/077): any signed-in person, with a plan or not.
 * Every query is the session user's; another person's request is a 404.
 */
const supportRoutes: FastifyPluginAsyncZod = async (app) => {
  const { support } = app.services

  app.get(
    '/api/support/tickets',
    {
      schema: {
        operationId: 'listSupportTickets',
        tags: ['support'],
        summary: "The signed-in person's support requests (latest activity first) and the reply time their plan promises",
        response: { 200: SupportTicketsResponseSchema, ...errors },
      },
      config: { auth: 'session', cache: 'no-store' },
    },
    async (request) => support.listMine(request.user.id, request.access),
  )

  app.post(
    '/api/support/tickets',
    {
      schema: {
        operationId: 'openSupportTicket',
        tags: ['support'],
        summary:
          'Opens a support request: a topic, a message (at most 4,000 characters) and the page and error code the app fills in; its priority and first-reply target come from the plan. 409 SUPPORT_TICKET_LIMIT with 5 open',
        body: CreateSupportTicketBodySchema,
        response: { 201: SupportTicketResponseSchema, 400: ErrorBodySchema, ...errors, 409: ErrorBodySchema },
      },
      config: { auth: 'session', cache: 'no-store', rateLimit: OPEN_LIMIT },
    },
    async (request, reply) => reply.code(201).send({ ticket: await support.open(request.user.id, request.access, request.body) }),
  )

  app.get(
    '/api/support/tickets/:id',
    {
      schema: {
        operationId: 'getSupportTicket',
        tags: ['support'],
        summary: "One of the signed-in person's support requests with its conversation; 404 for anyone else's",
        params: SupportTicketParamsSchema,
        response: { 200: SupportTicketResponseSchema, ...errors, 404: ErrorBodySchema },
      },
      config: { auth: 'session', cache: 'no-store' },
    },
    async (request) => ({ ticket: await support.getMine(request.user.id, request.params.id) }),
  )

  app.post(
    '/api/support/tickets/:id/messages',
    {
      schema: {
        operationId: 'addSupportMessage',
        tags: ['support'],
        summary: 'Adds a message to one of the signed-in person\'s support requests (reopening it if it was waiting or resolved); 409 SUPPORT_THREAD_FULL at 200 messages',
        params: SupportTicketParamsSchema,
        body: SupportMessageBodySchema,
        response: { 200: SupportTicketResponseSchema, 400: ErrorBodySchema, ...errors, 404: ErrorBodySchema, 409: ErrorBodySchema },
      },
      config: { auth: 'session', cache: 'no-store', rateLimit: MESSAGE_LIMIT },
    },
    async (request) => ({ ticket: await support.addMessage(request.user.id, request.params.id, request.body.message) }),
  )
}

export default supportRoutes
