/**
 * Texts through Twilio's official `twilio` package (docs/decisions/045), or, with no Twilio
 * configured, each text written to the log like mail. The package (~21 MB of generated clients) is
 * loaded the first time it is needed, so the embedded default never loads it.
 *
 * TWILIO_API_URL points the client at a Twilio-compatible server (the tests' fake): a RequestClient
 * subclass rewrites every request's URL after the SDK built it (no env variable or option of the
 * SDK selects a host; TWILIO_REGION/TWILIO_EDGE would rewrite a baseUrl, not this).
 */
import type { Logger } from 'pino'
import type TwilioSDK from 'twilio'
import type RequestClient from 'twilio/lib/base/RequestClient.js'

type TwilioModule = typeof TwilioSDK

let loading: Promise<TwilioModule> | undefined
/** The package, loaded once (CommonJS: only its default export is safe under ESM). */
function loadTwilio(): Promise<TwilioModule> {
  loading ??= import('twilio').then((module) => (module as unknown as { default: TwilioModule }).default)
  return loading
}

type TwilioSettings = { accountSid: string; authToken: string; apiUrl: string | undefined }

/** What one send came to. */
export type TextSendResult =
  | { kind: 'sent'; sid: string; segments: number | null; status: string }
  | { kind: 'logged' }
  /** Twilio refused it for good (4xx with a code: 21610 opted out, 21211 invalid number...). */
  | { kind: 'refused'; status: number; code: number | null; message: string }
  /** Nothing was created and trying later may work (429, connection refused). */
  | { kind: 'retry'; message: string }
  /** Twilio may or may not have created it (timeout, 5xx, dropped connection): never sent again blindly. */
  | { kind: 'unknown'; message: string }

export type TextSender = {
  /** Whether texts really leave (Twilio configured), or are only logged. */
  readonly live: boolean
  /** `statusCallback`: where Twilio posts what became of the text (sent, delivered, undelivered...). */
  send(message: { to: string; from: string; body: string; statusCallback?: string | undefined }): Promise<TextSendResult>
  /** X-Twilio-Signature check of an inbound webhook (false when Twilio is not configured). */
  validate(signature: string, url: string, params: Record<string, string | string[]>): Promise<boolean>
  /**
   * The texts received on `to` since `since`, from Twilio's message log (none when Twilio is not
   * configured), oldest first. Throws when Twilio cannot be asked (the caller tries again later).
   */
  listInbound(to: string, since: Date): Promise<InboundLogEntry[]>
  /**
   * Erases a message's body at Twilio (the Message update with an empty `Body`), one we sent or
   * one we received; Twilio keeps the rest of its record. 'not-found' when Twilio has no such
   * message; 'kept' with Twilio's reason otherwise (a message still on its way cannot be redacted
   * yet; a failure): ask again later. Nothing to do without Twilio ('kept' too: `live` is false).
   */
  redact(messageSid: string): Promise<RedactResult>
}

/** An inbound text as Twilio's message log has it. */
export type InboundLogEntry = { sid: string; from: string; to: string; body: string; sentAt: Date | null }

/** Texts a sweep reads from the log at most (the newest first: a sweep that reaches it warns). */
export const INBOUND_LIST_LIMIT = 5000

export type RedactResult = { kind: 'redacted' } | { kind: 'not-found' } | { kind: 'kept'; reason: string }

/** Node's network errors for a request that never reached Twilio: safe to try again. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNRESET_BEFORE_WRITE'])

function classify(error: unknown): TextSendResult {
  const status = (error as { status?: unknown }).status
  const code = (error as { code?: unknown }).code
  const message = error instanceof Error ? error.message : String(error)
  // RestException (and TwilioServiceException, which is not exported): status and a numeric code.
  if (typeof status === 'number') {
    if (status === 429) return { kind: 'retry', message }
    if (status >= 400 && status < 500) return { kind: 'refused', status, code: typeof code === 'number' ? code : null, message }
    return { kind: 'unknown', message }
  }
  // AxiosError: a string code.
  if (typeof code === 'string' && NOT_SENT.has(code)) return { kind: 'retry', message }
  return { kind: 'unknown', message }
}

async function twilioClient(settings: TwilioSettings) {
  const twilio = await loadTwilio()
  // Transport options go to the RequestClient: the client's own are ignored once one is given.
  const transport: RequestClient.RequestClientOptions = { timeout: 10_000, keepAlive: true }
  let httpClient: RequestClient
  if (settings.apiUrl) {
    const base = new URL(settings.apiUrl)
    const prefix = base.pathname.replace(/\/$/, '')
    class BaseUrlRequestClient extends twilio.RequestClient {
      override request<T>(opts: RequestClient.RequestOptions<T>) {
        const sdk = new URL(opts.uri)
        return super.request<T>({ ...opts, uri: new URL(prefix + sdk.pathname + sdk.search, base).toString() })
      }
    }
    httpClient = new BaseUrlRequestClient(transport)
  } else {
    httpClient = new twilio.RequestClient(transport)
  }
  return twilio(settings.accountSid, settings.authToken, { httpClient })
}

/**
 * `logBodies`: without Twilio, write each text's body (a code included) to the log, so the embedded
 * default works end to end; false in production, where the log never holds a body or a code (the
 * text is then not sent at all, and the log says so without its words).
 */
export function createTextSender(settings: TwilioSettings | undefined, log: Logger, options: { logBodies: boolean } = { logBodies: true }): TextSender {
  if (!settings) {
    return {
      live: false,
      async send(message) {
        if (options.logBodies) log.info({ to: message.to, body: message.body }, 'text (TWILIO_ACCOUNT_SID not set, logged instead)')
        else log.warn({ toLast2: message.to.slice(-2), length: message.body.length }, 'text not sent: TWILIO_ACCOUNT_SID is not set (its words are not logged in production)')
        return { kind: 'logged' }
      },
      async validate() {
        return false
      },
      async listInbound() {
        return []
      },
      async redact() {
        return { kind: 'kept', reason: 'Twilio is not configured' }
      },
    }
  }
  let client: ReturnType<typeof twilioClient> | undefined
  return {
    live: true,
    async send(message) {
      try {
        client ??= twilioClient(settings)
        // `create` throws synchronously on a missing `to`: inside the try either way.
        const created = await (await client).messages.create({
          to: message.to,
          from: message.from,
          body: message.body,
          ...(message.statusCallback ? { statusCallback: message.statusCallback } : {}),
        })
        const segments = Number(created.numSegments)
        return { kind: 'sent', sid: created.sid, segments: Number.isFinite(segments) && segments > 0 ? segments : null, status: created.status }
      } catch (error) {
        return classify(error)
      }
    },
    async validate(signature, url, params) {
      const twilio = await loadTwilio()
      return twilio.validateRequest(settings.authToken, signature, url, params)
    },
    async listInbound(to, since) {
      client ??= twilioClient(settings)
      const messages = await (await client).messages.list({ to, dateSentAfter: since, limit: INBOUND_LIST_LIMIT })
      return messages
        .filter((message) => message.direction === 'inbound')
        .map((message) => ({ sid: message.sid, from: message.from, to: message.to, body: message.body ?? '', sentAt: message.dateSent ?? message.dateCreated ?? null }))
        .sort((a, b) => (a.sentAt?.getTime() ?? 0) - (b.sentAt?.getTime() ?? 0))
    },
    async redact(messageSid) {
      try {
        client ??= twilioClient(settings)
        await (await client).messages(messageSid).update({ body: '' })
        return { kind: 'redacted' }
      } catch (error) {
        if ((error as { status?: unknown }).status === 404) return { kind: 'not-found' }
        const code = (error as { code?: unknown }).code
        return { kind: 'kept', reason: `${error instanceof Error ? error.message : String(error)}${code === undefined ? '' : ` (${String(code)})`}` }
      }
    },
  }
}
