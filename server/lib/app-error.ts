import type { ErrorCode } from '#common/errors'

const STATUS: Record<ErrorCode, number> = {
  BAD_REQUEST: 400,
  VALIDATION_FAILED: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  SERVICE_UNAVAILABLE: 503,
}

/** An error meant for the client: its code, message and field reach the JSON body as they are. */
export class AppError extends Error {
  readonly code: ErrorCode | (string & {})
  readonly statusCode: number
  readonly field: string | undefined

  constructor(code: ErrorCode | (string & {}), message: string, options: { status?: number; field?: string } = {}) {
    super(message)
    this.name = 'AppError'
    this.code = code
    this.statusCode = options.status ?? STATUS[code as ErrorCode] ?? 400
    this.field = options.field
  }
}

export const notFound = (message = 'Not found') => new AppError('NOT_FOUND', message)
export const unauthenticated = (message = 'Authentication required') => new AppError('UNAUTHENTICATED', message)
export const forbidden = (message = 'Forbidden') => new AppError('FORBIDDEN', message)
