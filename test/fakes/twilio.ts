/**
 * A small, stateful, Twilio-compatible Messaging API for tests (docs/decisions/045). The official
 * `twilio` SDK talks to it through TWILIO_API_URL (the app's RequestClient rewrites its URLs) as it
 * talks to api.twilio.com: form-encoded bodies, Basic auth with the account sid and auth token,
 * Twilio's JSON shapes (snake_case, RFC 2822 dates, `num_segments` as a string) and its legacy
 * error shape `{code, message, more_info, status}`, which the SDK raises as RestException.
 *
 * - `POST /2010-04-01/Accounts/{sid}/Messages.json`: validates To (E.164, 21211), From (the
 *   account's number, 21606), Body (21602 missing, 21617 over 1,600 characters), Twilio's magic test
 *   numbers (+15005550001 → 21211, +15005550003 → 21408, +15005550004 → 21610, +15005550009 →
 *   21614) and the opt-out block list (21610 after STOP until START); 201 with the message.
 * - `GET …/Messages/{sid}.json` and `GET …/Messages.json?To=…`.
 * - `POST …/Messages/{sid}.json` with `Body=` (the Message update): redacts the message's body,
 *   outbound and inbound alike, keeping the rest of the record (numbers, status, dates); 200 with
 *   the message. A message still on its way (queued, accepted, scheduled, sending, receiving)
 *   cannot be redacted yet: 400 (Twilio documents redaction for "post-flight" messages only; the
 *   code and wording of its refusal are UNCONFIRMED: the fake answers 20009). A non-empty Body, or
 *   Body with Status, is 400/30400; no Body and no Status is 400/30400; Status alone (cancelling a
 *   scheduled message, which the fake never has) is 400/30409; an unknown sid is 404/20404.
 * - Inbound texts (`inbound`): Twilio's default keyword handling first (STOP family blocks the
 *   sender→number pair and auto-replies, START family unblocks, HELP auto-replies), then the
 *   message is forwarded, still, to the app's webhook, signed exactly as Twilio signs
 *   (X-Twilio-Signature = base64 HMAC-SHA1 of the URL and the sorted fields, with the auth token),
 *   and the TwiML <Message> the app answers is recorded as a reply sent to the sender.
 * - Status callbacks (`status`): what became of a text the app sent, posted to the StatusCallback it
 *   gave, signed as Twilio signs (`POST /__fake/status` does the same over HTTP).
 * - Fault injection: the next requests answer 429/20429 or 500 (any request, or only those to one
 *   method and path).
 */
import { randomBytes } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import Fastify, { type FastifyReply } from 'fastify'
import twilio from 'twilio'
import { Agent, request } from 'undici'
import { headerKey, TWILIO_SIGNATURE_HEADER } from '#common/webhooks'

export const FAKE_TWILIO_ACCOUNT_SID = `AC${'0123456789abcdef'.repeat(2)}`
export const FAKE_TWILIO_AUTH_TOKEN = 'fa4e70ce11d0a7e5f0cadd1e5e1f0b0e'

/** Twilio's default keywords (whole message, case-insensitive). */
const STOP_WORDS = new Set(['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT', 'REVOKE', 'OPTOUT'])
const START_WORDS = new Set(['START', 'YES', 'UNSTOP'])
const HELP_WORDS = new Set(['HELP', 'INFO'])

/** Twilio's test credentials' magic destinations, mirrored. */
const MAGIC_TO: Record<string, { code: number; message: string }> = {
  '+15005550001': { code: 21211, message: "The 'To' number +15005550001 is not a valid phone number." },
  '+15005550003': { code: 21408, message: 'Permission to send an SMS has not been enabled for the region indicated by the \'To\' number: +15005550003.' },
  '+15005550004': { code: 21610, message: 'Attempt to send to unsubscribed recipient' },
  '+15005550009': { code: 21614, message: "'To' number is not a valid mobile number" },
}

export type FakeMessage = {
  sid: string
  account_sid: string
  from: string
  to: string
  body: string
  status: 'queued' | 'sending' | 'sent' | 'delivered' | 'undelivered' | 'failed' | 'received'
  num_segments: string
  num_media: string
  direction: 'outbound-api' | 'outbound-reply' | 'inbound'
  error_code: number | null
  error_message: string | null
  price: null
  price_unit: string
  messaging_service_sid: null
  api_version: '2010-04-01'
  date_created: string
  date_sent: string | null
  date_updated: string
  uri: string
  subresource_uris: { media: string }
  /** Fake-only: the auto-reply of Twilio's own keyword handling, not sent by the app. */
  autoReply?: boolean
  /** Fake-only: the status callback URL the app asked for. */
  statusCallback?: string | undefined
}

export type InboundDelivery = { messageSid: string; status: number; body: string; reply: string | null; params: Record<string, string> }

type Fault = { status: number; code: number; message: string }
/** A fault for the next request to this method and path only (the path without its query). */
type FaultWhere = { method: string; path: string }

/** Statuses of a message Twilio has not finished with: its body cannot be redacted yet. */
const IN_FLIGHT = new Set<string>(['queued', 'accepted', 'scheduled', 'sending', 'receiving'])

const GSM = new Set(
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà',
)
const GSM_EXT = new Set('^{}\\[~]|€\f')

/** Segments as Twilio counts them (GSM-7 160/153, else UCS-2 70/67). */
export function fakeSegments(body: string): number {
  let gsm = true
  let units = 0
  for (const c of body) {
    if (GSM.has(c)) units += 1
    else if (GSM_EXT.has(c)) units += 2
    else gsm = false
  }
  if (!gsm) return body.length <= 70 ? 1 : Math.ceil(body.length / 67)
  return units <= 160 ? 1 : Math.ceil(units / 153)
}

const rfc2822 = (date: Date) => date.toUTCString().replace('GMT', '+0000')
const sid = (prefix: string) => `${prefix}${randomBytes(16).toString('hex')}`
const E164 = /^\+[1-9]\d{6,14}$/

const twilioError = (reply: FastifyReply, status: number, code: number, message: string) =>
  reply.code(status).send({ code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status })

export type FakeTwilioOptions = {
  accountSid?: string
  authToken?: string
  /** The account's SMS-capable numbers (the app's SMS_OPT_IN_NUMBER). */
  numbers?: string[]
  /** The app's inbound webhook (APP_URL + /api/webhooks/sms); may be set later. */
  webhookUrl?: string
  /** The clock for the messages' dates. */
  clock?: { now(): Date }
}

export class FakeTwilio {
  readonly accountSid: string
  readonly authToken: string
  readonly numbers: Set<string>
  webhookUrl: string | undefined
  url = ''
  readonly #messages: FakeMessage[] = []
  /** Blocked (sender → our number) pairs, as `${person}|${ourNumber}`. */
  readonly #blocked = new Set<string>()
  readonly #faults: Array<Fault & { where?: FaultWhere | undefined }> = []
  #holds: Array<{ created: (sid: string) => void; released: Promise<void> }> = []
  readonly #clock: { now(): Date }
  readonly #app = Fastify({ logger: false })
  /** Its own connections to the app (a test's next app on the same port never gets a socket of the last one's). */
  readonly #agent = new Agent({ keepAliveTimeout: 1_000 })
  /** Every API request seen (method, path, the Authorization header's user). */
  readonly requests: Array<{ method: string; path: string; user: string | null }> = []

  private constructor(options: FakeTwilioOptions) {
    this.accountSid = options.accountSid ?? FAKE_TWILIO_ACCOUNT_SID
    this.authToken = options.authToken ?? FAKE_TWILIO_AUTH_TOKEN
    this.numbers = new Set(options.numbers ?? ['+15555550123'])
    this.webhookUrl = options.webhookUrl
    this.#clock = options.clock ?? { now: () => new Date() }
    this.#routes()
  }

  static async start(options: FakeTwilioOptions = {}): Promise<FakeTwilio> {
    const fake = new FakeTwilio(options)
    await fake.#app.listen({ port: 0, host: '127.0.0.1' })
    fake.url = `http://127.0.0.1:${(fake.#app.server.address() as AddressInfo).port}`
    return fake
  }

  async close(): Promise<void> {
    await this.#app.close()
    await this.#agent.close()
  }

  /** The environment that points the app at this fake. */
  env(smsNumber = [...this.numbers][0]!): Record<string, string> {
    return { TWILIO_ACCOUNT_SID: this.accountSid, TWILIO_AUTH_TOKEN: this.authToken, TWILIO_API_URL: this.url, SMS_OPT_IN_NUMBER: smsNumber }
  }

  // ---- what happened -----------------------------------------------------------------------

  /** Every message: sent through the API, replies, auto-replies and inbound ones, in order. */
  messages(): FakeMessage[] {
    return [...this.#messages]
  }

  /** Texts the app created through the API to a number (replies not included). */
  sentTo(number: string): FakeMessage[] {
    return this.#messages.filter((message) => message.direction === 'outbound-api' && message.to === number)
  }

  /** The app's TwiML answers to a number's texts. */
  repliesTo(number: string): FakeMessage[] {
    return this.#messages.filter((message) => message.direction === 'outbound-reply' && !message.autoReply && message.to === number)
  }

  isBlocked(person: string, ourNumber = [...this.numbers][0]!): boolean {
    return this.#blocked.has(`${person}|${ourNumber}`)
  }

  /** The pair is blocked as a STOP texted to Twilio would block it, without our webhook hearing of it (it was down). */
  block(person: string, ourNumber = [...this.numbers][0]!): void {
    this.#blocked.add(`${person}|${ourNumber}`)
  }

  /** The next `count` API requests (or only those to `where`) answer with this error (429/20429, 500…). */
  failNext(count: number, fault: Fault = { status: 429, code: 20429, message: 'Too Many Requests' }, where?: FaultWhere): void {
    for (let i = 0; i < count; i++) this.#faults.push({ ...fault, where })
  }

  /** The API path of a message (what the SDK requests to fetch or update it). */
  messagePath(messageSid: string): string {
    return `/2010-04-01/Accounts/${this.accountSid}/Messages/${messageSid}.json`
  }

  /** The Message updates the app sent for a message (each redaction attempt, failed ones too). */
  updatesOf(messageSid: string): number {
    const path = this.messagePath(messageSid)
    return this.requests.filter((request) => request.method === 'POST' && request.path === path).length
  }

  /** Sets what became of a message at Twilio, without a status callback (an inbound text's, or one whose callback is not wanted). */
  setStatus(messageSid: string, status: FakeMessage['status']): void {
    const message = this.#messages.find((item) => item.sid === messageSid)
    if (!message) throw new Error(`FakeTwilio: no message ${messageSid}`)
    message.status = status
    message.date_updated = rfc2822(this.#clock.now())
  }

  /**
   * The next message created is held: Twilio has it (`created` resolves with its sid, and its status
   * callbacks can be sent) but the app gets no answer until `release()`, as when Twilio's callback
   * overtakes its API response.
   */
  holdNextCreate(): { created: Promise<string>; release: () => void } {
    let created!: (sid: string) => void
    let release!: () => void
    const hold = { created: (sid: string) => created(sid), released: new Promise<void>((resolve) => (release = resolve)) }
    this.#holds.push(hold)
    return { created: new Promise<string>((resolve) => (created = resolve)), release }
  }

  reset(): void {
    this.#holds = []
    this.#messages.length = 0
    this.#blocked.clear()
    this.#faults.length = 0
    this.requests.length = 0
  }

  // ---- inbound texts -----------------------------------------------------------------------

  /** Twilio's webhook fields for an inbound text. */
  inboundParams(input: { from: string; body: string; to?: string; messageSid?: string }): Record<string, string> {
    const messageSid = input.messageSid ?? sid('SM')
    return {
      ToCountry: 'US',
      SmsMessageSid: messageSid,
      NumMedia: '0',
      From: input.from,
      SmsSid: messageSid,
      Body: input.body,
      FromCountry: 'US',
      To: input.to ?? [...this.numbers][0]!,
      MessageSid: messageSid,
      AccountSid: this.accountSid,
      NumSegments: String(fakeSegments(input.body)),
      SmsStatus: 'received',
      ApiVersion: '2010-04-01',
    }
  }

  /** The signature Twilio would put in X-Twilio-Signature for these fields at this URL. */
  sign(url: string, params: Record<string, string>, authToken = this.authToken): string {
    return twilio.getExpectedTwilioSignature(authToken, url, params)
  }

  /**
   * A person texts our number: Twilio's own keyword handling, then the signed webhook to the app
   * (`signature` replaces the real one: a forgery; `lost`: the webhook never reaches the app).
   * Returns the app's answer.
   */
  async inbound(input: { from: string; body: string; to?: string; messageSid?: string; signature?: string | null; url?: string; lost?: boolean }): Promise<InboundDelivery> {
    const params = this.inboundParams(input)
    const now = this.#clock.now()
    this.#messages.push(this.#message({ sid: params.MessageSid!, from: params.From!, to: params.To!, body: params.Body!, direction: 'inbound', status: 'received', now }))
    const word = input.body.trim().toUpperCase()
    const pair = `${params.From}|${params.To}`
    if (STOP_WORDS.has(word)) {
      this.#blocked.add(pair)
      this.#autoReply(params.To!, params.From!, 'You have successfully been unsubscribed. You will not receive any more messages from this number. Reply START to resubscribe.', now)
    } else if (START_WORDS.has(word)) {
      this.#blocked.delete(pair)
      this.#autoReply(params.To!, params.From!, 'You have successfully been re-subscribed to messages from this number. Reply HELP for help. Reply STOP to unsubscribe. Msg&Data Rates May Apply.', now)
    } else if (HELP_WORDS.has(word)) {
      this.#autoReply(params.To!, params.From!, 'Reply STOP to unsubscribe. Msg&Data Rates May Apply.', now)
    }
    // `lost`: the app's webhook was down: Twilio has the text (its log lists it) but the app never heard it.
    if (input.lost) return { messageSid: params.MessageSid!, status: 0, body: '', reply: null, params }
    return this.deliver(params, { signature: input.signature, url: input.url })
  }

  /** Posts webhook fields to the app, signed (or with the given signature; null: no header). Twilio's retry is this again. */
  async deliver(params: Record<string, string>, options: { signature?: string | null | undefined; url?: string | undefined } = {}): Promise<InboundDelivery> {
    const url = options.url ?? this.webhookUrl
    if (!url) throw new Error('FakeTwilio: no webhookUrl to deliver to')
    const signature = options.signature === undefined ? this.sign(url, params) : options.signature
    const headers: Record<string, string> = {
      'content-type': 'application/x-www-form-urlencoded',
      'user-agent': 'TwilioProxy/1.1',
      'i-twilio-idempotency-token': randomBytes(16).toString('hex'),
    }
    if (signature !== null) headers[headerKey(TWILIO_SIGNATURE_HEADER)] = signature
    const response = await request(url, { method: 'POST', headers, body: new URLSearchParams(params).toString(), dispatcher: this.#agent })
    const body = await response.body.text()
    const ok = response.statusCode >= 200 && response.statusCode < 300
    const reply = ok ? /<Message>([\s\S]*?)<\/Message>/.exec(body)?.[1] ?? null : null
    const text = reply === null ? null : reply.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&')
    // The TwiML reply goes from our number to the sender (whether Twilio drops it to a blocked pair is unconfirmed: kept).
    if (text !== null) this.#messages.push(this.#message({ sid: sid('SM'), from: params.To!, to: params.From!, body: text, direction: 'outbound-reply', status: 'sent', now: this.#clock.now() }))
    return { messageSid: params.MessageSid!, status: response.statusCode, body, reply: text, params }
  }

  /**
   * Twilio reports what became of an outbound text: the message takes `status` (and the error),
   * and its StatusCallback gets the signed callback (as Twilio sends it: the message's fields,
   * MessageStatus and SmsStatus, ErrorCode when there is one). Returns the app's answer.
   */
  async status(messageSid: string, status: 'sending' | 'sent' | 'delivered' | 'undelivered' | 'failed', options: { errorCode?: number; signature?: string | null } = {}): Promise<{ status: number; body: string }> {
    const message = this.#messages.find((item) => item.sid === messageSid)
    if (!message) throw new Error(`FakeTwilio: no message ${messageSid}`)
    if (!message.statusCallback) throw new Error(`FakeTwilio: message ${messageSid} has no StatusCallback`)
    message.status = status
    message.error_code = options.errorCode ?? null
    message.date_updated = rfc2822(this.#clock.now())
    const params: Record<string, string> = {
      MessageSid: message.sid,
      SmsSid: message.sid,
      AccountSid: this.accountSid,
      From: message.from,
      To: message.to,
      ApiVersion: '2010-04-01',
      MessageStatus: status,
      SmsStatus: status,
      ...(options.errorCode === undefined ? {} : { ErrorCode: String(options.errorCode) }),
    }
    const signature = options.signature === undefined ? this.sign(message.statusCallback, params) : options.signature
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': 'TwilioProxy/1.1' }
    if (signature !== null) headers[headerKey(TWILIO_SIGNATURE_HEADER)] = signature
    const response = await request(message.statusCallback, { method: 'POST', headers, body: new URLSearchParams(params).toString(), dispatcher: this.#agent })
    return { status: response.statusCode, body: await response.body.text() }
  }

  // ---- the API -----------------------------------------------------------------------------

  #message(input: { sid: string; from: string; to: string; body: string; direction: FakeMessage['direction']; status: FakeMessage['status']; now: Date; autoReply?: boolean; statusCallback?: string | undefined }): FakeMessage {
    const uri = `/2010-04-01/Accounts/${this.accountSid}/Messages/${input.sid}.json`
    return {
      sid: input.sid,
      account_sid: this.accountSid,
      from: input.from,
      to: input.to,
      body: input.body,
      status: input.status,
      num_segments: String(fakeSegments(input.body)),
      num_media: '0',
      direction: input.direction,
      error_code: null,
      error_message: null,
      price: null,
      price_unit: 'USD',
      messaging_service_sid: null,
      api_version: '2010-04-01',
      date_created: rfc2822(input.now),
      date_sent: input.status === 'queued' ? null : rfc2822(input.now),
      date_updated: rfc2822(input.now),
      uri,
      subresource_uris: { media: uri.replace(/\.json$/, '/Media.json') },
      ...(input.autoReply ? { autoReply: true } : {}),
      ...(input.statusCallback ? { statusCallback: input.statusCallback } : {}),
    }
  }

  #autoReply(from: string, to: string, body: string, now: Date): void {
    this.#messages.push(this.#message({ sid: sid('SM'), from, to, body, direction: 'outbound-reply', status: 'sent', now, autoReply: true }))
  }

  /** Basic auth with this account: the user from the header, or null when it is wrong. */
  #authenticated(authorization: string | undefined, pathSid: string): string | null {
    const match = /^Basic (.+)$/.exec(authorization ?? '')
    if (!match) return null
    const [user, password] = Buffer.from(match[1]!, 'base64').toString('utf8').split(':')
    if (user !== this.accountSid || password !== this.authToken || pathSid !== this.accountSid) return null
    return user
  }

  #routes(): void {
    const app = this.#app
    app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)))
    })

    app.addHook('onRequest', async (request, reply) => {
      if (!request.url.startsWith('/2010-04-01/')) return
      const pathSid = /^\/2010-04-01\/Accounts\/([^/]+)\//.exec(request.url)?.[1] ?? ''
      const user = this.#authenticated(request.headers.authorization, pathSid)
      this.requests.push({ method: request.method, path: request.url.split('?')[0]!, user })
      if (!user) return twilioError(reply, 401, 20003, 'Authenticate')
      const path = request.url.split('?')[0]!
      const index = this.#faults.findIndex((fault) => !fault.where || (fault.where.method === request.method && fault.where.path === path))
      if (index !== -1) {
        const [fault] = this.#faults.splice(index, 1)
        return twilioError(reply, fault!.status, fault!.code, fault!.message)
      }
    })

    app.post<{ Params: { sid: string }; Body: Record<string, string> }>('/2010-04-01/Accounts/:sid/Messages.json', async (request, reply) => {
      const body = request.body ?? {}
      const to = body.To ?? ''
      const from = body.From ?? ''
      if (!to) return twilioError(reply, 400, 21604, "A 'To' phone number is required.")
      if (!E164.test(to)) return twilioError(reply, 400, 21211, `The 'To' number ${to} is not a valid phone number.`)
      if (!this.numbers.has(from)) return twilioError(reply, 400, 21606, `The From phone number ${from} is not a valid, SMS-capable inbound phone number or short code for your account.`)
      const text = body.Body ?? ''
      if (!text) return twilioError(reply, 400, 21602, 'Message body is required.')
      if ([...text].length > 1600) return twilioError(reply, 400, 21617, 'The concatenated message body exceeds the 1600 character limit.')
      const magic = MAGIC_TO[to]
      if (magic) return twilioError(reply, 400, magic.code, magic.message)
      if (this.#blocked.has(`${to}|${from}`)) return twilioError(reply, 400, 21610, 'Attempt to send to unsubscribed recipient')
      const message = this.#message({ sid: sid('SM'), from, to, body: text, direction: 'outbound-api', status: 'queued', now: this.#clock.now(), statusCallback: body.StatusCallback })
      this.#messages.push(message)
      const hold = this.#holds.shift()
      if (hold) {
        hold.created(message.sid)
        await hold.released
      }
      return reply.code(201).send(message)
    })

    app.get<{ Params: { sid: string; messageSid: string } }>('/2010-04-01/Accounts/:sid/Messages/:messageSid', async (request, reply) => {
      const wanted = request.params.messageSid.replace(/\.json$/, '')
      const message = this.#messages.find((item) => item.sid === wanted)
      if (!message) return twilioError(reply, 404, 20404, `The requested resource /2010-04-01/Accounts/${this.accountSid}/Messages/${wanted}.json was not found`)
      return message
    })

    // The Message update: a redaction (Body=""), or a cancellation (Status=canceled) of a scheduled message.
    app.post<{ Params: { sid: string; messageSid: string }; Body: Record<string, string> }>('/2010-04-01/Accounts/:sid/Messages/:messageSid', async (request, reply) => {
      const wanted = request.params.messageSid.replace(/\.json$/, '')
      const message = this.#messages.find((item) => item.sid === wanted)
      if (!message) return twilioError(reply, 404, 20404, `The requested resource /2010-04-01/Accounts/${this.accountSid}/Messages/${wanted}.json was not found`)
      const body = request.body ?? {}
      if (body.Body !== undefined && body.Status !== undefined) return twilioError(reply, 400, 30400, 'Parameters are not valid: cannot cancel a message and redact its body at once')
      if (body.Body === undefined && body.Status === undefined) return twilioError(reply, 400, 30400, 'Parameters are not valid: Body or Status is required')
      if (body.Body === undefined) return twilioError(reply, 400, 30409, 'This message cannot be canceled')
      if (body.Body !== '') return twilioError(reply, 400, 30400, 'Parameters are not valid: a redaction needs an empty Body')
      if (IN_FLIGHT.has(message.status)) return twilioError(reply, 400, 20009, `Cannot redact the body of a message that is ${message.status}`)
      message.body = ''
      message.date_updated = rfc2822(this.#clock.now())
      return message
    })

    // The message log, newest first, as Twilio lists it: filtered by To, From, and `DateSent>` (the
    // SDK's dateSentAfter, sent as `DateSent>=<ISO time>`: sent at or after it).
    app.get<{ Querystring: Record<string, string | undefined> }>('/2010-04-01/Accounts/:sid/Messages.json', async (request) => {
      const query = request.query
      const pageSize = Math.min(1000, Number(query.PageSize ?? 50) || 50)
      const after = query['DateSent>'] ? new Date(query['DateSent>']).getTime() : null
      const messages = this.#messages
        .filter((item) => !query.To || item.to === query.To)
        .filter((item) => !query.From || item.from === query.From)
        .filter((item) => after === null || (item.date_sent !== null && new Date(item.date_sent).getTime() >= after))
        .reverse()
        .slice(0, pageSize)
      const uri = `/2010-04-01/Accounts/${this.accountSid}/Messages.json?PageSize=${pageSize}&Page=0`
      return { messages, end: messages.length - 1, first_page_uri: uri, next_page_uri: null, page: 0, page_size: pageSize, previous_page_uri: null, start: 0, uri }
    })

    app.get('/__fake/messages', async () => ({ messages: this.messages(), blocked: [...this.#blocked] }))
    app.post<{ Body: { sid: string; status: 'sending' | 'sent' | 'delivered' | 'undelivered' | 'failed'; errorCode?: number } }>('/__fake/status', async (request) =>
      this.status(request.body.sid, request.body.status, request.body.errorCode === undefined ? {} : { errorCode: request.body.errorCode }),
    )
  }
}
