import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import Stripe from 'stripe'
import { z } from 'zod'
import { ErrorBodySchema } from '#common/errors'
import { AppError } from '../lib/app-error'
import type { Billing } from '../services/billing'

export type StripeWebhookOptions = { billing: Billing | undefined; webhookSecret: string | undefined }

const WebhookResponseSchema = z.object({ received: z.literal(true), duplicate: z.boolean() })

const badSignature = (message: string) => new AppError('INVALID_SIGNATURE', message, { status: 400 })

/**
 * POST /api/webhooks/stripe. An encapsulated plugin: its JSON parser hands the route the raw bytes
 * (signature verification needs them exactly as sent), every other route keeps parsed JSON.
 * No session, no same-origin check (the csrf plugin skips /api/webhooks/): the signature is the
 * authentication. Answers as soon as the event's small database write is done.
 */
const stripeWebhookRoutes: FastifyPluginAsyncZod<StripeWebhookOptions> = async (app, { billing, webhookSecret }) => {
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: 1024 * 1024 }, (_request, body, done) => {
    done(null, body)
  })

  app.post(
    '/api/webhooks/stripe',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Stripe events, verified with the Stripe-Signature header; each event id is processed once',
        headers: z.object({ 'stripe-signature': z.string().optional() }),
        response: { 200: WebhookResponseSchema, 400: ErrorBodySchema, 404: ErrorBodySchema, 415: ErrorBodySchema, 429: ErrorBodySchema },
      },
      bodyLimit: 1024 * 1024,
      config: { auth: 'webhook', rateLimit: { max: 3000, timeWindow: '1 minute' } },
    },
    async (request) => {
      if (!billing || !webhookSecret) throw new AppError('NOT_FOUND', 'Stripe is not configured on this server.')
      const signature = request.headers['stripe-signature']
      if (!signature) throw badSignature('The Stripe-Signature header is missing.')
      const body = request.body
      if (!Buffer.isBuffer(body)) throw badSignature('The request body must be the raw JSON Stripe sent.')
      let event: Stripe.Event
      try {
        event = billing.stripe.webhooks.constructEvent(body, signature, webhookSecret)
      } catch (error) {
        if (error instanceof Stripe.errors.StripeSignatureVerificationError) {
          request.log.warn({ reason: error.message }, 'stripe webhook with a bad signature')
          throw badSignature('The Stripe-Signature header does not match the payload.')
        }
        throw badSignature('The payload is not a Stripe event.')
      }
      const outcome = await billing.handleEvent(event)
      request.log.info({ event: event.id, type: event.type, outcome }, 'stripe event')
      return { received: true as const, duplicate: outcome === 'duplicate' }
    },
  )
}

export default stripeWebhookRoutes
