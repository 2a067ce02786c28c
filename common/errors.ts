import { z } from 'zod'

/**
 * Error codes the API answers with. The web maps them to the spec's texts;
 * the server maps them to HTTP statuses in one place (server/plugins/errors.ts).
 */
export const ERROR_CODES = [
  'BAD_REQUEST',
  'VALIDATION_FAILED',
  'UNAUTHENTICATED',
  'FORBIDDEN',
  'NOT_FOUND',
  'CONFLICT',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'RATE_LIMITED',
  'INTERNAL',
  'SERVICE_UNAVAILABLE',
] as const

export const ErrorCodeSchema = z.enum(ERROR_CODES)
export type ErrorCode = z.infer<typeof ErrorCodeSchema>

/** The contract's error body: {"error":{"code":"...","message":"..."}} plus the offending field when known. */
export const ErrorBodySchema = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    field: z.string().optional(),
  }),
})
export type ErrorBody = z.infer<typeof ErrorBodySchema>
