import type { preParsingAsyncHookHandler } from 'fastify'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { ErrorBodySchema } from '#common/errors'
import { text } from '#common/text'
import { headerKey, VAPI_SECRET_HEADER, VAPI_SIGNATURE_HEADER, VAPI_TIMESTAMP_HEADER, VAPI_WEBHOOK_PATH } from '#common/webhooks'
import { AppError } from '../lib/app-error'

const WebhookResponseSchema = z.object({ received: z.literal(true), duplicate: z.boolean() })

/** Deliveries a minute per address that fail authentication (401); past them, 429. */
export const UNAUTHENTIC_PER_MINUTE = 60

/** Vapi's end-of-call reports carry the whole transcript and message log. */
const BODY_LIMIT = 5 * 1024 * 1024

/**
 * POST /api/webhooks/vapi: Vapi's server messages for the daily calls. An encapsulated plugin whose
 * JSON parser hands the route the raw bytes (the HMAC scheme signs them exactly as sent). No
 * session, no same-origin check: the X-Vapi-Secret header (or the HMAC) is the authentication,
 * 401 otherwise. In secret mode the header is checked before the body is read (a forged post of
 * megabytes is refused at its headers, and its connection closed); the HMAC needs the body. The
 * message is stored once and applied by a job: the answer never waits on Vapi. A final transcript
 * line of a live phone call is not stored: it is published to the person's open dashboards before
 * the answer (docs/decisions/044).
 */
const vapiWebhookRoutes: FastifyPluginAsyncZod = async (app) => {
  const { calls } = app.services
  const headersDecide = calls.webhookHeadersDecide
  /** Before the body is read: a delivery whose headers cannot be Vapi's is refused, and its unread body left with its connection. */
  const refuseForged: preParsingAsyncHookHandler = async (request, reply, payload) => {
    if (calls.authenticHeaders(request.headers) === false) {
      reply.header('connection', 'close')
      throw new AppError('UNAUTHENTICATED', 'The webhook could not be authenticated.')
    }
    return payload
  }

  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, (_request, body, done) => {
    done(null, body)
  })

  app.post(
    VAPI_WEBHOOK_PATH,
    {
      schema: {
        operationId: 'receiveVapiMessage',
        tags: ['webhooks'],
        summary: 'Vapi server messages (status updates, end-of-call reports, final transcript lines), authenticated with X-Vapi-Secret or an HMAC; each (call, type, status) is applied once, each transcript line relayed live once',
        headers: z.object({
          [headerKey(VAPI_SECRET_HEADER)]: text().optional(),
          [VAPI_SIGNATURE_HEADER]: text().optional(),
          [VAPI_TIMESTAMP_HEADER]: text().optional(),
        }),
        response: { 200: WebhookResponseSchema, 400: ErrorBodySchema, 401: ErrorBodySchema, 413: ErrorBodySchema, 415: ErrorBodySchema, 429: ErrorBodySchema },
      },
      bodyLimit: BODY_LIMIT,
      preParsing: refuseForged,
      config: {
        auth: 'webhook',
        // Vapi's deliveries grow with the calls live at once (a phone call's every final transcript
        // line is one): an authentic delivery is never counted, whatever the volume. Deliveries that
        // fail authentication are limited per address: at once in secret mode (the header decides),
        // once the body is read in HMAC mode (the signature covers it).
        rateLimit: headersDecide
          ? { max: UNAUTHENTIC_PER_MINUTE, timeWindow: '1 minute', hook: 'onRequest', allowList: (request) => calls.authenticHeaders(request.headers) === true }
          : { max: UNAUTHENTIC_PER_MINUTE, timeWindow: '1 minute', hook: 'preHandler', allowList: (request) => Buffer.isBuffer(request.body) && calls.authentic(request.body, request.headers) },
      },
    },
    async (request) => {
      const body = request.body
      if (!Buffer.isBuffer(body)) throw new AppError('UNAUTHENTICATED', 'The webhook could not be authenticated.')
      const result = await calls.receiveWebhook(body, request.headers)
      return { received: true as const, duplicate: result.duplicate }
    },
  )
}

export default vapiWebhookRoutes
