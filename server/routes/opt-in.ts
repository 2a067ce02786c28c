import { randomUUID } from 'node:crypto'
import { PassThrough } from 'node:stream'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { formatSse } from '#common/sse'
import { ErrorBodySchema } from '#common/errors'
import {
  displayPhoneNumber,
  OPT_IN_KEYWORD,
  OPT_OUT_KEYWORD,
  OptInBodySchema,
  optInConsentText,
  OptInResponseSchema,
  OptInStateResponseSchema,
} from '#common/opt-in'
import { text } from '#common/text'
import { AppError } from '../lib/app-error'

/** A comment line on an open event stream this often, so proxies keep it open. */
const KEEP_ALIVE_MS = 25_000

/**
 * The event streams one person may hold open at once, on every server (a tab of /opt-in holds one;
 * each holds a connection and a subscription to the person's live channel). More: 429.
 */
export const OPT_IN_STREAMS_PER_USER = 4
/** A stream's slot lapses unless renewed (at each keep-alive): a server that dies frees its streams' slots. */
const STREAM_SLOT_TTL_MS = KEEP_ALIVE_MS * 3

/** /opt-in: the instructions to show, and recording the opt-in. Paid users only. */
const optInRoutes: FastifyPluginAsyncZod = async (app) => {
  const number = app.config.smsOptInNumber
  const { accounts, texts, optInStreams } = app.services
  /** The open event streams, ended when the server closes (they would hold it open). */
  const streams = new Set<PassThrough>()
  app.addHook('preClose', async () => {
    for (const stream of streams) stream.end()
  })

  app.get(
    '/api/opt-in',
    {
      schema: {
        tags: ['opt-in'],
        summary: 'The text opt-in instructions (number, keywords, the consent text) and whether the user opted in',
        response: { 200: OptInStateResponseSchema, 401: ErrorBodySchema, 403: ErrorBodySchema, 429: ErrorBodySchema },
      },
      config: { auth: 'paid', cache: 'no-store' },
    },
    async (request) => {
      const { optedInAt } = await accounts.getOptIn(request.user.id)
      return {
        phone_number: number,
        display_number: displayPhoneNumber(number),
        keyword: OPT_IN_KEYWORD,
        opt_out_keyword: OPT_OUT_KEYWORD,
        consent_text: optInConsentText(number),
        opted_in: optedInAt !== null,
        opted_in_at: optedInAt ? optedInAt.toISOString() : null,
      }
    },
  )

  app.get(
    '/api/opt-in/events',
    {
      schema: {
        tags: ['opt-in'],
        summary: `Server-sent events while /opt-in is open: \`ready\` once listening, then \`text-opt-in\` when a START text from the user’s own number reached the inbound webhook. At most ${OPT_IN_STREAMS_PER_USER} open streams per person (429 past them)`,
        response: {
          200: text().describe('text/event-stream: event `ready` ({}), then `text-opt-in` ({"type":"text-opt-in","at":ISO time}) for each START'),
          401: ErrorBodySchema,
          403: ErrorBodySchema,
          429: ErrorBodySchema,
          503: ErrorBodySchema,
        },
      },
      config: { auth: 'paid', cache: 'no-store', rateLimit: { max: 30, timeWindow: '1 minute' } },
    },
    async (request, reply) => {
      // The person's slot for one more stream (on any server), held until the stream closes.
      const userId = request.user.id
      const slot = randomUUID()
      if (!(await optInStreams.take(userId, slot, OPT_IN_STREAMS_PER_USER, STREAM_SLOT_TTL_MS))) {
        throw new AppError('RATE_LIMITED', 'Too many live update streams are open for your account. Close a tab and try again.')
      }
      const stream = new PassThrough()
      // A browser that went away destroys the stream; its error is of no further interest.
      stream.on('error', () => {})
      const write = (chunk: string) => {
        if (!stream.destroyed && !stream.writableEnded) stream.write(chunk)
      }
      const subscription = texts.watchOptIn(userId, (event) => write(formatSse('text-opt-in', event)))
      const keepAlive = setInterval(() => {
        write(': keep-alive\n\n')
        optInStreams.renew(userId, slot, STREAM_SLOT_TTL_MS).catch(() => {})
      }, KEEP_ALIVE_MS)
      keepAlive.unref()
      streams.add(stream)
      let stopped = false
      const stop = () => {
        if (stopped) return
        stopped = true
        clearInterval(keepAlive)
        subscription.unsubscribe()
        streams.delete(stream)
        optInStreams.release(userId, slot).catch(() => {})
        if (!stream.writableEnded) stream.end()
      }
      request.raw.on('close', stop)
      stream.on('close', stop)
      // A browser that left while its slot was being taken: nothing to hold for it.
      if (request.raw.destroyed) stop()
      try {
        await subscription.ready
      } catch (error) {
        stop()
        request.log.warn({ err: error }, 'opt-in: could not listen for START texts')
        throw new AppError('SERVICE_UNAVAILABLE', 'Live updates are not available right now.')
      }
      reply
        .code(200)
        .type('text/event-stream; charset=utf-8')
        .header('cache-control', 'no-store')
        .header('x-accel-buffering', 'no')
        // A stream is sent as it is, never through the response serializer.
        .send(stream as never)
      write(formatSse('ready', {}))
      return reply
    },
  )

  app.post(
    '/api/opt-in',
    {
      schema: {
        tags: ['opt-in'],
        summary: 'Record the text opt-in: the time and the exact consent text shown',
        body: OptInBodySchema,
        response: {
          200: OptInResponseSchema,
          400: ErrorBodySchema,
          401: ErrorBodySchema,
          403: ErrorBodySchema,
          409: ErrorBodySchema,
          429: ErrorBodySchema,
        },
      },
      config: { auth: 'paid', rateLimit: { max: 10, timeWindow: '1 minute' } },
    },
    async (request) => {
      const at = await accounts.recordOptIn(request.user.id, request.body.consentText, { ip: request.ip, userAgent: request.headers['user-agent'] ?? null })
      return { opted_in: true as const, opted_in_at: at.toISOString() }
    },
  )
}

export default optInRoutes
