import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { DeleteAccountBodySchema, EXPORT_CONTENT_TYPE } from '#common/account-data'
import { ErrorBodySchema } from '#common/errors'
import { text } from '#common/text'
import { perUserLimit } from '#server/lib/route-hooks'

/** Deletion attempts per person: each password is also counted against the login limits of the account. */
const DELETE_LIMIT = perUserLimit('account-delete', 5)

const errors = { 401: ErrorBodySchema, 403: ErrorBodySchema, 429: ErrorBodySchema }

/**
 * The person's own data (docs/decisions/051): "Export my data" and "Delete my account". Both need
 * the session (not a paid plan: anyone may take their data or leave) and the same origin (they are
 * POSTs), and act on the session's user only.
 */
const accountDataRoutes: FastifyPluginAsyncZod = async (app) => {
  const { accountData } = app.services

  app.post(
    '/api/account/export',
    {
      schema: {
        operationId: 'exportAccountData',
        tags: ['account'],
        summary:
          'Export my data: a ZIP (README.md and a JSON file per area) of everything kept about the signed-in user, streamed as it is written; at most once in 10 minutes (429 with Retry-After)',
        response: { 200: text().describe(`${EXPORT_CONTENT_TYPE}: the archive, with Content-Disposition naming the file`), ...errors },
      },
      config: { auth: 'session', cache: 'no-store' },
    },
    async (request, reply) => {
      // A failure once the archive is under way ends the response short (the ZIP then has no directory).
      const { fileName, archive } = await accountData.startExport(request.user, (error) => request.log.error({ err: error }, 'account export failed while it was being sent'))
      // A browser that goes away closes the response, and Fastify destroys the archive with it: no
      // file is read further (test: "a download cut short").
      return reply
        .code(200)
        .type(EXPORT_CONTENT_TYPE)
        .header('content-disposition', `attachment; filename="${fileName}"`)
        .send(archive as never)
    },
  )

  app.post(
    '/api/account/delete',
    {
      schema: {
        operationId: 'deleteAccount',
        tags: ['account'],
        summary:
          "Delete my account: the password (401 naming it when wrong) and the account's email typed to confirm (400 naming it); cancels the Stripe subscription, the calls, texts and reports still to come, deletes every record of the person in one transaction (billing records law requires are kept without the person), ends every session and sends a last email",
        body: DeleteAccountBodySchema,
        response: { 204: z.undefined(), 400: ErrorBodySchema, ...errors, 502: ErrorBodySchema, 503: ErrorBodySchema },
      },
      config: { auth: 'session', cache: 'no-store', rateLimit: DELETE_LIMIT },
    },
    async (request, reply) => {
      await accountData.deleteAccount(request.user.id, request.body)
      app.clearSessionCookie(reply)
      return reply.code(204).send()
    },
  )
}

export default accountDataRoutes
