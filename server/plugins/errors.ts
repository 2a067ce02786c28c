import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod'
import { codeForStatus, ERRORS, type ErrorBody } from '#common/errors'
import { AppError } from '../lib/app-error'

type Issue = { instancePath?: string; message?: string; params?: { issue?: { path?: PropertyKey[] } } }

/** "body.email" from a validation issue, so the client can show the message under its field. */
function fieldOf(context: string | undefined, issue: Issue | undefined): string | undefined {
  const path = issue?.params?.issue?.path?.map(String) ?? issue?.instancePath?.split('/').filter(Boolean) ?? []
  const field = path.join('.')
  if (!field) return context
  return field
}

function send(reply: FastifyReply, status: number, body: ErrorBody) {
  // Errors are never cached, never sniffed as HTML.
  return reply.code(status).header('cache-control', 'no-store').type('application/json; charset=utf-8').send(body)
}

/**
 * One error handler for the whole app: the contract's JSON error shape for every /api failure,
 * 400 naming the field for validation failures, never a stack trace.
 */
export default fp(
  async (app) => {
    app.setErrorHandler((error: FastifyError | AppError, request: FastifyRequest, reply: FastifyReply) => {
      if (error instanceof AppError) {
        if (error.statusCode >= 500) request.log.error({ err: error }, 'request failed')
        const body: ErrorBody = { error: { code: error.code, message: error.message } }
        if (error.field) body.error.field = error.field
        if (error.retryAfter) reply.header('retry-after', String(error.retryAfter))
        return send(reply, error.statusCode, body)
      }

      if (hasZodFastifySchemaValidationErrors(error)) {
        const issue = error.validation[0] as Issue | undefined
        const field = fieldOf(error.validationContext, issue)
        const message = issue?.message ?? 'Invalid request'
        return send(reply, 400, {
          error: {
            code: 'VALIDATION_FAILED',
            message: field ? `${field}: ${message}` : message,
            ...(field ? { field } : {}),
          },
        })
      }

      if (isResponseSerializationError(error)) {
        request.log.error({ err: error, issues: error.cause.issues }, 'response did not match its schema')
        return send(reply, 500, { error: { code: 'INTERNAL', message: ERRORS.INTERNAL.message } })
      }

      const status = typeof error.statusCode === 'number' && error.statusCode >= 400 ? error.statusCode : 500
      if (status >= 500) {
        request.log.error({ err: error }, 'request failed')
        const code = status === 503 ? 'SERVICE_UNAVAILABLE' : 'INTERNAL'
        return send(reply, ERRORS[code].status, { error: { code, message: ERRORS.INTERNAL.message } })
      }

      // Fastify's own 4xx errors (bad JSON, body too large, unsupported media type...).
      const code = codeForStatus(status)
      const message =
        error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY'
          ? 'The request body is not valid JSON.'
          : error.message
      return send(reply, status, { error: { code, message } })
    })
  },
  { name: 'errors' },
)
