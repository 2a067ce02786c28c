/**
 * The Vapi fake's webhook sender (server URL messages, brief §3–§4): posts `{ message }` bodies to a
 * call's server URL with the configured authentication, and the knobs tests need to break delivery
 * on purpose: duplicates, out-of-order delivery, a delay, dropped messages (a seeded PRNG, so a
 * run is repeatable), a per-delivery timeout that counts a slow reply as failed, and retries
 * following the call's `server.backoffPlan`. Every attempt is recorded with its outcome.
 */
import { createHmac } from 'node:crypto'
import { VAPI_SECRET_HEADER, VAPI_SIGNATURE_HEADER, VAPI_TIMESTAMP_HEADER } from '#common/webhooks'
import { sleep } from './vapi-shared'

/** How deliveries authenticate (brief §4). */
export type WebhookAuth =
  | { mode: 'none' }
  /** The legacy inline secret: `X-Vapi-Secret: <secret>` (or another header name). */
  | { mode: 'secret'; secret: string; headerName?: string }
  /** A bearer credential: `Authorization: Bearer <token>` by default. */
  | { mode: 'bearer'; token: string; headerName?: string; bearerPrefixEnabled?: boolean }
  /**
   * An HMAC credential: `x-signature` = HMAC(secretKey, `${timestamp}.${rawBody}`) in hex and
   * `x-timestamp` = the send time. The timestamp's unit is unconfirmed (brief §4): seconds by default.
   */
  | {
      mode: 'hmac'
      secretKey: string
      algorithm?: 'sha256' | 'sha512' | 'sha1'
      signatureHeader?: string
      timestampHeader?: string
      includeTimestamp?: boolean
      timestampUnit?: 'seconds' | 'ms'
      signatureEncoding?: 'hex' | 'base64'
      signaturePrefix?: string
    }

export type DeliveryOrder = 'timeline' | 'shuffle' | 'reverse'

export type EmitterSettings = {
  /** Where messages go when the call names no server URL (the org's server URL). */
  url: string | undefined
  auth: WebhookAuth
  /** Extra copies of every message (0: each is sent once). */
  duplicates: number
  /** 'shuffle' (seeded) or 'reverse' (the report before the statuses) a call's whole stream. */
  order: DeliveryOrder
  /** Wait before each delivery (real time; 0 in tests). */
  delayMs: number
  /** The fraction of messages lost (0–1), drawn from the seeded PRNG. */
  dropRate: number
  /** Message types never delivered (e.g. ['end-of-call-report']); status-update:ended style entries match one status. */
  dropTypes: string[]
  /** Overrides the call's `server.timeoutSeconds` (Vapi's default 20 s): a slower reply is a failure. */
  timeoutMs: number | undefined
  seed: number
  /** Multiplies backoffPlan delays (0 retries at once, 1 is Vapi's real pacing). */
  retryDelayScale: number
}

export const defaultEmitterSettings = (): EmitterSettings => ({
  url: undefined,
  auth: { mode: 'none' },
  duplicates: 0,
  order: 'timeline',
  delayMs: 0,
  dropRate: 0,
  dropTypes: [],
  timeoutMs: undefined,
  seed: 1,
  retryDelayScale: 0,
})

export type DeliveryOutcome = 'delivered' | 'failed' | 'timeout' | 'error' | 'dropped'

export type Delivery = {
  /** Position among all attempts since the last reset. */
  seq: number
  callId: string
  type: string
  /** A status-update's status. */
  status?: string
  url: string
  /** 0 for the original message, 1.. for the copies the `duplicates` knob adds. */
  copy: number
  /** 1 for the first try, 2.. for backoffPlan retries. */
  attempt: number
  outcome: DeliveryOutcome
  /** The receiver's status (delivered, failed). */
  httpStatus?: number
  latencyMs?: number
  error?: string
  headers: Record<string, string>
  /** The exact bytes sent (verify signatures against this). */
  body: string
  /** The fake clock's time of the attempt. */
  sentAt: string
}

/** Where one call's messages go. */
export type Target = {
  url: string
  auth: WebhookAuth
  /** The call's static `server.headers`. */
  headers: Record<string, string>
  timeoutMs: number
  backoffPlan: { type?: unknown; maxRetries?: number; baseDelaySeconds?: number; excludedStatusCodes?: unknown[] } | undefined
}

export type Outgoing = { callId: string; message: { type: string; status?: unknown } & Record<string, unknown> }

/** A small seeded PRNG (mulberry32): the same seed gives the same drops and shuffles. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** The headers that authenticate one delivery of `body` at `nowMs`. */
export function authHeaders(auth: WebhookAuth, body: string, nowMs: number): Record<string, string> {
  switch (auth.mode) {
    case 'none':
      return {}
    case 'secret':
      return { [auth.headerName ?? VAPI_SECRET_HEADER]: auth.secret }
    case 'bearer':
      return { [auth.headerName ?? 'Authorization']: auth.bearerPrefixEnabled === false ? auth.token : `Bearer ${auth.token}` }
    case 'hmac': {
      const timestamp = String(auth.timestampUnit === 'ms' ? nowMs : Math.floor(nowMs / 1000))
      const includeTimestamp = auth.includeTimestamp !== false
      const payload = includeTimestamp ? `${timestamp}.${body}` : body
      const signature = createHmac(auth.algorithm ?? 'sha256', auth.secretKey)
        .update(payload)
        .digest(auth.signatureEncoding ?? 'hex')
      const headers: Record<string, string> = { [auth.signatureHeader ?? VAPI_SIGNATURE_HEADER]: `${auth.signaturePrefix ?? ''}${signature}` }
      if (includeTimestamp) headers[auth.timestampHeader ?? VAPI_TIMESTAMP_HEADER] = timestamp
      return headers
    }
  }
}

const matchesDropType = (types: string[], message: Outgoing['message']) =>
  types.includes(message.type) || (message.status !== undefined && types.includes(`${message.type}:${String(message.status)}`))

/** Sends messages and records every attempt. */
export class WebhookEmitter {
  settings: EmitterSettings
  readonly deliveries: Delivery[] = []
  readonly #now: () => Date
  #seq = 0
  /** Bumped by clear(): an attempt still in flight from before is not recorded. */
  #epoch = 0

  constructor(now: () => Date, settings: Partial<EmitterSettings> = {}) {
    this.#now = now
    this.settings = { ...defaultEmitterSettings(), ...settings }
  }

  /** Forgets the recorded deliveries. */
  clear(): void {
    this.deliveries.length = 0
    this.#seq = 0
    this.#epoch += 1
  }

  /**
   * Sends a batch of one call's messages, one after another, each awaited, after applying the
   * drop, duplicate and order knobs (with the call's own PRNG, so calls do not disturb each other).
   */
  async send(target: Target | undefined, batch: Outgoing[], random: () => number, isLive: () => boolean): Promise<void> {
    const settings = this.settings
    const epoch = this.#epoch
    const queue: Array<{ item: Outgoing; copy: number }> = []
    for (const item of batch) {
      const dropped = matchesDropType(settings.dropTypes, item.message) || (settings.dropRate > 0 && random() < settings.dropRate)
      if (dropped) {
        this.#record(epoch, { item, copy: 0, attempt: 1, url: target?.url ?? '', outcome: 'dropped', headers: {}, body: JSON.stringify({ message: item.message }) })
        continue
      }
      for (let copy = 0; copy <= settings.duplicates; copy += 1) queue.push({ item, copy })
    }
    if (settings.order === 'reverse') queue.reverse()
    if (settings.order === 'shuffle') {
      for (let i = queue.length - 1; i > 0; i -= 1) {
        const j = Math.floor(random() * (i + 1))
        ;[queue[i], queue[j]] = [queue[j]!, queue[i]!]
      }
    }
    if (!target) return
    for (const entry of queue) {
      if (!isLive()) return
      if (settings.delayMs > 0) await sleep(settings.delayMs)
      await this.#deliver(epoch, target, entry.item, entry.copy, isLive)
    }
  }

  async #deliver(epoch: number, target: Target, item: Outgoing, copy: number, isLive: () => boolean) {
    const body = JSON.stringify({ message: item.message })
    const plan = target.backoffPlan
    const maxRetries = Math.max(0, Math.min(10, Number(plan?.maxRetries ?? 0)))
    const excluded = new Set((plan?.excludedStatusCodes ?? []).map(Number))
    for (let attempt = 1; attempt <= maxRetries + 1; attempt += 1) {
      if (attempt > 1) {
        const base = Number(plan?.baseDelaySeconds ?? 0) * 1000
        const factor = plan?.type === 'exponential' ? 2 ** (attempt - 2) : 1
        const wait = base * factor * this.settings.retryDelayScale
        if (wait > 0) await sleep(wait)
        if (!isLive()) return
      }
      const headers = { 'content-type': 'application/json', ...target.headers, ...authHeaders(target.auth, body, this.#now().getTime()) }
      const started = performance.now()
      let outcome: DeliveryOutcome
      let httpStatus: number | undefined
      let error: string | undefined
      try {
        const response = await fetch(target.url, { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(target.timeoutMs) })
        await response.arrayBuffer()
        httpStatus = response.status
        outcome = response.ok ? 'delivered' : 'failed'
      } catch (caught) {
        const name = (caught as { name?: string }).name
        outcome = name === 'TimeoutError' || name === 'AbortError' ? 'timeout' : 'error'
        error = (caught as Error).message
      }
      this.#record(epoch, { item, copy, attempt, url: target.url, outcome, httpStatus, error, headers, body, latencyMs: performance.now() - started })
      if (outcome === 'delivered') return
      if (httpStatus !== undefined && excluded.has(httpStatus)) return
    }
  }

  #record(
    epoch: number,
    entry: {
    item: Outgoing
    copy: number
    attempt: number
    url: string
    outcome: DeliveryOutcome
    headers: Record<string, string>
    body: string
    httpStatus?: number | undefined
    error?: string | undefined
    latencyMs?: number
    },
  ) {
    if (epoch !== this.#epoch) return
    const { item } = entry
    const delivery: Delivery = {
      seq: this.#seq++,
      callId: item.callId,
      type: item.message.type,
      url: entry.url,
      copy: entry.copy,
      attempt: entry.attempt,
      outcome: entry.outcome,
      headers: entry.headers,
      body: entry.body,
      sentAt: this.#now().toISOString(),
    }
    if (item.message.status !== undefined) delivery.status = String(item.message.status)
    if (entry.httpStatus !== undefined) delivery.httpStatus = entry.httpStatus
    if (entry.error !== undefined) delivery.error = entry.error
    if (entry.latencyMs !== undefined) delivery.latencyMs = Math.round(entry.latencyMs * 10) / 10
    this.deliveries.push(delivery)
  }
}
