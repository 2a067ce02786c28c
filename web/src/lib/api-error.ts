import type { ErrorCode } from '#common/errors'

// The error every API call rejects with. Kept apart from the fetch client (and free of zod)
// so the query client's retry rule can inspect errors without pulling validation code into
// the entry chunk.

/** Codes that exist only on the client side of the wire. */
type ClientErrorCode = 'NETWORK_ERROR' | 'INVALID_RESPONSE'

/** Server codes from common/errors.ts, the client's own codes, and any code a newer server may add. */
type ApiErrorCode = ErrorCode | ClientErrorCode | (string & {})

/** The spec's generic network text; screens with a variant of it pass their own. */
export const NETWORK_ERROR_MESSAGE =
  'Unable to connect to our servers. Please check your internet connection and try again.'

export class ApiError extends Error {
  override readonly name = 'ApiError'
  /** HTTP status; 0 when no response arrived (network failure). */
  readonly status: number
  readonly code: ApiErrorCode
  /** The request field the server blamed, when it named one. */
  readonly field: string | undefined

  constructor(init: { status: number; code: ApiErrorCode; message: string; field?: string | undefined; cause?: unknown }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause })
    this.status = init.status
    this.code = init.code
    this.field = init.field
  }

  /** Whether the error has this code (checked against the one list of codes, so a typo does not compile). */
  is(code: ErrorCode | ClientErrorCode): boolean {
    return this.code === code
  }

  get isNetworkError(): boolean {
    return this.code === 'NETWORK_ERROR'
  }

  /** True for 4xx answers: the request itself was refused, so repeating it will not help. */
  get isClientError(): boolean {
    return this.status >= 400 && this.status < 500
  }
}

export function isApiError(error: unknown): error is ApiError {
  return error instanceof ApiError
}
