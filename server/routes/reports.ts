import type { FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { ErrorBodySchema } from '#common/errors'
import {
  UnsubscribeBodySchema,
  UnsubscribeQuerySchema,
  UnsubscribeResponseSchema,
  WeeklyReportParamsSchema,
  WeeklyReportSchema,
  WeeklyReportsResponseSchema,
} from '#common/reports'

const errors = { 401: ErrorBodySchema, 403: ErrorBodySchema, 429: ErrorBodySchema }

/** Per client address: the unsubscribe link needs no session. */
const UNSUBSCRIBE_LIMIT = { max: 30, timeWindow: '1 minute', groupId: 'reports-unsubscribe' }

const FORM = 'application/x-www-form-urlencoded'
const MULTIPART = 'multipart/form-data'

/**
 * The weekly progress reports: the history and one week (signed-in, paid; every read filtered by
 * the session user, so a week of another person's is a 404), and the email's one-click
 * unsubscribe (RFC 8058), which needs no session: the token in its URL is the credential.
 */
const reportsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { reports } = app.services

  // A mail provider POSTs `List-Unsubscribe=One-Click` as a form (RFC 8058 §3.1); the token is in
  // the URL, so the body is read only to be polite about it. Encapsulated: these parsers serve
  // this plugin's routes only.
  if (!app.hasContentTypeParser(FORM)) {
    app.addContentTypeParser(FORM, { parseAs: 'string', bodyLimit: 2048 }, (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(String(body)))))
  }
  if (!app.hasContentTypeParser(MULTIPART)) {
    app.addContentTypeParser(MULTIPART, { parseAs: 'string', bodyLimit: 4096 }, (_request, _body, done) => done(null, {}))
  }

  app.get(
    '/api/reports',
    {
      schema: {
        operationId: 'listWeeklyReports',
        tags: ['reports'],
        summary: "The signed-in user's weekly progress reports, newest first (up to 52 weeks): each week's headline figures",
        response: { 200: WeeklyReportsResponseSchema, ...errors },
      },
      config: { auth: 'paid', cache: 'no-store' },
    },
    async (request) => reports.list(request.user.id),
  )

  app.get(
    '/api/reports/unsubscribe',
    {
      schema: {
        operationId: 'openReportUnsubscribeLink',
        tags: ['reports'],
        summary: "A report email's List-Unsubscribe link opened in a browser: changes nothing, and sends the browser to the app's /unsubscribe page (303), which asks first",
        querystring: UnsubscribeQuerySchema,
        response: { 303: z.undefined(), 400: ErrorBodySchema, 429: ErrorBodySchema },
      },
      config: { auth: 'none', cache: 'no-store', rateLimit: UNSUBSCRIBE_LIMIT },
    },
    async (request, reply) => reply.redirect(`/unsubscribe${request.query.token ? `#token=${encodeURIComponent(request.query.token)}` : ''}`, 303),
  )

  app.post(
    '/api/reports/unsubscribe',
    {
      schema: {
        operationId: 'unsubscribeFromReports',
        tags: ['reports'],
        summary:
          "One-click unsubscribe from the weekly report emails (RFC 8058): the token from the email's List-Unsubscribe URL (?token=, the provider's POST of List-Unsubscribe=One-Click) or the /unsubscribe page's JSON body; no session. Recorded in the consent ledger (report_emails revoked, source email_unsubscribe); 400 INVALID_TOKEN naming `token` for a token that is not one",
        querystring: UnsubscribeQuerySchema,
        body: UnsubscribeBodySchema,
        response: { 200: UnsubscribeResponseSchema, 400: ErrorBodySchema, 415: ErrorBodySchema, 429: ErrorBodySchema },
      },
      config: { auth: 'token', cache: 'no-store', rateLimit: UNSUBSCRIBE_LIMIT },
    },
    async (request: FastifyRequest<{ Querystring: { token?: string }; Body: { token?: string } | undefined }>) => {
      const fromQuery = request.query.token
      return reports.unsubscribe(fromQuery ?? request.body?.token, {
        ip: request.ip,
        userAgent: request.headers['user-agent'] ?? null,
        oneClick: fromQuery !== undefined,
      })
    },
  )

  app.get(
    '/api/reports/:week',
    {
      schema: {
        operationId: 'getWeeklyReport',
        tags: ['reports'],
        summary: "One of the signed-in user's weekly reports, by the date of the Sunday its week ends on; 404 for a week they have no report of",
        params: WeeklyReportParamsSchema,
        response: { 200: WeeklyReportSchema, 400: ErrorBodySchema, ...errors, 404: ErrorBodySchema },
      },
      config: { auth: 'paid', cache: 'no-store' },
    },
    async (request) => reports.get(request.user.id, request.params.week),
  )
}

export default reportsRoutes
