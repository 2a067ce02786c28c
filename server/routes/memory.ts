import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { ErrorBodySchema } from '#common/errors'
import { CorrectFactSchema, MemoryPauseSchema, MemoryViewSchema } from '#common/memory'
import { text } from '#common/text'
import { isUuid } from '#common/uuid'
import { AppError } from '../lib/app-error'
import { perUserLimit } from '../lib/route-hooks'

const READ_LIMIT = perUserLimit('memory-read', 300)
const WRITE_LIMIT = perUserLimit('memory-write', 60)
/** Deleting everything is rare and final: a few a minute at most. */
const FORGET_ALL_LIMIT = perUserLimit('memory-forget-all', 10)

const FactParamsSchema = z.object({ factId: text().max(64) }).strict()
/** Deleting the whole memory must say so: one stray request never empties it. */
const ForgetAllBodySchema = z.object({ confirm: z.literal(true, { error: 'must be true to delete everything your coach remembers' }) }).strict()

const errors = { 401: ErrorBodySchema, 403: ErrorBodySchema, 429: ErrorBodySchema }

/** A fact id that cannot name a row is "not found" without asking the database. */
function factIdOf(factId: string): string {
  if (!isUuid(factId)) throw new AppError('NOT_FOUND', 'Your coach does not remember that.', { field: 'factId' })
  return factId
}

/**
 * What your coach remembers (docs/decisions/083): the person sees every current fact with where it
 * came from and each episode, corrects a fact (the correction supersedes it), deletes one for good
 * or everything, and pauses the memory. Signed-in, paid users (as the chat); every query is the
 * session user's own, so another person's fact is a 404.
 */
const memoryRoutes: FastifyPluginAsyncZod = async (app) => {
  const { memory } = app.services

  app.get(
    '/api/memory',
    {
      schema: {
        operationId: 'getMemory',
        tags: ['memory'],
        summary: 'What the coach remembers: whether memory is paused, every current fact (subject, where it came from: "from your call on Tue, Mar 9") and the latest episodes',
        response: { 200: MemoryViewSchema, ...errors },
      },
      config: { auth: 'paid', cache: 'no-store', rateLimit: READ_LIMIT },
    },
    async (request) => memory.view(request.user.id),
  )

  app.patch(
    '/api/memory/facts/:factId',
    {
      schema: {
        operationId: 'correctMemoryFact',
        tags: ['memory'],
        summary: "Corrects a fact: the person's words become a new fact that supersedes it (the coach no longer uses the old one). Answers the memory as it now is; 404 naming factId for a fact that is not current or not theirs",
        params: FactParamsSchema,
        body: CorrectFactSchema,
        response: { 200: MemoryViewSchema, 400: ErrorBodySchema, 404: ErrorBodySchema, ...errors },
      },
      config: { auth: 'paid', cache: 'no-store', rateLimit: WRITE_LIMIT },
    },
    async (request) => {
      await memory.correct(request.user.id, factIdOf(request.params.factId), request.body)
      return memory.view(request.user.id)
    },
  )

  app.delete(
    '/api/memory/facts/:factId',
    {
      schema: {
        operationId: 'forgetMemoryFact',
        tags: ['memory'],
        summary: 'Deletes a fact for good, with the versions it replaced: processing its source again never brings it back. 404 naming factId for one that is not theirs',
        params: FactParamsSchema,
        response: { 204: z.undefined(), 400: ErrorBodySchema, 404: ErrorBodySchema, ...errors },
      },
      config: { auth: 'paid', rateLimit: WRITE_LIMIT },
    },
    async (request, reply) => {
      await memory.forget(request.user.id, factIdOf(request.params.factId))
      return reply.code(204).send()
    },
  )

  app.delete(
    '/api/memory',
    {
      schema: {
        operationId: 'forgetAllMemory',
        tags: ['memory'],
        summary: 'Deletes every fact and episode the coach remembers, for good (the sources already read are never read again); the body must confirm it',
        body: ForgetAllBodySchema,
        response: { 204: z.undefined(), 400: ErrorBodySchema, ...errors },
      },
      config: { auth: 'paid', rateLimit: FORGET_ALL_LIMIT },
    },
    async (request, reply) => {
      await memory.forgetAll(request.user.id)
      return reply.code(204).send()
    },
  )

  app.put(
    '/api/memory/pause',
    {
      schema: {
        operationId: 'setMemoryPaused',
        tags: ['memory'],
        summary: 'Pauses or resumes the memory: paused, the coach works from the goals only and nothing new is remembered',
        body: MemoryPauseSchema,
        response: { 204: z.undefined(), 400: ErrorBodySchema, ...errors },
      },
      config: { auth: 'paid', rateLimit: WRITE_LIMIT },
    },
    async (request, reply) => {
      await memory.setPaused(request.user.id, request.body.paused)
      return reply.code(204).send()
    },
  )
}

export default memoryRoutes
