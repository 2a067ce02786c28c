import type { PassThrough } from 'node:stream'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
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
import { serveUserStream } from '../lib/sse'

/**
 * The event streams one person may hold open at once, on every server (a tab of /opt-in holds one;
 * each holds a connection and a subscription to the person's live channel). More: 429.
 */
export const OPT_IN_STREAMS_PER_USER = 4

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
        operationId: 'getTextOptIn',
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
        operationId: 'streamTextOptInEvents',
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
    async (request, reply) =>
      serveUserStream(request, reply, {
        slots: optInStreams,
        open: streams,
        max: OPT_IN_STREAMS_PER_USER,
        what: 'opt-in',
        subscribe: (sse) => texts.watchOptIn(request.user.id, (event) => sse.event('text-opt-in', event)),
      }),
  )

  app.post(
    '/api/opt-in',
    {
      schema: {
        operationId: 'recordTextOptIn',
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
