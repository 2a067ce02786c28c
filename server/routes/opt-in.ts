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

/** /opt-in: the instructions to show, and recording the opt-in. Paid users only. */
const optInRoutes: FastifyPluginAsyncZod = async (app) => {
  const number = app.config.smsOptInNumber
  const { accounts } = app.services

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
