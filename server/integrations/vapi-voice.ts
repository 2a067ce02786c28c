import { isIP } from 'node:net'
import type { Vapi } from '@vapi-ai/server-sdk'
import WebSocket from 'ws'
import { vapiCallName } from './vapi-calls'
import { messageOf, type VapiApi } from './vapi-client'
import { isVapiError, isVapiTimeoutError } from './vapi-sdk'

/**
 * The app's client of Vapi's WebSocket transport (brief §2): `POST /call` with
 * `transport.provider = 'vapi.websocket'` through the one Vapi client's `createCall` (vapi-client.ts:
 * no retries, a repeated POST starts a second call; 15 s limit), then the call's `websocketCallUrl` opened with the private
 * key as a Bearer header. The URL grants access to a live call: it is returned to the gateway
 * only, never logged, stored or sent to the browser (only the call id is). The key goes only to
 * Vapi's host: a socket address anywhere else is refused (`vapiSocketAllowed`).
 */

/** Vapi's API when VAPI_API_URL is not set: the SDK's default environment, written out so this module does not load the SDK (a unit test holds them equal). */
export const VAPI_DEFAULT_API_URL = 'https://api.vapi.ai'

const LOOPBACK_HOSTS = new Set(['localhost', '[::1]'])
const isLoopback = (hostname: string) => LOOPBACK_HOSTS.has(hostname) || (isIP(hostname) === 4 && hostname.startsWith('127.'))

/**
 * Whether a call's socket address (`websocketCallUrl`, from Vapi's answer) may be opened with the
 * private key: `wss://` on the host (and port) of Vapi's API, api.vapi.ai, or of VAPI_API_URL when
 * it is set (a test's fake, a proxy); plain `ws://` only when that configured host is a loopback
 * one (a local fake). Never credentials in the URL. So an answer cannot point the gateway, and the
 * key, at another host: only the configuration can, and production leaves VAPI_API_URL unset.
 */
export function vapiSocketAllowed(websocketCallUrl: string, apiUrl: string | undefined): boolean {
  let socket: URL
  let api: URL
  try {
    socket = new URL(websocketCallUrl)
    api = new URL(apiUrl ?? VAPI_DEFAULT_API_URL)
  } catch {
    return false
  }
  if (socket.username !== '' || socket.password !== '') return false
  if (socket.hostname !== api.hostname || socket.port !== api.port) return false
  if (socket.protocol === 'wss:') return true
  return socket.protocol === 'ws:' && apiUrl !== undefined && api.protocol === 'http:' && isLoopback(api.hostname)
}

type VapiVoiceSettings = {
  assistantId: string
}

/** PCM16 little-endian, mono, 16 kHz, raw: what the browser captures and plays (common/voice.ts). */
export const VOICE_AUDIO_FORMAT = { format: 'pcm_s16le', container: 'raw', sampleRate: 16_000 } as const

/** The socket messages the gateway relays (brief §9); the assistant need not send Vapi's others. */
const VOICE_CLIENT_MESSAGES = ['status-update', 'speech-update', 'transcript', 'user-interrupted'] as const

/** The largest text or binary frame accepted from Vapi (a message holding the whole history is the biggest). */
export const UPSTREAM_MAX_PAYLOAD = 2 * 1024 * 1024

type VoiceCallRequest = {
  /** Our call id (coaching_calls.id): the call's name and metadata, so webhooks find the row. */
  callId: string
  variableValues: Record<string, string>
  firstMessage: string
  maxDurationSeconds: number
  metadata: Record<string, string | number>
  /** The webhook's address and credential (secret mode: ADR 063); undefined: the saved assistant's server. */
  server: { url: string; credentialId: string } | undefined
  serverMessages: readonly string[]
}

type VoiceCallOutcome =
  | { kind: 'created'; vapiCallId: string; websocketCallUrl: string }
  /** Vapi refused, failed or could not be reached; `status` when it answered; `reason`, the call's ended reason when it is not Vapi's refusal. */
  | { kind: 'failed'; status: number | undefined; message: string; reason?: string }

export class VapiVoiceClient {
  readonly settings: VapiVoiceSettings
  readonly #api: VapiApi

  constructor(api: VapiApi, settings: VapiVoiceSettings) {
    this.#api = api
    this.settings = settings
  }

  /** `POST /call` with the WebSocket transport, once. */
  async createCall(request: VoiceCallRequest): Promise<VoiceCallOutcome> {
    const body = {
      assistantId: this.settings.assistantId,
      name: vapiCallName(request.callId),
      // The SDK types `format` as an object (a generator slip, brief §1.6): the API takes the string.
      transport: { provider: 'vapi.websocket', audioFormat: VOICE_AUDIO_FORMAT as unknown as Vapi.AudioFormat },
      assistantOverrides: {
        variableValues: request.variableValues,
        firstMessage: request.firstMessage,
        maxDurationSeconds: request.maxDurationSeconds,
        metadata: request.metadata,
        clientMessages: [...VOICE_CLIENT_MESSAGES],
        serverMessages: [...request.serverMessages] as Vapi.AssistantOverridesServerMessagesItem[],
        ...(request.server
          ? { server: { url: request.server.url, credentialId: request.server.credentialId, timeoutSeconds: 20 } }
          : {}),
      },
    } satisfies Vapi.CreateCallDto
    try {
      const call = await this.#api.createCall(body)
      // The SDK's transport type has no websocketCallUrl, though the API returns one (brief §1.6).
      const url = (call?.transport as { websocketCallUrl?: unknown } | undefined)?.websocketCallUrl
      if (typeof call?.id !== 'string' || typeof url !== 'string' || !/^wss?:\/\//.test(url)) {
        return { kind: 'failed', status: 201, message: 'the answer named no call id or socket address' }
      }
      // The call exists at Vapi, but its socket is not on Vapi's host: never opened (Vapi ends the
      // call when nobody joins it).
      if (!vapiSocketAllowed(url, this.#api.apiUrl)) {
        return { kind: 'failed', status: 201, message: "the answer named a socket address off Vapi's host", reason: 'vapi-socket-elsewhere' }
      }
      return { kind: 'created', vapiCallId: call.id, websocketCallUrl: url }
    } catch (error) {
      if (isVapiError(error) && error.statusCode !== undefined) return { kind: 'failed', status: error.statusCode, message: messageOf(error.body) }
      const timedOut = isVapiTimeoutError(error) || (error instanceof Error && /timeout/i.test(error.message))
      return { kind: 'failed', status: undefined, message: timedOut ? 'timeout' : 'no answer' }
    }
  }

  /** Opens the call's socket with the private key (the caller listens for open, message, close, error); only on Vapi's host. */
  connect(websocketCallUrl: string): WebSocket {
    if (!vapiSocketAllowed(websocketCallUrl, this.#api.apiUrl)) throw new Error("a call's socket is opened only on Vapi's host")
    return new WebSocket(websocketCallUrl, {
      headers: { authorization: `Bearer ${this.#api.apiKey}` },
      maxPayload: UPSTREAM_MAX_PAYLOAD,
      handshakeTimeout: 10_000,
      perMessageDeflate: false,
    })
  }
}
