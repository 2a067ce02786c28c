import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { ErrorBodySchema } from '#common/errors'
import { OpsSnapshotSchema, RetryParkedEventParamsSchema, RetryParkedEventResponseSchema } from '#common/ops'
import { AppError } from '../lib/app-error'
import { audit } from '#server/services/audit'

const errors = { 400: ErrorBodySchema, 403: ErrorBodySchema, 404: ErrorBodySchema, 429: ErrorBodySchema }

/**
 * /api/ops: the operator's view (docs/decisions/075), for staff with the operator role signed in
 * with two-factor sign-in (the staff guard answers anyone else 404, or 403). The snapshot is what
 * `npm run calls:status` prints; putting a parked webhook message back is written to the audit log
 * in the same transaction.
 */
const opsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { ops, calls, clock } = app.services

  app.get(
    '/api/ops/status',
    {
      schema: {
        operationId: 'getOperationsStatus',
        tags: ['operations'],
        summary:
          "How the service stands now: phone calls by status in the last hour and today, the answer rate against the same hours a week ago, lateness, Vapi's lines, queues, parked webhook messages, stuck calls, texts refused by code",
        response: { 200: OpsSnapshotSchema, ...errors },
      },
      config: { auth: 'staff', role: 'operator', cache: 'no-store', rateLimit: { max: 60, timeWindow: '1 minute' } },
    },
    async () => ops.snapshot(),
  )

  app.post(
    '/api/ops/webhook-events/:id/retry',
    {
      schema: {
        operationId: 'retryParkedWebhookEvent',
        tags: ['operations'],
        summary: 'Put a parked Vapi webhook message back to be applied now (its failures forgotten); written to the audit log',
        params: RetryParkedEventParamsSchema,
        response: { 200: RetryParkedEventResponseSchema, ...errors },
      },
      config: { auth: 'staff', role: 'operator', cache: 'no-store', rateLimit: { max: 30, timeWindow: '1 minute' } },
    },
    async (request) => {
      const { id } = request.params
      const retried = await calls.retryParkedEvent(id, (tx) =>
        audit.record(tx, {
          actor: { kind: 'user', userId: request.user.id },
          action: 'webhook_event_retried',
          subjectUserId: null,
          target: { type: 'webhook_event', id: String(id) },
          at: clock.now(),
        }),
      )
      if (!retried) throw new AppError('NOT_FOUND', 'No parked webhook message has that id.', { field: 'id' })
      return { retried: true as const }
    },
  )
}

export default opsRoutes
