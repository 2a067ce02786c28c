import type { PassThrough } from 'node:stream'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import type { FastifyReply, FastifyRequest } from 'fastify'
import {
  CoachMemberParamsSchema,
  CoachMessageBodySchema,
  CoachThreadResponseSchema,
  MemberThreadResponseSchema,
  MemberMessageResponseSchema,
  SendCoachMessageResponseSchema,
} from '#common/coach'
import { ErrorBodySchema } from '#common/errors'
import { text } from '#common/text'
import { perUserLimit } from '../lib/route-hooks'
import { serveUserStream } from '../lib/sse'

/** The thread streams one person may hold open at once, on every server (a tab holds one). More: 429. */
const THREAD_STREAMS_PER_USER = 4
const SEND_LIMIT = perUserLimit('coach-thread-send', 20)

/**
 * Direct coach access (docs/decisions/079): an Elite member's message thread with their coach, and
 * the coach's side of each member's thread, with server-sent events on both sides (new messages,
 * read receipts) across every server through the cluster bus.
 */
const coachThreadRoutes: FastifyPluginAsyncZod = async (app) => {
  const { coach, threadStreams } = app.services
  const streams = new Set<PassThrough>()
  app.addHook('preClose', async () => {
    for (const stream of streams) stream.end()
  })

  /** One event stream of the person's thread events (their own thread, or every thread of a coach). */
  const openStream = (request: FastifyRequest, reply: FastifyReply) =>
    serveUserStream(request, reply, {
      slots: threadStreams,
      open: streams,
      max: THREAD_STREAMS_PER_USER,
      what: 'coach thread',
      subscribe: (sse) => coach.thread.watch(request.user.id, (event) => sse.event(event.type, event)),
    })

  const streamResponse = {
    200: text().describe('text/event-stream: event `ready` ({}), then `coach-message` ({type, memberId, message}) and `coach-messages-read` ({type, memberId, by, at})'),
    401: ErrorBodySchema,
    403: ErrorBodySchema,
    404: ErrorBodySchema,
    409: ErrorBodySchema,
    429: ErrorBodySchema,
    503: ErrorBodySchema,
  }

  app.get(
    '/api/coach/messages',
    {
      schema: {
        operationId: 'getCoachThread',
        tags: ['coach'],
        summary: "An Elite member's thread with their coach (the last 200 messages, oldest first, with read receipts) and the coach's reply promise; the coach's messages become read. 403 on other plans, 409 while a coach is being matched",
        response: { 200: CoachThreadResponseSchema, 401: ErrorBodySchema, 403: ErrorBodySchema, 409: ErrorBodySchema, 429: ErrorBodySchema },
      },
      config: { auth: 'paid', cache: 'no-store' },
    },
    async (request) => coach.thread.forMember(request.user.id),
  )

  app.post(
    '/api/coach/messages',
    {
      schema: {
        operationId: 'sendCoachMessage',
        tags: ['coach'],
        summary:
          'An Elite member writes to their coach (at most 4,000 characters, 50 a day: 409 COACH_MESSAGE_LIMIT). Words about suicide or self-harm are answered with where help is, at once, and flag the member in the workspace',
        body: CoachMessageBodySchema,
        response: { 201: SendCoachMessageResponseSchema, 400: ErrorBodySchema, 401: ErrorBodySchema, 403: ErrorBodySchema, 409: ErrorBodySchema, 429: ErrorBodySchema },
      },
      config: { auth: 'paid', cache: 'no-store', rateLimit: SEND_LIMIT },
    },
    async (request, reply) => reply.code(201).send(await coach.thread.sendAsMember(request.user.id, request.body.body)),
  )

  app.get(
    '/api/coach/messages/stream',
    {
      schema: {
        operationId: 'streamCoachThread',
        tags: ['coach'],
        summary: `Server-sent events of an Elite member's thread (403 on other plans, 409 while a coach is being matched): new messages and read receipts. At most ${THREAD_STREAMS_PER_USER} open streams per person (429 past them)`,
        response: streamResponse,
      },
      config: { auth: 'paid', cache: 'no-store', rateLimit: { max: 30, timeWindow: '1 minute' } },
    },
    async (request, reply) => {
      await coach.thread.assertOpen(request.user.id)
      return openStream(request, reply)
    },
  )

  app.get(
    '/api/staff/coach/members/:memberId/messages',
    {
      schema: {
        operationId: 'getMemberThread',
        tags: ['coach workspace'],
        summary: "One of the coach's members' threads (the last 200 messages); the member's messages become read; written to the member's audit log. 404 for anyone else's member",
        params: CoachMemberParamsSchema,
        response: { 200: MemberThreadResponseSchema, 400: ErrorBodySchema, 403: ErrorBodySchema, 404: ErrorBodySchema, 429: ErrorBodySchema },
      },
      config: { auth: 'staff', role: 'coach', cache: 'no-store', rateLimit: { max: 120, timeWindow: '1 minute' } },
    },
    async (request) => ({ messages: await coach.thread.forCoach(request.user.id, request.params.memberId) }),
  )

  app.post(
    '/api/staff/coach/members/:memberId/messages',
    {
      schema: {
        operationId: 'sendMemberMessage',
        tags: ['coach workspace'],
        summary: 'The coach writes to one of their members (at most 4,000 characters)',
        params: CoachMemberParamsSchema,
        body: CoachMessageBodySchema,
        response: { 201: MemberMessageResponseSchema, 400: ErrorBodySchema, 403: ErrorBodySchema, 404: ErrorBodySchema, 429: ErrorBodySchema },
      },
      config: { auth: 'staff', role: 'coach', cache: 'no-store', rateLimit: SEND_LIMIT },
    },
    async (request, reply) => reply.code(201).send({ message: await coach.thread.sendAsCoach(request.user.id, request.params.memberId, request.body.body) }),
  )

  app.get(
    '/api/staff/coach/messages/stream',
    {
      schema: {
        operationId: 'streamCoachThreads',
        tags: ['coach workspace'],
        summary: `Server-sent events of every thread of the coach's members: new messages and read receipts. At most ${THREAD_STREAMS_PER_USER} open streams per person`,
        response: streamResponse,
      },
      config: { auth: 'staff', role: 'coach', cache: 'no-store', rateLimit: { max: 30, timeWindow: '1 minute' } },
    },
    async (request, reply) => openStream(request, reply),
  )
}

export default coachThreadRoutes
