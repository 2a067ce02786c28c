import { ERRORS, type ErrorCode } from '#common/errors'

type AppErrorOptions = {
  /** The request field the error is about (a form shows the message under it). */
  field?: string
  /** Seconds until a retry may succeed (429s): sent as Retry-After. */
  retryAfter?: number
  cause?: unknown
}

/**
 * An error meant for the client: a code from the one list in common/errors.ts, whose status it
 * answers with, and a message (the code's default unless given). Code, message and field reach
 * the JSON body as they are.
 */
export class AppError extends Error {
  readonly code: ErrorCode
  readonly statusCode: number
  readonly field: string | undefined
  readonly retryAfter: number | undefined

  constructor(code: ErrorCode, message?: string, options: AppErrorOptions = {}) {
    super(message ?? ERRORS[code].message, options.cause === undefined ? undefined : { cause: options.cause })
    this.name = 'AppError'
    this.code = code
    this.statusCode = ERRORS[code].status
    this.field = options.field
    this.retryAfter = options.retryAfter
  }
}

export const notFound = (message?: string) => new AppError('NOT_FOUND', message)
export const unauthenticated = (message?: string) => new AppError('UNAUTHENTICATED', message)
export const forbidden = (message?: string) => new AppError('FORBIDDEN', message)
