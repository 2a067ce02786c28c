import formbody from '@fastify/formbody'
import type { FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { ErrorBodySchema } from '#common/errors'
import { text } from '#common/text'
import { headerKey, SMS_STATUS_PATH, SMS_WEBHOOK_PATH, TWILIO_SIGNATURE_HEADER } from '#common/webhooks'
import { STATUS_TEXT_PARAM, type InboundParams, type SignedWebhook } from '#server/services/texts'

/** Twilio's inbound message: a few form fields (Twilio adds more without notice; all of them are signed). */
const BODY_LIMIT = 64 * 1024

/** Posts a minute per address that fail the signature (403); past them, 429. */
const UNAUTHENTIC_SMS_PER_MINUTE = 60

const escapeXml = (value: string) => value.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!)

/** What both of Twilio's webhooks send: the signature header and the signed form fields. */
const signedForm = {
  headers: z.object({ [headerKey(TWILIO_SIGNATURE_HEADER)]: text().optional() }),
  body: z.record(text(), z.union([text(), z.array(text())])).optional(),
}
const refusals = { 400: ErrorBodySchema, 403: ErrorBodySchema, 413: ErrorBodySchema, 415: ErrorBodySchema, 429: ErrorBodySchema }

/** TwiML: an empty <Response/>, or one <Message> (what Twilio's MessagingResponse writes). */
const twiml = (reply: string | null) =>
  `<?xml version="1.0" encoding="UTF-8"?>${reply === null ? '<Response/>' : `<Response><Message>${escapeXml(reply)}</Message></Response>`}`

/**
 * POST /api/webhooks/sms: inbound texts from Twilio (docs/decisions/045). An encapsulated plugin:
 * only here are form bodies parsed (@fastify/formbody; the rest of the API stays JSON-only). No
 * session, no same-origin check: the X-Twilio-Signature, checked with the twilio package's
 * validator against APP_URL + the path Twilio called and every form field, is the authentication
 * (403 otherwise, and always when Twilio is not configured). Each MessageSid is acted on once; the
 * answer is TwiML (text/xml), with the keyword's reply when there is one.
 *
 * POST /api/webhooks/sms/status: the status callbacks of the texts we send, signed the same way.
 */
const smsWebhookRoutes: FastifyPluginAsyncZod = async (app) => {
  const { texts } = app.services
  const appUrl = app.config.appUrl.replace(/\/$/, '')
  await app.register(formbody, { bodyLimit: BODY_LIMIT })
  const signed = (request: FastifyRequest): SignedWebhook => ({
    signature: request.headers[headerKey(TWILIO_SIGNATURE_HEADER)] as string | undefined,
    url: appUrl + request.url,
    params: (request.body ?? {}) as InboundParams,
  })
  // Twilio's deliveries (a STOP among them) are never counted: the signature is checked first, once
  // the form is read, and only posts that fail it are limited per address. Forged posts cannot
  // spend the address's allowance and have Twilio's real STOPs refused.
  const unauthenticLimit = {
    max: UNAUTHENTIC_SMS_PER_MINUTE,
    timeWindow: '1 minute',
    hook: 'preHandler' as const,
    allowList: (request: FastifyRequest) => texts.authentic(signed(request)),
  }

  app.post(
    SMS_WEBHOOK_PATH,
    {
      schema: {
        operationId: 'receiveInboundText',
        tags: ['webhooks'],
        summary:
          'Inbound texts from Twilio (form-encoded), verified with X-Twilio-Signature; each MessageSid processed once; STOP-family keywords revoke texts and calls, START-family ones grant texts, HELP/INFO answered; the answer is TwiML',
        ...signedForm,
        response: { 200: text().describe('TwiML (text/xml): <Response/>, or <Response><Message>…</Message></Response>'), ...refusals },
      },
      bodyLimit: BODY_LIMIT,
      config: { auth: 'webhook', rateLimit: unauthenticLimit },
    },
    async (request, reply) => {
      const result = await texts.receiveWebhook(signed(request))
      app.services.metrics.webhooks.received('twilio', 'inbound_text', null, app.services.clock.now())
      return reply.code(200).type('text/xml; charset=utf-8').send(twiml(result.reply))
    },
  )

  app.post(
    SMS_STATUS_PATH,
    {
      schema: {
        operationId: 'receiveTextStatus',
        tags: ['webhooks'],
        summary:
          "Twilio's status callbacks for the texts we send (form-encoded), verified with X-Twilio-Signature: each text's final status once (delivered, undelivered, failed); 21610 revokes texts, a number that cannot take texts gets none again",
        ...signedForm,
        querystring: z.object({ [STATUS_TEXT_PARAM]: z.uuid().optional().describe('The text the callback is about, as the StatusCallback URL we gave Twilio names it') }),
        response: { 204: z.null().describe('Taken (also for a callback that changes nothing: repeated, late, or for a text we do not know)'), ...refusals },
      },
      bodyLimit: BODY_LIMIT,
      config: { auth: 'webhook', rateLimit: unauthenticLimit },
    },
    async (request, reply) => {
      await texts.receiveStatus(signed(request), request.query[STATUS_TEXT_PARAM])
      app.services.metrics.webhooks.received('twilio', 'status_callback', null, app.services.clock.now())
      return reply.code(204).send(null)
    },
  )
}

export default smsWebhookRoutes
