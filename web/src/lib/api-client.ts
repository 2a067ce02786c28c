/**
 * A small typed fetch client for our own `/api`.
 *
 * - Same-origin cookies (the session cookie is HttpOnly; the browser sends it).
 * - JSON in (or a file, a Blob, as it is), JSON out; every successful body is parsed with the
 *   caller's zod schema.
 * - Every failure becomes an `ApiError`: non-2xx answers carry the server's
 *   `{"error":{"code","message","field"}}` body, a failed connection has the code
 *   `NETWORK_ERROR`, and a body that does not match the schema has `INVALID_RESPONSE`.
 * - Aborts (TanStack Query cancelling a request) are rethrown untouched.
 */
import type { z } from 'zod'
import { codeForStatus, ErrorBodySchema } from '#common/errors'
import { ApiError, NETWORK_ERROR_MESSAGE } from './api-error'

export { ApiError, isApiError, NETWORK_ERROR_MESSAGE } from './api-error'

const INVALID_RESPONSE_MESSAGE = 'The server sent an unexpected response. Please try again.'

function defaultMessageForStatus(status: number): string {
  if (status === 401) return 'Please log in to continue.'
  if (status === 403) return 'You do not have access to this.'
  if (status === 404) return 'We could not find what you were looking for.'
  if (status === 429) return 'Too many requests. Please wait a moment and try again.'
  if (status >= 500) return 'Something went wrong on our side. Please try again in a moment.'
  return 'The request could not be completed.'
}

function isAbortError(error: unknown): boolean {
  return error instanceof DOMException && (error.name === 'AbortError' || error.name === 'TimeoutError')
}

async function readJson(response: Response): Promise<{ ok: true; value: unknown } | { ok: false }> {
  const text = await response.text()
  if (text.trim() === '') return { ok: true, value: undefined }
  try {
    return { ok: true, value: JSON.parse(text) as unknown }
  } catch {
    return { ok: false }
  }
}

type RequestOptions = {
  /** Cancels the request (TanStack Query passes one to every query function). */
  signal?: AbortSignal | undefined
  /** Extra headers; JSON headers are set automatically. */
  headers?: HeadersInit | undefined
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

/** Sends the request; a failed connection is NETWORK_ERROR (aborts are rethrown untouched). */
async function send(method: Method, path: string, body: unknown, accept: string, options: RequestOptions): Promise<Response> {
  const headers = new Headers(options.headers)
  headers.set('Accept', accept)
  const init: RequestInit = { method, headers, credentials: 'same-origin' }
  if (options.signal) init.signal = options.signal
  if (body instanceof Blob) {
    // A file goes as it is, under its own type (a coach's photo).
    if (body.type) headers.set('Content-Type', body.type)
    init.body = body
  } else if (body !== undefined) {
    headers.set('Content-Type', 'application/json')
    init.body = JSON.stringify(body)
  }
  try {
    return await fetch(path, init)
  } catch (error) {
    if (isAbortError(error)) throw error
    throw new ApiError({ status: 0, code: 'NETWORK_ERROR', message: NETWORK_ERROR_MESSAGE, cause: error })
  }
}

/** Reads a body; the connection dropping while it streams is NETWORK_ERROR. */
async function readBody<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read()
  } catch (error) {
    if (isAbortError(error)) throw error
    throw new ApiError({ status: 0, code: 'NETWORK_ERROR', message: NETWORK_ERROR_MESSAGE, cause: error })
  }
}

/** The ApiError of a non-2xx answer: the server's error body when it sent one, else the status's generic one. */
function errorOf(response: Response, parsed: Awaited<ReturnType<typeof readJson>>): ApiError {
  const errorBody = parsed.ok ? ErrorBodySchema.safeParse(parsed.value) : undefined
  if (errorBody?.success) {
    const { code, message, field } = errorBody.data.error
    return new ApiError({ status: response.status, code, message, field })
  }
  return new ApiError({
    status: response.status,
    code: codeForStatus(response.status),
    message: defaultMessageForStatus(response.status),
  })
}

async function request<S extends z.ZodType>(
  method: Method,
  path: string,
  schema: S,
  body: unknown,
  options: RequestOptions = {},
): Promise<z.output<S>> {
  const response = await send(method, path, body, 'application/json', options)
  const parsed = await readBody(() => readJson(response))
  if (!response.ok) throw errorOf(response, parsed)

  if (!parsed.ok) {
    throw new ApiError({ status: response.status, code: 'INVALID_RESPONSE', message: INVALID_RESPONSE_MESSAGE })
  }
  const result = schema.safeParse(parsed.value)
  if (!result.success) {
    throw new ApiError({
      status: response.status,
      code: 'INVALID_RESPONSE',
      message: INVALID_RESPONSE_MESSAGE,
      cause: result.error,
    })
  }
  return result.data
}

/** A file the server answers with: its bytes and the name Content-Disposition gives it. */
export type DownloadedFile = { blob: Blob; fileName: string | null }

async function download(method: Method, path: string, options: RequestOptions = {}): Promise<DownloadedFile> {
  const response = await send(method, path, undefined, '*/*', options)
  if (!response.ok) throw errorOf(response, await readBody(() => readJson(response)))
  const blob = await readBody(() => response.blob())
  const fileName = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? null
  return { blob, fileName }
}

export const api = {
  get: <S extends z.ZodType>(path: string, schema: S, options?: RequestOptions) =>
    request('GET', path, schema, undefined, options),
  post: <S extends z.ZodType>(path: string, body: unknown, schema: S, options?: RequestOptions) =>
    request('POST', path, schema, body, options),
  put: <S extends z.ZodType>(path: string, body: unknown, schema: S, options?: RequestOptions) =>
    request('PUT', path, schema, body, options),
  patch: <S extends z.ZodType>(path: string, body: unknown, schema: S, options?: RequestOptions) =>
    request('PATCH', path, schema, body, options),
  /** `body`: for a deletion that must be confirmed in its body (deleting everything the coach remembers). */
  delete: <S extends z.ZodType>(path: string, schema: S, options?: RequestOptions, body?: unknown) =>
    request('DELETE', path, schema, body, options),
  /** A request whose answer is a file (an attachment): failures are ApiErrors as for the others. */
  download: (method: 'GET' | 'POST', path: string, options?: RequestOptions) => download(method, path, options),
}
