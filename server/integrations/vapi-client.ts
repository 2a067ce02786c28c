import type { Vapi, VapiClient } from '@vapi-ai/server-sdk'
import { Agent, fetch as undiciFetch } from 'undici'
import { lightFetch } from './light-fetch'
import { loadVapiSdk } from './vapi-sdk'

/**
 * The app's one client of Vapi's REST API, built once per process (server/container.ts) and shared
 * by the chat (vapi.ts), the phone calls (vapi-calls.ts) and the voice calls in the app
 * (vapi-voice.ts): the official SDK with the key, `baseUrl` from VAPI_API_URL (tests point it at
 * test/fakes/vapi.ts), **no retries** (the SDK would repeat a POST on 408/429/5xx, and a repeated
 * chat or call costs money twice; a read that may be retried says so itself), a 15 s limit, and one
 * keep-alive connection pool. The SDK is loaded when the client is made (./vapi-sdk): a process
 * without Vapi never loads it, one with Vapi has it long before its first request.
 *
 * Answers read whole go through `lightFetch` on the pool (cheap enough for a minute's burst of
 * dials); a server-sent-events answer (a streamed chat: `accept: text/event-stream`) through
 * undici's `fetch` on the same pool, which gives it a body stream.
 */

type VapiApiSettings = {
  apiKey: string
  /** A Vapi-compatible API base (VAPI_API_URL); Vapi's own when undefined. */
  apiUrl?: string | undefined
}

type VapiApiOptions = {
  /** The SDK's limit on a request (each request may set its own); 15 s by default. */
  timeoutInSeconds?: number
  /** A fetch implementation instead of the pool (tests may pass one). */
  fetch?: typeof fetch
}

/**
 * Connections to Vapi's API per process, kept open between the minute's bursts of dials (a new
 * connection is a TLS handshake against the real API). Measured: 500 dials at once reach the
 * server within ~60 ms over warm connections, ~250 ms when capped at 64.
 */
const VAPI_CONNECTIONS = 512
/** How long an idle connection is kept (calls come in bursts on the minute), as long as Vapi allows. */
const KEEP_ALIVE_MS = 60_000
/** The SDK's limit on a request unless the request sets its own. */
const DEFAULT_TIMEOUT_SECONDS = 15
/** `POST /call`'s limit. */
const CREATE_CALL_TIMEOUT_SECONDS = 15

export type VapiApi = {
  /** The SDK client, once the SDK is loaded (a failed load rejects). */
  sdk(): Promise<VapiClient>
  /** The fetch the SDK uses (the pool), for a request outside the API (a call's control URL). */
  readonly fetch: typeof fetch
  readonly apiKey: string
  readonly apiUrl: string | undefined
  /**
   * `POST /call`, once: the one way a call is created at Vapi (a phone call, a voice call in the
   * app). Throws what the SDK throws; each caller sorts the failure into its own outcome.
   */
  createCall(body: Vapi.CreateCallDto): Promise<Vapi.Call>
  /** Closes the connections kept open. */
  close(): Promise<void>
}

export function createVapiApi(settings: VapiApiSettings, options: VapiApiOptions = {}): VapiApi {
  const agent = options.fetch ? undefined : new Agent({ connections: VAPI_CONNECTIONS, keepAliveTimeout: KEEP_ALIVE_MS, keepAliveMaxTimeout: KEEP_ALIVE_MS })
  const fetchFn = options.fetch ?? pooledFetch(agent!)
  const sdk = loadVapiSdk().then(
    ({ VapiClient }) =>
      new VapiClient({
        token: settings.apiKey,
        ...(settings.apiUrl ? { baseUrl: settings.apiUrl } : {}),
        maxRetries: 0,
        timeoutInSeconds: options.timeoutInSeconds ?? DEFAULT_TIMEOUT_SECONDS,
        fetch: fetchFn,
      }),
  )
  // A failed load is for the requests to report, not an unhandled rejection.
  sdk.catch(() => {})
  return {
    sdk: () => sdk,
    fetch: fetchFn,
    apiKey: settings.apiKey,
    apiUrl: settings.apiUrl,
    async createCall(body) {
      return (await (await sdk).calls.create(body, { maxRetries: 0, timeoutInSeconds: CREATE_CALL_TIMEOUT_SECONDS })) as Vapi.Call
    },
    async close() {
      await agent?.close()
    },
  }
}

/** lightFetch on the pool, except for an event stream: undici's fetch on the same pool. */
function pooledFetch(agent: Agent): typeof fetch {
  const light = lightFetch(agent)
  return ((input: Parameters<typeof fetch>[0], init: RequestInit = {}) => {
    if (!acceptsEventStream(init.headers)) return light(input, init)
    return undiciFetch(input as Parameters<typeof undiciFetch>[0], { ...(init as Parameters<typeof undiciFetch>[1]), dispatcher: agent }) as unknown as Promise<Response>
  }) as typeof fetch
}

function acceptsEventStream(headers: RequestInit['headers']): boolean {
  if (!headers) return false
  const value = headers instanceof Headers ? headers.get('accept') : Array.isArray(headers) ? headers.find(([name]) => name?.toLowerCase() === 'accept')?.[1] : Object.entries(headers).find(([name]) => name.toLowerCase() === 'accept')?.[1]
  return typeof value === 'string' && value.includes('text/event-stream')
}

/** Vapi's error body, `{"message": string | string[], "error": "...", "statusCode": n}`, as one line. */
export function messageOf(body: unknown): string {
  if (body && typeof body === 'object') {
    const message = (body as { message?: unknown }).message
    if (Array.isArray(message)) return message.map(String).join('; ')
    if (typeof message === 'string') return message
  }
  return typeof body === 'string' && body ? body.slice(0, 500) : 'no details'
}
