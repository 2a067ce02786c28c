import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { ConsentChannelParamsSchema, ConsentResponseSchema, UpdateConsentBodySchema } from '#common/consent'
import { ErrorBodySchema } from '#common/errors'

/** /api/consent: the person's calls, texts and report emails, and the ledger of their decisions (ADR 045). */
const consentRoutes: FastifyPluginAsyncZod = async (app) => {
  const { consent } = app.services

  app.get(
    '/api/consent',
    {
      schema: {
        operationId: 'getConsent',
        tags: ['consent'],
        summary: 'Where calls, texts and report emails stand for the user, and every grant and revocation (newest first: source, exact text, time)',
        response: { 200: ConsentResponseSchema, 401: ErrorBodySchema, 429: ErrorBodySchema },
      },
      config: { auth: 'session', cache: 'no-store' },
    },
    async (request) => consent.view(request.user.id),
  )

  app.put(
    '/api/consent/:channel',
    {
      schema: {
        operationId: 'setChannelConsent',
        tags: ['consent'],
        summary: 'Turn texts off, or report emails on or off (recorded in the ledger with the request’s IP and user agent); texts come back only by a START text',
        params: ConsentChannelParamsSchema,
        body: UpdateConsentBodySchema,
        response: { 200: ConsentResponseSchema, 400: ErrorBodySchema, 401: ErrorBodySchema, 403: ErrorBodySchema, 429: ErrorBodySchema },
      },
      config: { auth: 'session', rateLimit: { max: 20, timeWindow: '1 minute' } },
    },
    async (request) =>
      consent.set(request.user.id, request.params.channel, request.body.enabled, { ip: request.ip, userAgent: request.headers['user-agent'] ?? null }),
  )
}

export default consentRoutes
