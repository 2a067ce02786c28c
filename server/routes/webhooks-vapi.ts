import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { ErrorBodySchema } from '#common/errors'
import { text } from '#common/text'
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
 * 401 otherwise. The message is stored once and applied by a job: the answer never waits on Vapi.
 * A final transcript line of a live phone call is not stored: it is published to the person's open
 * dashboards before the answer (docs/decisions/044).
 */
const vapiWebhookRoutes: FastifyPluginAsyncZod = async (app) => {
  const { calls } = app.services

  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, (_request, body, done) => {
    done(null, body)
  })

  app.post(
    '/api/webhooks/vapi',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Vapi server messages (status updates, end-of-call reports, final transcript lines), authenticated with X-Vapi-Secret or an HMAC; each (call, type, status) is applied once, each transcript line relayed live once',
        headers: z.object({ 'x-vapi-secret': text().optional(), 'x-signature': text().optional(), 'x-timestamp': text().optional() }),
        response: { 200: WebhookResponseSchema, 400: ErrorBodySchema, 401: ErrorBodySchema, 413: ErrorBodySchema, 415: ErrorBodySchema, 429: ErrorBodySchema },
      },
      bodyLimit: BODY_LIMIT,
      config: {
        auth: 'webhook',
        // Vapi's deliveries grow with the calls live at once (a phone call's every final transcript
        // line is one): an authentic delivery is never counted, whatever the volume. Deliveries that
        // fail authentication are limited per address (checked once the body is read: the HMAC
        // signs it).
        rateLimit: { max: UNAUTHENTIC_PER_MINUTE, timeWindow: '1 minute', hook: 'preHandler', allowList: (request) => Buffer.isBuffer(request.body) && calls.authentic(request.body, request.headers) },
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
