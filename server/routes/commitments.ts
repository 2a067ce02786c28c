import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { CommitmentParamsSchema, CommitmentsResponseSchema, MarkCommitmentDoneResponseSchema } from '#common/commitments'
import { ErrorBodySchema } from '#common/errors'
import { perUserLimit } from '../lib/route-hooks'

/** Marking done: 60 a minute per person is far above anyone's pace. */
const MARK_LIMIT = perUserLimit('commitments-done', 60)

const errors = { 401: ErrorBodySchema, 403: ErrorBodySchema, 429: ErrorBodySchema }

/**
 * The commitment loop on the dashboard: the person's open commitments and kept rate, and marking
 * one done. Signed-in, paid users only; every query is filtered by the session user, so another
 * person's commitment is a 404.
 */
const commitmentsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { commitments } = app.services

  app.get(
    '/api/commitments',
    {
      schema: {
        operationId: 'listOpenCommitments',
        tags: ['dashboard'],
        summary: "The signed-in user's open commitments (newest first) and the share kept of those settled in the last 30 days",
        response: { 200: CommitmentsResponseSchema, ...errors },
      },
      config: { auth: 'paid', cache: 'no-store' },
    },
    async (request) => commitments.list(request.user.id),
  )

  app.post(
    '/api/commitments/:id/done',
    {
      schema: {
        operationId: 'markCommitmentDone',
        tags: ['dashboard'],
        summary:
          "Marks one of the signed-in user's commitments done (kept); again on a kept one changes nothing; 409 for one the call recorded as missed; 404 for another user's or an unknown id",
        params: CommitmentParamsSchema,
        response: { 200: MarkCommitmentDoneResponseSchema, 400: ErrorBodySchema, ...errors, 404: ErrorBodySchema, 409: ErrorBodySchema },
      },
      config: { auth: 'paid', cache: 'no-store', rateLimit: MARK_LIMIT },
    },
    async (request) => commitments.markDone(request.user.id, request.params.id),
  )
}

export default commitmentsRoutes
