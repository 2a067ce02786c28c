import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { text } from '#common/text'
import { ErrorBodySchema } from '#common/errors'
import { headerKey, STRIPE_SIGNATURE_HEADER, STRIPE_WEBHOOK_PATH } from '#common/webhooks'
import { AppError } from '../lib/app-error'

const WebhookResponseSchema = z.object({ received: z.literal(true), duplicate: z.boolean() })

/**
 * POST /api/webhooks/stripe. An encapsulated plugin: its JSON parser hands the route the raw bytes
 * (signature verification needs them exactly as sent), every other route keeps parsed JSON.
 * No session, no same-origin check (the csrf plugin skips /api/webhooks/): the signature is the
 * authentication. Answers as soon as the event's small database write is done.
 */
const stripeWebhookRoutes: FastifyPluginAsyncZod = async (app) => {
  const { billing } = app.services

  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: 1024 * 1024 }, (_request, body, done) => {
    done(null, body)
  })

  app.post(
    STRIPE_WEBHOOK_PATH,
    {
      schema: {
        operationId: 'receiveStripeEvent',
        tags: ['webhooks'],
        summary: 'Stripe events, verified with the Stripe-Signature header; each event id is processed once',
        headers: z.object({ [headerKey(STRIPE_SIGNATURE_HEADER)]: text().optional() }),
        response: { 200: WebhookResponseSchema, 400: ErrorBodySchema, 404: ErrorBodySchema, 415: ErrorBodySchema, 429: ErrorBodySchema },
      },
      bodyLimit: 1024 * 1024,
      config: { auth: 'webhook', rateLimit: { max: 3000, timeWindow: '1 minute' } },
    },
    async (request) => {
      const body = request.body
      if (!Buffer.isBuffer(body)) throw new AppError('INVALID_SIGNATURE', 'The request body must be the raw JSON Stripe sent.')
      const { event, outcome } = await billing.handleStripeWebhook(body, request.headers[headerKey(STRIPE_SIGNATURE_HEADER)])
      request.log.info({ event: event.id, type: event.type, outcome }, 'stripe event')
      app.services.metrics.webhooks.received('stripe', event.type, new Date(event.created * 1000), app.services.clock.now())
      return { received: true as const, duplicate: outcome === 'duplicate' }
    },
  )
}

export default stripeWebhookRoutes
