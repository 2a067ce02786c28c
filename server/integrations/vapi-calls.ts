import type { Vapi, VapiError } from '@vapi-ai/server-sdk'
import { messageOf, type VapiApi } from './vapi-client'
import { isVapiError, isVapiTimeoutError, loadVapiSdk } from './vapi-sdk'

/**
 * The app's client of Vapi's phone calls, on the one Vapi client (vapi-client.ts: the key,
 * VAPI_API_URL, **no retries** — a repeated `POST /call` places a second call — and the pooled
 * connections), with the outcome of a dial sorted into what the dialler can act on: placed,
 * refused (nothing was created), or unknown (the request may have created a call: reconcile by
 * listing before dialling again).
 */

type VapiCallSettings = {
  assistantId: string
  /** The numbers calls are placed from; without one the client only reads, ends and deletes calls (`canDial` false). */
  phoneNumberIds?: readonly string[] | undefined
}

export type DialRequest = {
  /** Our call id: sent as the call's name (`mc <id>`) and in the metadata, to find the call again. */
  callId: string
  /** The caller number (one of the settings' `phoneNumberIds`). */
  phoneNumberId: string
  /** E.164. */
  customerNumber: string
  customerName: string
  variableValues: Record<string, string>
  maxDurationSeconds: number
  metadata: Record<string, string | number>
  /**
   * The webhook for this call: our URL and the credential Vapi authenticates with (found by its
   * name: ADR 063); undefined, the saved assistant's own. Never a secret: Vapi keeps a call's
   * settings where anyone who reads calls sees them.
   */
  server?: { url: string; credentialId: string } | undefined
  /** The server messages Vapi posts to the webhook for this call. */
  serverMessages: readonly Vapi.AssistantOverridesServerMessagesItem[]
}

/** What a `POST /call` answer says of the account's lines (`subscriptionLimits`; not in the SDK's types). */
type SubscriptionLimits = { concurrencyLimit: number | null; remainingConcurrentCalls: number | null; concurrencyBlocked: boolean }

type DialOutcome =
  | { kind: 'placed'; vapiCallId: string; status: string; limits: SubscriptionLimits | null }
  /**
   * Vapi has no line for the call: the answer said `concurrencyBlocked` (the call it created ends
   * at once with a start error; its id is kept to tell its messages apart), or a refusal that names
   * the concurrency limit. Not an attempt: the call waits for a line again.
   */
  | { kind: 'line_refused'; vapiCallId: string | null; message: string; limits: SubscriptionLimits | null }
  /** Vapi answered and created nothing. `retryable`: waiting can help (rate or concurrency limit, credits being topped up). */
  | { kind: 'refused'; status: number; message: string; retryable: boolean; retryAfterMs: number | null }
  /** No answer, a timeout or a 5xx after the request left: a call may exist. */
  | { kind: 'unknown'; status: number | undefined; message: string }

/** What the record needs of a call fetched from Vapi (GET /call/{id}). */
export type VapiCallRecord = {
  id: string
  name: string | undefined
  status: string | undefined
  endedReason: string | undefined
  startedAt: string | undefined
  endedAt: string | undefined
  createdAt: string | undefined
  metadata: Record<string, unknown> | undefined
  artifact: unknown
  analysis: unknown
}

/** The call's name in Vapi: at most 40 characters, and unique to our call id. */
export const vapiCallName = (callId: string) => `mc ${callId}`

/** Calls Vapi serves in answer to a list query. */
const LIST_LIMIT = 100

function retryAfterMs(error: VapiError): number | null {
  const header = error.rawResponse?.headers?.get?.('retry-after')
  if (!header) return null
  const seconds = Number(header)
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000)
  const date = Date.parse(header)
  return Number.isNaN(date) ? null : Math.max(0, date - Date.now())
}

/** Refusals where waiting helps: rate and concurrency limits, and an account being topped up (402). */
const RETRYABLE_REFUSALS = new Set([402, 429])

const numberOrNull = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : null)

/** The answer's `subscriptionLimits`, when it has them. */
function subscriptionLimitsOf(answer: unknown): SubscriptionLimits | null {
  const raw = answer && typeof answer === 'object' ? (answer as { subscriptionLimits?: unknown }).subscriptionLimits : undefined
  if (!raw || typeof raw !== 'object') return null
  const limits = raw as Record<string, unknown>
  return { concurrencyLimit: numberOrNull(limits.concurrencyLimit), remainingConcurrentCalls: numberOrNull(limits.remainingConcurrentCalls), concurrencyBlocked: limits.concurrencyBlocked === true }
}

/** A refusal whose words name the concurrency limit (Vapi's refusal status for it is not documented). */
const CONCURRENCY_WORDS = /concurrency/i

function toCallRecord(call: Vapi.Call): VapiCallRecord {
  const raw = call as Vapi.Call & { metadata?: Record<string, unknown> }
  return {
    id: call.id,
    name: call.name,
    status: call.status,
    endedReason: call.endedReason,
    startedAt: call.startedAt,
    endedAt: call.endedAt,
    createdAt: call.createdAt,
    metadata: (call.assistantOverrides?.metadata as Record<string, unknown> | undefined) ?? raw.metadata,
    artifact: call.artifact,
    analysis: call.analysis,
  }
}

export class VapiCallsClient {
  readonly settings: VapiCallSettings
  readonly #api: VapiApi

  constructor(api: VapiApi, settings: VapiCallSettings) {
    this.#api = api
    this.settings = settings
  }

  /** Whether phone calls can be placed (a phone number is configured). */
  get canDial(): boolean {
    return (this.settings.phoneNumberIds?.length ?? 0) > 0
  }

  /** `POST /call`, once. */
  async dial(request: DialRequest): Promise<DialOutcome> {
    const { phoneNumberId } = request
    // The calls service dials only through a client that can (`canDial`), from one of its numbers.
    if (!this.settings.phoneNumberIds?.includes(phoneNumberId)) throw new Error('VapiCallsClient.dial needs one of its phone number ids')
    const body: Vapi.CreateCallDto = {
      assistantId: this.settings.assistantId,
      phoneNumberId,
      name: vapiCallName(request.callId),
      customer: { number: request.customerNumber, name: request.customerName },
      assistantOverrides: {
        variableValues: request.variableValues,
        maxDurationSeconds: request.maxDurationSeconds,
        metadata: request.metadata,
        ...(request.server ? { server: { url: request.server.url, credentialId: request.server.credentialId, timeoutSeconds: 20 } } : {}),
        serverMessages: [...request.serverMessages],
      },
    }
    try {
      const call = await this.#api.createCall(body)
      if (!call || typeof call.id !== 'string') return { kind: 'unknown', status: 201, message: 'the answer named no call id' }
      const limits = subscriptionLimitsOf(call)
      if (limits?.concurrencyBlocked) return { kind: 'line_refused', vapiCallId: call.id, message: 'the account has no free line (concurrencyBlocked)', limits }
      return { kind: 'placed', vapiCallId: call.id, status: call.status ?? 'queued', limits }
    } catch (error) {
      return this.#outcomeOf(error)
    }
  }

  /**
   * The id of the webhook credential named `name` (provider webhook; the oldest, as setup uses it),
   * or null when the account has none. `/credential` is not in the SDK: read through its passthrough,
   * at the list's default page size (ADR 036). Throws when Vapi cannot answer.
   */
  async findWebhookCredential(name: string): Promise<string | null> {
    const response = await (await this.#api.sdk()).fetch('/credential', { method: 'GET' }, { maxRetries: 2, timeoutInSeconds: 15 })
    const raw = await response.text()
    if (!response.ok) throw new (await loadVapiSdk()).VapiError({ message: `GET /credential: ${response.status}`, statusCode: response.status, body: raw.slice(0, 500) })
    const data: unknown = JSON.parse(raw)
    const items = Array.isArray(data) ? data : data && typeof data === 'object' && Array.isArray((data as { results?: unknown }).results) ? (data as { results: unknown[] }).results : []
    const named = (items as Array<{ id?: unknown; name?: unknown; provider?: unknown; createdAt?: unknown }>)
      .filter((item) => item.name === name && typeof item.id === 'string' && (item.provider ?? 'webhook') === 'webhook')
      .sort((a, b) => String(a.createdAt ?? '').localeCompare(String(b.createdAt ?? '')))
    return (named[0]?.id as string | undefined) ?? null
  }

  #outcomeOf(error: unknown): DialOutcome {
    if (isVapiError(error) && error.statusCode !== undefined) {
      const status = error.statusCode
      const message = messageOf(error.body)
      if (status === 408 || status >= 500) return { kind: 'unknown', status, message }
      if (CONCURRENCY_WORDS.test(message)) return { kind: 'line_refused', vapiCallId: null, message, limits: subscriptionLimitsOf(error.body) }
      return { kind: 'refused', status, message, retryable: RETRYABLE_REFUSALS.has(status), retryAfterMs: retryAfterMs(error) }
    }
    const message = isVapiTimeoutError(error) ? 'timeout' : error instanceof Error ? error.message : String(error)
    return { kind: 'unknown', status: undefined, message }
  }

  /**
   * Finds the call we placed for `callId`, created between `from` and `to` (Vapi's list has no
   * filter by name or customer: it lists our assistant's calls in that window, page by page, and
   * matches the name or the metadata). Null when Vapi has no such call.
   */
  async findPlaced(callId: string, from: Date, to: Date): Promise<VapiCallRecord | null> {
    const name = vapiCallName(callId)
    let lower = from
    let upper = to
    const seen = new Set<string>()
    for (let page = 0; page < 50; page++) {
      const calls = await (await this.#api.sdk()).calls.list(
        { assistantId: this.settings.assistantId, createdAtGe: lower.toISOString(), createdAtLe: upper.toISOString(), limit: LIST_LIMIT },
        { maxRetries: 2, timeoutInSeconds: 15 },
      )
      const found = calls.find((call) => call.name === name || (call.assistantOverrides?.metadata as { callId?: unknown } | undefined)?.callId === callId)
      if (found) return toCallRecord(found)
      const fresh = calls.filter((call) => !seen.has(call.id))
      if (calls.length < LIST_LIMIT || fresh.length === 0) return null
      for (const call of calls) seen.add(call.id)
      // A full page: narrow the window past what it held (Vapi does not document its order), keeping
      // the boundary instant (calls created in the same millisecond), the ids seen are skipped.
      const times = calls.map((call) => Date.parse(call.createdAt))
      if (times[0]! >= times[times.length - 1]!) upper = new Date(Math.min(...times))
      else lower = new Date(Math.max(...times))
    }
    return null
  }

  /**
   * Ends a live call through Vapi's live call control: the call's `monitor.controlUrl` (read with
   * `GET /call/{id}`, never kept or shown) is sent `{"type":"end-call"}`. 'not-live' when Vapi
   * knows no such call, it has ended, or it is not dialled yet (nothing to end); throws when Vapi
   * cannot be asked or names no control URL.
   */
  async endLive(vapiCallId: string): Promise<'ending' | 'not-live'> {
    let call: Vapi.Call
    try {
      call = await (await this.#api.sdk()).calls.get({ id: vapiCallId }, { maxRetries: 1, timeoutInSeconds: 10 })
    } catch (error) {
      if (isVapiError(error) && error.statusCode === 404) return 'not-live'
      throw error
    }
    if (call.status === 'ended' || call.status === 'scheduled') return 'not-live'
    const controlUrl = call.monitor?.controlUrl
    if (!controlUrl) throw new Error('Vapi named no control URL for the call (is monitorPlan.controlEnabled off?)')
    // The URL grants control of the call: no error or log line carries it.
    let response: Response
    try {
      response = await this.#api.fetch(controlUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'end-call' }),
        signal: AbortSignal.timeout(10_000),
      })
    } catch (error) {
      // eslint-disable-next-line preserve-caught-error -- the cause may quote the URL
      throw new Error(`Vapi's call control could not be reached (${error instanceof Error && error.name === 'TimeoutError' ? 'timeout' : 'network error'})`)
    }
    await response.body?.cancel().catch(() => {})
    if (response.status === 404) return 'not-live'
    if (!response.ok) throw new Error(`Vapi's call control answered ${response.status}`)
    return 'ending'
  }

  /**
   * Deletes a call Vapi has not connected yet (scheduled, queued or ringing: `DELETE /call/{id}`
   * ends it, 'manually-canceled' / 'call-deleted'). A call in progress is left alone (the person
   * answered; they can hang up), an ended or unknown one needs nothing.
   */
  async cancel(vapiCallId: string): Promise<'cancelled' | 'in-progress' | 'ended' | 'not-found'> {
    let call: Vapi.Call
    try {
      call = await (await this.#api.sdk()).calls.get({ id: vapiCallId }, { maxRetries: 1, timeoutInSeconds: 10 })
    } catch (error) {
      if (isVapiError(error) && error.statusCode === 404) return 'not-found'
      throw error
    }
    if (call.status === 'ended') return 'ended'
    if (call.status === 'in-progress' || call.status === 'forwarding') return 'in-progress'
    try {
      await (await this.#api.sdk()).calls.delete({ id: vapiCallId }, { maxRetries: 1, timeoutInSeconds: 10 })
    } catch (error) {
      if (isVapiError(error) && error.statusCode === 404) return 'not-found'
      throw error
    }
    return 'cancelled'
  }

  /**
   * Deletes a call's data at Vapi (`DELETE /call/{id}`: its record, transcript, recording and
   * analysis), ended calls too: what an account's deletion asks of Vapi. A call in progress is left
   * to end first ('live': ask again later), as `cancel` leaves it; 'not-found' when Vapi no longer
   * has it (deleted already). Any other failure throws. No retry here: the caller's job retries.
   */
  async deleteCall(vapiCallId: string): Promise<'deleted' | 'live' | 'not-found'> {
    try {
      const call = await (await this.#api.sdk()).calls.get({ id: vapiCallId }, { maxRetries: 0, timeoutInSeconds: 15 })
      if (call.status === 'in-progress' || call.status === 'forwarding') return 'live'
      await (await this.#api.sdk()).calls.delete({ id: vapiCallId }, { maxRetries: 0, timeoutInSeconds: 15 })
      return 'deleted'
    } catch (error) {
      if (isVapiError(error) && error.statusCode === 404) return 'not-found'
      throw error
    }
  }

  /** `GET /call/{id}`, or null when Vapi does not know the call. */
  async get(vapiCallId: string): Promise<VapiCallRecord | null> {
    try {
      return toCallRecord(await (await this.#api.sdk()).calls.get({ id: vapiCallId }, { maxRetries: 2, timeoutInSeconds: 15 }))
    } catch (error) {
      if (isVapiError(error) && error.statusCode === 404) return null
      throw error
    }
  }
}
