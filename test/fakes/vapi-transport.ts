/**
 * The Vapi fake's WebSocket transport (`vapi.websocket`) and live call control: the socket at
 * `/<callId>/transport` that a `POST /call` with `transport.provider = "vapi.websocket"` answers in
 * `transport.websocketCallUrl`, and `POST /<callId>/control` (every call's `monitor.controlUrl`).
 * test/fakes/vapi.ts creates one per fake (`fake.transport`); its header lists the choices made.
 *
 * The socket speaks Vapi's wire format: binary frames are raw mono audio in the call's
 * `audioFormat` (pcm_s16le or mulaw at its sampleRate; 20 ms frames from the fake); text frames
 * are flat JSON objects with `type` at the top level (status-update, speech-update, transcript,
 * conversation-update, user-interrupted out; say, add-message, control, end-call in). Every JSON
 * message sent on the socket is also a server message (webhook) when the call's serverMessages
 * allow its type; the end sends status-update ended and end-of-call-report after the close.
 */
import { randomUUID } from 'node:crypto'
import { STATUS_CODES, type IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { WebSocket, WebSocketServer, type RawData } from 'ws'
import { defaultCoachingReport, serverMessage, type ArtifactMessage, type FakeAudioFormat, type FakeCall, type FakeCalls } from './vapi-calls'
import { PUBLIC_ROUTE, vapiError, type FakeVapiHost } from './vapi-shared'

// ---- settings --------------------------------------------------------------------------------

/** setTimeout/clearTimeout for the join and maxDuration timers (a test passes its manual timers). */
export type TransportTimers = { setTimeout(callback: () => void, ms: number): unknown; clearTimeout(handle: unknown): void }

export type ReplyContext = {
  /** What asked for the reply: the user's speech, or a message added with add-message. */
  source: 'speech' | 'add-message'
  /** The user's transcript, or the added message's content. */
  text: string
  /** 'user' for speech; the added message's role. */
  role: string
  call: FakeCall
}

export type TransportSettings = {
  /**
   * Echo: every inbound binary frame goes straight back unchanged; no greeting, no speech
   * detection, no spoken replies (say and add-message are recorded only). end-call still ends.
   */
  echo: boolean
  /** Refuse an upgrade without `Authorization: Bearer <apiKey>` (401). Off: the URL alone joins. */
  requireBearer: boolean
  /**
   * The greeting spoken on open; `{{ variable }}` filled from variableValues. Default: the call's
   * assistantOverrides.firstMessage, else "Hi <firstName>, this is your coach. What would you like
   * to talk about?". '' (or firstMessageMode 'assistant-waits-for-user') greets with nothing.
   */
  greeting: string | undefined
  /** 20 ms tone frames in the greeting. */
  greetingFrames: number
  /** 20 ms tone frames in each reply and `say`. */
  replyFrames: number
  /** Wall-clock pacing of the assistant's frames (real time: 20); 0 sends them at once. */
  frameIntervalMs: number
  /** K: milliseconds of audio above the threshold before the user counts as speaking. */
  speechMs: number
  /** M: milliseconds of audio under the threshold that end the user's turn. */
  silenceMs: number
  /** The mean absolute sample (PCM16 scale) above which a frame is speech. */
  silenceThreshold: number
  /** The user's transcript for each turn, in order (the last one repeats). */
  userTranscripts: string[]
  /** The assistant's reply to a user turn or an added message (default `echo:<text>`). */
  reply: (context: ReplyContext) => string
  /** Also send `user-interrupted` when the user's speech cuts a reply (a speech-update is always sent). */
  userInterrupted: boolean
  /**
   * `mute-assistant` stops the assistant's frames (counted in framesMuted, not sent). Off: they are
   * sent anyway, as from a provider that ignores the control (or frames already on their way), so
   * a test shows what the client does on its own.
   */
  honourAssistantMute: boolean
  /** No socket within this long: the call ends with call.in-progress.error-assistant-did-not-receive-customer-audio. */
  joinTimeoutMs: number
  /** Multiplies maxDurationSeconds (default 600) before the timer (e.g. 0.001 in tests). */
  maxDurationScale: number
  /** Why the call ends when the client closes the socket without end-call (unconfirmed in Vapi). */
  clientCloseEndedReason: string
  /** Why the call ends on end-call through the control URL (unconfirmed in Vapi). */
  controlEndedReason: string
}

export const DEFAULT_USER_TRANSCRIPT = 'I want to work on my fitness this week.'

export const defaultTransportSettings = (): TransportSettings => ({
  echo: false,
  requireBearer: false,
  greeting: undefined,
  greetingFrames: 10,
  replyFrames: 10,
  frameIntervalMs: 20,
  speechMs: 200,
  silenceMs: 500,
  silenceThreshold: 500,
  userTranscripts: [DEFAULT_USER_TRANSCRIPT],
  reply: ({ text }) => `echo:${text}`,
  userInterrupted: true,
  honourAssistantMute: true,
  joinTimeoutMs: 15_000,
  maxDurationScale: 1,
  clientCloseEndedReason: 'phone-call-provider-closed-websocket',
  controlEndedReason: 'customer-ended-call',
})

export type FakeTransportOptions = {
  /** Transport settings for every WebSocket call (tests may change them later). */
  transport?: Partial<TransportSettings>
  /** The join and maxDuration timers (real timers by default). */
  timers?: TransportTimers
}

const realTimers: TransportTimers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms).unref(),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
}

// ---- stats -----------------------------------------------------------------------------------

export type Authorization = 'valid' | 'invalid' | 'missing'

/** One WebSocket call as the fake saw it (a snapshot from `stats()`). */
export type TransportStats = {
  callId: string
  state: 'waiting' | 'open' | 'ended'
  echo: boolean
  /** Every upgrade to this call's URL: 101 accepted, or the refusal's status. */
  upgrades: Array<{ status: number; authorization: Authorization }>
  /** Whether the accepted socket carried `Authorization: Bearer <the fake's key>` (undefined before one). */
  bearer: boolean | undefined
  authorization: Authorization | undefined
  bytesIn: number
  framesIn: number
  bytesOut: number
  framesOut: number
  /** Assistant frames not sent while the assistant was muted. */
  framesMuted: number
  /** The socket has stopped reading (`stallReading`): what the client sends waits in the TCP buffers. */
  readingStalled: boolean
  /** Every text message received (parsed; the raw text when it was not JSON), with where it came from. */
  received: Array<{ via: 'socket' | 'control'; message: unknown }>
  /** Every JSON message sent on the socket. */
  sent: Array<Record<string, unknown>>
  says: string[]
  addMessages: Array<{ role: string; content: string; triggerResponseEnabled: boolean }>
  controls: string[]
  /** Unknown types and malformed messages (ignored). */
  ignored: unknown[]
  /** Text frames that were not JSON. */
  invalidText: number
  /** Where end-call (or hangup) came from, if it came. */
  endCallReceived: 'socket' | 'control' | undefined
  userTurns: number
  assistantTurns: number
  interruptions: number
  assistantMuted: boolean
  customerMuted: boolean
  /** Who closed the socket: the fake (close frame), the client, or the fake without a close frame (drop). */
  closedBy: 'fake' | 'client' | 'drop' | undefined
  closeCode: number | undefined
  closeReason: string | undefined
  endedReason: string | undefined
}

// ---- audio -----------------------------------------------------------------------------------

const TONE_HZ = 440
const TONE_AMPLITUDE = 8000

function mulawDecode(byte: number): number {
  const value = ~byte & 0xff
  const exponent = (value >> 4) & 0x07
  const magnitude = (((value & 0x0f) << 3) + 0x84) << exponent
  return value & 0x80 ? 0x84 - magnitude : magnitude - 0x84
}

function mulawEncode(sample: number): number {
  const sign = sample < 0 ? 0x80 : 0
  let magnitude = Math.min(Math.abs(sample), 32635) + 0x84
  let exponent = 7
  for (let mask = 0x4000; (magnitude & mask) === 0 && exponent > 0; mask >>= 1) exponent -= 1
  const mantissa = (magnitude >> (exponent + 3)) & 0x0f
  magnitude = sign | (exponent << 4) | mantissa
  return ~magnitude & 0xff
}

/** The mean absolute sample of a frame, on the PCM16 scale. */
function level(frame: Buffer, format: FakeAudioFormat['format']): number {
  let sum = 0
  if (format === 'mulaw') {
    for (let i = 0; i < frame.length; i += 1) sum += Math.abs(mulawDecode(frame[i]!))
    return frame.length === 0 ? 0 : sum / frame.length
  }
  const samples = frame.length >> 1
  for (let i = 0; i < samples; i += 1) sum += Math.abs(frame.readInt16LE(i * 2))
  return samples === 0 ? 0 : sum / samples
}

/** `samples` of a 440 Hz tone from sample `offset` on, in the call's format. */
function toneFrame(format: FakeAudioFormat, offset: number, samples: number): Buffer {
  const frame = Buffer.alloc(format.format === 'mulaw' ? samples : samples * 2)
  for (let i = 0; i < samples; i += 1) {
    const value = Math.round(TONE_AMPLITUDE * Math.sin((2 * Math.PI * TONE_HZ * (offset + i)) / format.sampleRate))
    if (format.format === 'mulaw') frame[i] = mulawEncode(value)
    else frame.writeInt16LE(value, i * 2)
  }
  return frame
}

// ---- sessions --------------------------------------------------------------------------------

type Turn = { id: string; turn: number; interrupted: boolean; done: boolean; stop: () => void; stopped: Promise<void> }

type Session = {
  call: FakeCall
  format: FakeAudioFormat
  samplesPerFrame: number
  settings: TransportSettings
  stats: TransportStats
  socket: WebSocket | undefined
  /** A socket was accepted (or its handshake is under way): later upgrades are refused. */
  claimed: boolean
  joinTimer: unknown
  maxTimer: unknown
  voicedMs: number
  silentMs: number
  userSpeaking: boolean
  userText: string
  userTurn: number
  turnCounter: number
  current: Turn | undefined
  queue: Promise<void>
  pending: number
  toneOffset: number
  log: ArtifactMessage[]
  openAi: Array<{ role: string; content: string }>
  listeners: Set<() => void>
  ended: Promise<string>
  resolveEnded: (reason: string) => void
}

/** The JSON types mirrored to the server URL when serverMessages allow them. */
const MIRRORED = new Set(['status-update', 'speech-update', 'transcript', 'conversation-update', 'user-interrupted'])
const CONTROL_TYPES = ['say', 'add-message', 'control', 'end-call', 'transfer', 'handoff']
const CONTROL_VALUES = ['mute-assistant', 'unmute-assistant', 'mute-customer', 'unmute-customer', 'say-first-message']
const DEFAULT_GREETING = 'Hi {{firstName}}, this is your coach. What would you like to talk about?'
const DEFAULT_MAX_DURATION_SECONDS = 600
const JOIN_TIMEOUT_REASON = 'call.in-progress.error-assistant-did-not-receive-customer-audio'
/** The fake's reason for an abrupt drop: its worker died (one of Vapi's reasons). */
const DROP_REASON = 'call.in-progress.error-vapifault-worker-died'
/** The fake's reason when it closes on an odd-length PCM16 frame. */
const BAD_AUDIO_REASON = 'phone-call-provider-closed-websocket'

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)
const iso = (ms: number) => new Date(ms).toISOString()
const firstHalf = (text: string) => {
  const words = text.split(' ')
  return words.slice(0, Math.ceil(words.length / 2)).join(' ')
}
const fill = (template: string, variables: Record<string, unknown>) =>
  template.replace(/\{\{\s*([\w.]+)\s*\}\}/g, (_match, name: string) => (variables[name] === undefined || variables[name] === null ? '' : String(variables[name])))
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** The settings a test may send over HTTP, with their types. */
const HTTP_SETTINGS: Record<string, 'boolean' | 'number' | 'string' | 'strings' | 'string?'> = {
  echo: 'boolean',
  requireBearer: 'boolean',
  greeting: 'string?',
  greetingFrames: 'number',
  replyFrames: 'number',
  frameIntervalMs: 'number',
  speechMs: 'number',
  silenceMs: 'number',
  silenceThreshold: 'number',
  userTranscripts: 'strings',
  userInterrupted: 'boolean',
  honourAssistantMute: 'boolean',
  joinTimeoutMs: 'number',
  maxDurationScale: 'number',
  clientCloseEndedReason: 'string',
  controlEndedReason: 'string',
}

function settingsProblems(body: unknown): string[] {
  if (!isObject(body)) return ['settings must be an object']
  const problems: string[] = []
  for (const [key, value] of Object.entries(body)) {
    const kind = HTTP_SETTINGS[key]
    if (!kind) problems.push(`property ${key} should not exist`)
    else if (kind === 'strings' ? !Array.isArray(value) || value.length === 0 || value.some((item) => typeof item !== 'string') : kind === 'string?' ? value !== null && typeof value !== 'string' : typeof value !== kind) {
      problems.push(`${key} must be ${kind === 'strings' ? 'a non-empty array of strings' : kind === 'string?' ? 'a string or null' : `a ${kind}`}`)
    }
  }
  return problems
}

const fromHttp = (body: Record<string, unknown>): Partial<TransportSettings> => {
  const settings = { ...body } as Partial<TransportSettings> & { greeting?: string | null }
  if (settings.greeting === null) settings.greeting = undefined
  return settings as Partial<TransportSettings>
}

function writeRefusal(socket: Duplex, status: number, message: string): void {
  const body = JSON.stringify(vapiError(status, message))
  socket.on('error', () => {})
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  )
}

/**
 * The WebSocket transport and control URLs of one fake. Test API: configure / configureNext /
 * configureCall, stats, controlMessages, upgrades, endCall, drop, interrupt, holdAudio,
 * stallReading / resumeReading, and the waits (connected, ended, idle, waitFor, settled).
 */
export class FakeVapiTransport {
  /** Every upgrade attempt, on any path: accepted (101) or the refusal's status. */
  readonly upgrades: Array<{ path: string; callId: string | undefined; status: number; authorization: Authorization }> = []
  readonly #host: FakeVapiHost
  readonly #calls: FakeCalls
  readonly #options: FakeTransportOptions
  readonly #timers: TransportTimers
  readonly #wss = new WebSocketServer({ noServer: true, perMessageDeflate: false })
  readonly #sessions = new Map<string, Session>()
  /** Messages received on the control URL of every call (phone calls too), by call id. */
  readonly #controls = new Map<string, unknown[]>()
  #settings: TransportSettings
  #next: Array<Partial<TransportSettings>> = []
  #connectionWaiters: Array<(callId: string) => void> = []
  #audioHold: { promise: Promise<void>; release: () => void; afterFrames: number } | undefined

  constructor(host: FakeVapiHost, calls: FakeCalls, options: FakeTransportOptions = {}) {
    this.#host = host
    this.#calls = calls
    this.#options = options
    this.#timers = options.timers ?? realTimers
    this.#settings = { ...defaultTransportSettings(), ...options.transport }
    calls.onWebsocketCall = (call) => this.#created(call)
    calls.onDeleted = (call) => this.#deleted(call)
    host.app.server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => this.#upgrade(request, socket, head))
    this.#routes()
    this.#controlRoutes()
    host.onReset(() => this.reset())
  }

  // ---- test API ------------------------------------------------------------------------------

  /** The settings for WebSocket calls created from now on. */
  get settings(): TransportSettings {
    return this.#settings
  }

  /** Changes the settings of the WebSocket calls created from now on (e.g. `{ echo: true }`). */
  configure(settings: Partial<TransportSettings>): void {
    this.#settings = { ...this.#settings, ...settings }
  }

  /** Settings for the next `times` WebSocket calls created, over the general ones. */
  configureNext(settings: Partial<TransportSettings>, times = 1): void {
    for (let i = 0; i < times; i += 1) this.#next.push(settings)
  }

  /** Changes one call's settings from now on (false when the call is not a WebSocket call). */
  configureCall(callId: string, settings: Partial<TransportSettings>): boolean {
    const session = this.#sessions.get(callId)
    if (!session) return false
    session.settings = { ...session.settings, ...settings }
    session.stats.echo = session.settings.echo
    return true
  }

  /** A snapshot of a WebSocket call's transport. */
  stats(callId: string): TransportStats | undefined {
    const session = this.#sessions.get(callId)
    return session ? structuredClone(session.stats) : undefined
  }

  /** Snapshots of every WebSocket call since the last reset, oldest first. */
  allStats(): TransportStats[] {
    return [...this.#sessions.values()].map((session) => structuredClone(session.stats))
  }

  /** The messages a call's control URL accepted (phone and WebSocket calls), in order. */
  controlMessages(callId: string): unknown[] {
    return structuredClone(this.#controls.get(callId) ?? [])
  }

  /**
   * Ends a WebSocket call from the assistant's side (default 'assistant-ended-call'): status-update
   * ended, close 1000, then the webhooks. False when the call is unknown or ended.
   */
  endCall(callId: string, endedReason = 'assistant-ended-call'): boolean {
    const session = this.#sessions.get(callId)
    if (!session || session.stats.state === 'ended') return false
    this.#end(session, endedReason)
    return true
  }

  /**
   * Drops a WebSocket call's socket without a close frame (the client sees 1006): the call ends
   * with call.in-progress.error-vapifault-worker-died, and the webhooks follow. False when there
   * is no open socket.
   */
  drop(callId: string): boolean {
    const session = this.#sessions.get(callId)
    if (!session || session.stats.state !== 'open') return false
    this.#end(session, DROP_REASON, { drop: true })
    return true
  }

  /**
   * Sends `user-interrupted` for the reply being streamed and stops its audio (then its
   * speech-update stopped). False (nothing sent) when no reply is streaming.
   */
  interrupt(callId: string): boolean {
    const session = this.#sessions.get(callId)
    return session ? this.#interrupt(session, true) : false
  }

  /**
   * Holds the assistant's audio after the first `afterFrames` frames (default 1) of every turn
   * (greetings, replies, says) until `release()`: a reply stays "streaming", so a test can interrupt
   * it at leisure. A turn with fewer frames is not held.
   */
  holdAudio(afterFrames = 1): { release: () => void } {
    if (!Number.isInteger(afterFrames) || afterFrames < 1) throw new RangeError(`afterFrames must be a positive integer (got ${afterFrames})`)
    let release = () => {}
    const promise = new Promise<void>((resolve) => (release = resolve))
    const hold = {
      promise,
      afterFrames,
      release: () => {
        if (this.#audioHold === hold) this.#audioHold = undefined
        release()
      },
    }
    this.#audioHold = hold
    return { release: hold.release }
  }

  /**
   * The call's socket stops reading, as a stalled peer does: its TCP receive buffer fills, then the
   * client's send buffer, and the client's writes wait (its `bufferedAmount` grows). Nothing sent
   * meanwhile is lost: `resumeReading` reads it, in order. False when the socket is not open.
   */
  stallReading(callId: string): boolean {
    const session = this.#sessions.get(callId)
    if (!session || session.stats.state !== 'open' || !session.socket) return false
    session.socket.pause()
    session.stats.readingStalled = true
    this.#notify(session)
    return true
  }

  /** The call's socket reads again (what waited comes first). False when it was not stalled or is closed. */
  resumeReading(callId: string): boolean {
    const session = this.#sessions.get(callId)
    if (!session || !session.stats.readingStalled || session.socket?.readyState !== WebSocket.OPEN) return false
    session.stats.readingStalled = false
    session.socket.resume()
    this.#notify(session)
    return true
  }

  /** Resolves with the call id once the call's socket opened or the call ended (without an id: the next socket any call opens). */
  connected(callId?: string): Promise<string> {
    if (callId === undefined) return new Promise((resolve) => this.#connectionWaiters.push(resolve))
    return this.waitFor(callId, (stats) => stats.state !== 'waiting').then(() => callId)
  }

  /** Resolves with the endedReason once the call has ended. */
  ended(callId: string): Promise<string> {
    const session = this.#sessions.get(callId)
    if (!session) return Promise.reject(new Error(`no WebSocket call ${callId}`))
    return session.ended
  }

  /** Resolves once no assistant turn is streaming or queued and the user is not mid-turn (or the call ended). */
  idle(callId: string): Promise<TransportStats> {
    return this.waitFor(callId, (stats, session) => stats.state === 'ended' || (stats.state === 'open' && session.pending === 0 && !session.userSpeaking))
  }

  /** Resolves with a snapshot once `predicate` holds; checked now and after every event of the call. */
  waitFor(callId: string, predicate: (stats: TransportStats, session: { pending: number; userSpeaking: boolean }) => boolean): Promise<TransportStats> {
    const session = this.#sessions.get(callId)
    if (!session) return Promise.reject(new Error(`no WebSocket call ${callId}`))
    const view = () => ({ pending: session.pending, userSpeaking: session.userSpeaking })
    if (predicate(session.stats, view())) return Promise.resolve(structuredClone(session.stats))
    return new Promise((resolve) => {
      const check = () => {
        if (!predicate(session.stats, view())) return
        session.listeners.delete(check)
        resolve(structuredClone(session.stats))
      }
      session.listeners.add(check)
    })
  }

  /**
   * Resolves when no WebSocket call has an assistant turn streaming or queued (a turn held by
   * holdAudio waits for its release) and every webhook was delivered. A user mid-turn does not
   * count: the fake waits for more audio, it does nothing on its own.
   */
  async settled(): Promise<void> {
    const ids = [...this.#sessions.keys()]
    await Promise.all(ids.map((id) => this.waitFor(id, (stats, session) => stats.state === 'ended' || session.pending === 0)))
    await this.#calls.settled()
  }

  /** Closes every socket (no webhooks), stops timers, forgets calls; back to the options' settings. */
  reset(): void {
    for (const session of this.#sessions.values()) {
      session.stats.state = 'ended'
      this.#stopTimers(session)
      session.current?.stop()
      session.socket?.terminate()
    }
    this.#sessions.clear()
    this.#controls.clear()
    this.#next = []
    this.#connectionWaiters = []
    this.#audioHold?.release()
    this.upgrades.length = 0
    this.#settings = { ...defaultTransportSettings(), ...this.#options.transport }
  }

  // ---- the call's life -----------------------------------------------------------------------

  #created(call: FakeCall): void {
    const settings = { ...this.#settings, ...this.#next.shift() }
    const format = call.transport!.audioFormat
    let resolveEnded: (reason: string) => void = () => {}
    const ended = new Promise<string>((resolve) => (resolveEnded = resolve))
    const session: Session = {
      call,
      format,
      samplesPerFrame: Math.max(1, Math.round(format.sampleRate / 50)),
      settings,
      stats: {
        callId: call.id,
        state: 'waiting',
        echo: settings.echo,
        upgrades: [],
        bearer: undefined,
        authorization: undefined,
        bytesIn: 0,
        framesIn: 0,
        bytesOut: 0,
        framesOut: 0,
        framesMuted: 0,
        readingStalled: false,
        received: [],
        sent: [],
        says: [],
        addMessages: [],
        controls: [],
        ignored: [],
        invalidText: 0,
        endCallReceived: undefined,
        userTurns: 0,
        assistantTurns: 0,
        interruptions: 0,
        assistantMuted: false,
        customerMuted: false,
        closedBy: undefined,
        closeCode: undefined,
        closeReason: undefined,
        endedReason: undefined,
      },
      socket: undefined,
      claimed: false,
      joinTimer: undefined,
      maxTimer: undefined,
      voicedMs: 0,
      silentMs: 0,
      userSpeaking: false,
      userText: '',
      userTurn: 0,
      turnCounter: 0,
      current: undefined,
      queue: Promise.resolve(),
      pending: 0,
      toneOffset: 0,
      log: [],
      openAi: [],
      listeners: new Set(),
      ended,
      resolveEnded,
    }
    this.#sessions.set(call.id, session)
    session.joinTimer = this.#timers.setTimeout(() => {
      if (session.stats.state === 'waiting') this.#end(session, JOIN_TIMEOUT_REASON)
    }, settings.joinTimeoutMs)
  }

  #upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    const path = (request.url ?? '/').split('?')[0] ?? '/'
    const match = /^\/([^/]+)\/(transport|listen)$/.exec(path)
    const callId = match ? decodeURIComponent(match[1]!) : undefined
    const header = request.headers.authorization
    const authorization: Authorization = header === undefined ? 'missing' : header === `Bearer ${this.#host.apiKey}` ? 'valid' : 'invalid'
    const session = callId !== undefined && match?.[2] === 'transport' ? this.#sessions.get(callId) : undefined
    const refuse = (status: number, message: string) => {
      this.upgrades.push({ path, callId, status, authorization })
      session?.stats.upgrades.push({ status, authorization })
      if (session) this.#notify(session)
      writeRefusal(socket, status, message)
    }
    if (match?.[2] === 'listen') return refuse(404, 'This fake does not serve listen URLs')
    if (!session || this.#calls.isDeleted(session.call.id)) return refuse(404, 'Call not found')
    if (session.stats.state === 'ended') return refuse(404, 'Call has ended')
    if (session.settings.requireBearer && authorization !== 'valid') {
      return refuse(401, 'Invalid Key. Hot tip, you may be using the private key instead of the public key, or vice versa.')
    }
    // A second socket to a live call: the fake's choice (Vapi's behaviour is unconfirmed).
    if (session.claimed) return refuse(409, 'A socket is already connected to this call')
    session.claimed = true
    this.#wss.handleUpgrade(request, socket, head, (ws) => this.#open(session, ws, path, authorization))
  }

  #open(session: Session, ws: WebSocket, path: string, authorization: Authorization): void {
    const { stats, call } = session
    this.upgrades.push({ path, callId: call.id, status: 101, authorization })
    stats.upgrades.push({ status: 101, authorization })
    if (stats.state === 'ended') {
      ws.terminate()
      return
    }
    session.socket = ws
    stats.authorization = authorization
    stats.bearer = authorization === 'valid'
    ws.on('message', (data: RawData, isBinary: boolean) => {
      if (isBinary) this.#audio(session, data as Buffer)
      else this.#text(session, String(data), 'socket')
    })
    ws.on('close', (code: number, reason: Buffer) => this.#closed(session, code, reason.toString()))
    ws.on('error', () => {})

    this.#stopTimers(session)
    const now = this.#host.now().getTime()
    stats.state = 'open'
    call.status = 'in-progress'
    call.startedAt = iso(now)
    call.updatedAt = iso(now)
    const maxSeconds = Number(call.assistantOverrides?.maxDurationSeconds ?? DEFAULT_MAX_DURATION_SECONDS)
    session.maxTimer = this.#timers.setTimeout(() => this.#end(session, 'exceeded-max-duration'), maxSeconds * 1000 * session.settings.maxDurationScale)
    this.#send(session, { type: 'status-update', status: 'in-progress' })
    const greeting = this.#greeting(session)
    if (!session.settings.echo && greeting) this.#enqueueTurn(session, greeting, session.settings.greetingFrames)
    for (const resolve of this.#connectionWaiters.splice(0)) resolve(call.id)
    this.#notify(session)
  }

  #greeting(session: Session): string {
    const overrides = session.call.assistantOverrides ?? {}
    if (overrides.firstMessageMode === 'assistant-waits-for-user') return ''
    const variables = overrides.variableValues ?? {}
    const configured = session.settings.greeting ?? (typeof overrides.firstMessage === 'string' ? overrides.firstMessage : undefined)
    if (configured !== undefined) return fill(configured, variables)
    return fill(DEFAULT_GREETING, { ...variables, firstName: variables.firstName || 'there' })
  }

  /**
   * Ends a call: the record ends (duration from the fake's clock, $0.12 a minute, an artifact of
   * what was said, a structured output and summary once two messages were said); an open socket
   * gets status-update ended and a close frame (or, `drop`, none); then the webhooks
   * status-update ended and end-of-call-report.
   */
  #end(session: Session, endedReason: string, options: { drop?: boolean; code?: number; closeReason?: string } = {}): void {
    const { stats, call } = session
    if (stats.state === 'ended') return
    stats.state = 'ended'
    stats.endedReason = endedReason
    this.#stopTimers(session)
    session.current?.stop()

    const now = this.#host.now().getTime()
    const started = call.startedAt ? Date.parse(call.startedAt) : undefined
    const durationMs = started !== undefined ? Math.max(0, now - started) : 0
    const cost = Math.round((durationMs / 60000) * 0.12 * 10000) / 10000
    const variables = call.assistantOverrides?.variableValues ?? {}
    const report = session.log.length >= 2 ? defaultCoachingReport(variables) : undefined
    call.status = 'ended'
    call.endedReason = endedReason
    call.endedAt = iso(now)
    call.updatedAt = iso(now)
    call.cost = cost
    call.costs = cost > 0 ? [{ type: 'vapi', minutes: durationMs / 60000, cost }] : []
    call.artifact = {
      messages: structuredClone(session.log),
      messagesOpenAIFormatted: structuredClone(session.openAi),
      transcript: session.log.map((item) => `${item.role === 'user' ? 'User' : item.role === 'system' ? 'System' : 'AI'}: ${item.message}`).join('\n'),
      ...(report ? { structuredOutputs: { [this.#calls.structuredOutputId]: { name: 'coaching_call_report', result: report } } } : {}),
      variableValues: variables,
    }
    call.analysis = report ? { summary: report.summary } : {}
    call.messages = structuredClone(session.log)

    const ws = session.socket
    if (ws && ws.readyState === WebSocket.OPEN) {
      if (options.drop) {
        stats.closedBy = 'drop'
        ws.terminate()
      } else {
        this.#send(session, { type: 'status-update', status: 'ended', endedReason }, false)
        stats.closedBy = 'fake'
        stats.closeCode = options.code ?? 1000
        stats.closeReason = options.closeReason ?? 'Call ended'
        ws.close(stats.closeCode, stats.closeReason)
      }
    }
    void this.#calls.emit(call.id, [
      serverMessage(call, now, 'status-update', { status: 'ended', endedReason }),
      serverMessage(call, now, 'end-of-call-report', {
        endedReason,
        ...(call.startedAt ? { startedAt: call.startedAt } : {}),
        endedAt: call.endedAt,
        durationSeconds: durationMs / 1000,
        durationMs,
        cost,
        costs: call.costs,
        artifact: call.artifact,
        analysis: call.analysis,
      }),
    ])
    session.resolveEnded(endedReason)
    this.#notify(session)
  }

  /** DELETE /call/:id ended the record (and sent its status-update): close the socket too. */
  #deleted(call: FakeCall): void {
    const session = this.#sessions.get(call.id)
    if (!session || session.stats.state === 'ended') return
    session.stats.state = 'ended'
    session.stats.endedReason = call.endedReason
    this.#stopTimers(session)
    session.current?.stop()
    const ws = session.socket
    if (ws && ws.readyState === WebSocket.OPEN) {
      this.#send(session, { type: 'status-update', status: 'ended', endedReason: call.endedReason }, false)
      session.stats.closedBy = 'fake'
      session.stats.closeCode = 1000
      session.stats.closeReason = 'Call deleted'
      ws.close(1000, 'Call deleted')
    }
    session.resolveEnded(call.endedReason ?? 'call-deleted')
    this.#notify(session)
  }

  #closed(session: Session, code: number, reason: string): void {
    const { stats } = session
    if (stats.closedBy === undefined) {
      stats.closedBy = 'client'
      stats.closeCode = code
      stats.closeReason = reason
    }
    if (stats.state !== 'ended') this.#end(session, session.settings.clientCloseEndedReason)
    this.#notify(session)
  }

  #stopTimers(session: Session): void {
    if (session.joinTimer !== undefined) this.#timers.clearTimeout(session.joinTimer)
    if (session.maxTimer !== undefined) this.#timers.clearTimeout(session.maxTimer)
    session.joinTimer = undefined
    session.maxTimer = undefined
  }

  #notify(session: Session): void {
    for (const listener of [...session.listeners]) listener()
  }

  // ---- sending -------------------------------------------------------------------------------

  /** Sends a JSON message on the socket (if open) and, `mirror`, as a server message too. */
  #send(session: Session, message: Record<string, unknown>, mirror = true): void {
    const ws = session.socket
    if (ws && ws.readyState === WebSocket.OPEN) {
      ws.send(JSON.stringify(message))
      session.stats.sent.push(message)
    }
    if (mirror && MIRRORED.has(String(message.type))) {
      void this.#calls.emit(session.call.id, [serverMessage(session.call, this.#host.now().getTime(), String(message.type), Object.fromEntries(Object.entries(message).filter(([key]) => key !== 'type')))])
    }
    this.#notify(session)
  }

  #sendFrame(session: Session): void {
    const frame = toneFrame(session.format, session.toneOffset, session.samplesPerFrame)
    session.toneOffset += session.samplesPerFrame
    if (session.stats.assistantMuted && session.settings.honourAssistantMute) {
      session.stats.framesMuted += 1
    } else if (session.socket?.readyState === WebSocket.OPEN) {
      session.socket.send(frame, { binary: true })
      session.stats.bytesOut += frame.length
      session.stats.framesOut += 1
    }
    this.#notify(session)
  }

  /** Adds a message to the call's log (artifact.messages) and sends conversation-update. */
  #log(session: Session, role: 'assistant' | 'user' | 'system', text: string): void {
    const now = this.#host.now().getTime()
    const started = session.call.startedAt ? Date.parse(session.call.startedAt) : now
    const logRole = role === 'assistant' ? this.#calls.botRole : role
    session.log.push({ role: logRole, message: text, time: now, endTime: now, secondsFromStart: (now - started) / 1000, duration: 0, ...(role === 'assistant' ? { source: '' } : {}) })
    session.openAi.push({ role, content: text })
    this.#send(session, { type: 'conversation-update', messages: structuredClone(session.log), messagesOpenAIFormatted: structuredClone(session.openAi) })
  }

  /** Queues an assistant turn after the ones queued; `endedReason`: end the call once it was spoken. */
  #enqueueTurn(session: Session, text: string, frames: number, endedReason?: string): void {
    session.pending += 1
    session.queue = session.queue
      .then(async () => {
        const turn = await this.#speak(session, text, frames)
        if (endedReason && turn && !turn.interrupted) this.#end(session, endedReason)
      })
      .catch(() => {})
      .finally(() => {
        session.pending -= 1
        this.#notify(session)
      })
  }

  /**
   * One assistant turn: speech-update started, transcript partial then final, `frames` tone frames
   * paced at frameIntervalMs, speech-update stopped. An interruption stops the frames.
   */
  async #speak(session: Session, text: string, frames: number): Promise<Turn | undefined> {
    if (session.stats.state !== 'open') return undefined
    let stop = () => {}
    const stopped = new Promise<void>((resolve) => (stop = resolve))
    const turn: Turn = { id: randomUUID(), turn: (session.turnCounter += 1), interrupted: false, done: false, stop, stopped }
    session.current = turn
    session.stats.assistantTurns += 1
    const live = () => !turn.interrupted && session.stats.state === 'open'
    this.#send(session, { type: 'speech-update', status: 'started', role: 'assistant', turn: turn.turn })
    this.#send(session, { type: 'transcript', role: 'assistant', transcriptType: 'partial', transcript: firstHalf(text) })
    this.#send(session, { type: 'transcript', role: 'assistant', transcriptType: 'final', transcript: text })
    this.#log(session, 'assistant', text)
    const interval = session.settings.frameIntervalMs
    let start = performance.now()
    for (let i = 0; i < frames && live(); i += 1) {
      this.#sendFrame(session)
      if (this.#audioHold && i === this.#audioHold.afterFrames - 1) {
        await Promise.race([this.#audioHold.promise, stopped])
        start = performance.now() - interval
      }
      if (i === frames - 1) break
      if (interval > 0) {
        const wait = start + (i + 1) * interval - performance.now()
        if (wait > 0) await Promise.race([sleep(wait), stopped])
      } else if (i % 50 === 49) {
        await new Promise((resolve) => setImmediate(resolve))
      }
    }
    turn.done = true
    if (session.current === turn) session.current = undefined
    if (session.stats.state === 'open') this.#send(session, { type: 'speech-update', status: 'stopped', role: 'assistant', turn: turn.turn })
    return turn
  }

  /** Cuts the reply being streamed: user-interrupted (hook, or the setting) and no more frames. */
  #interrupt(session: Session, hook: boolean): boolean {
    const turn = session.current
    if (!turn || turn.done || turn.interrupted || session.stats.state !== 'open') return false
    turn.interrupted = true
    session.stats.interruptions += 1
    if (hook || session.settings.userInterrupted) this.#send(session, { type: 'user-interrupted', turnId: turn.id })
    turn.stop()
    return true
  }

  // ---- receiving -----------------------------------------------------------------------------

  #audio(session: Session, frame: Buffer): void {
    const { stats, settings, format } = session
    if (stats.state !== 'open') return
    if (format.format === 'pcm_s16le' && frame.length % 2 !== 0) {
      stats.ignored.push({ binaryBytes: frame.length })
      this.#end(session, BAD_AUDIO_REASON, { code: 1007, closeReason: 'PCM16 frames hold whole samples: an even number of bytes' })
      return
    }
    stats.bytesIn += frame.length
    stats.framesIn += 1
    if (settings.echo) {
      session.socket!.send(frame, { binary: true })
      stats.bytesOut += frame.length
      stats.framesOut += 1
      if (session.listeners.size > 0) this.#notify(session)
      return
    }
    if (!stats.customerMuted) {
      const samples = format.format === 'mulaw' ? frame.length : frame.length / 2
      const ms = (samples / format.sampleRate) * 1000
      if (level(frame, format.format) > settings.silenceThreshold) {
        session.silentMs = 0
        if (!session.userSpeaking) {
          session.voicedMs += ms
          if (session.voicedMs >= settings.speechMs) this.#userStarted(session)
        }
      } else if (session.userSpeaking) {
        session.silentMs += ms
        if (session.silentMs >= settings.silenceMs) this.#userStopped(session)
      } else {
        session.voicedMs = 0
      }
    }
    this.#notify(session)
  }

  #userStarted(session: Session): void {
    const transcripts = session.settings.userTranscripts
    session.userSpeaking = true
    session.voicedMs = 0
    session.silentMs = 0
    session.userText = transcripts[Math.min(session.stats.userTurns, transcripts.length - 1)] ?? DEFAULT_USER_TRANSCRIPT
    session.userTurn = session.turnCounter += 1
    session.stats.userTurns += 1
    this.#send(session, { type: 'speech-update', status: 'started', role: 'user', turn: session.userTurn })
    this.#send(session, { type: 'transcript', role: 'user', transcriptType: 'partial', transcript: firstHalf(session.userText) })
    this.#interrupt(session, false)
  }

  #userStopped(session: Session): void {
    session.userSpeaking = false
    session.voicedMs = 0
    session.silentMs = 0
    const text = session.userText
    this.#send(session, { type: 'transcript', role: 'user', transcriptType: 'final', transcript: text })
    this.#send(session, { type: 'speech-update', status: 'stopped', role: 'user', turn: session.userTurn })
    this.#log(session, 'user', text)
    const reply = session.settings.reply({ source: 'speech', text, role: 'user', call: session.call })
    this.#enqueueTurn(session, reply, session.settings.replyFrames)
  }

  #text(session: Session, raw: string, via: 'socket' | 'control'): void {
    let message: unknown
    try {
      message = JSON.parse(raw)
    } catch {
      session.stats.invalidText += 1
      session.stats.received.push({ via, message: raw })
      this.#notify(session)
      return
    }
    session.stats.received.push({ via, message })
    this.#command(session, message, via)
  }

  /** Acts on one inbound message (socket or control URL). */
  #command(session: Session, message: unknown, via: 'socket' | 'control'): void {
    const { stats, settings } = session
    if (stats.state === 'ended') return
    if (!isObject(message) || typeof message.type !== 'string') {
      stats.ignored.push(message)
      return this.#notify(session)
    }
    switch (message.type) {
      case 'say': {
        const content = typeof message.content === 'string' ? message.content : typeof message.message === 'string' ? message.message : ''
        if (!content) {
          stats.ignored.push(message)
          break
        }
        stats.says.push(content)
        if (!settings.echo) this.#enqueueTurn(session, content, settings.replyFrames, message.endCallAfterSpoken === true ? 'assistant-ended-call-after-message-spoken' : undefined)
        break
      }
      case 'add-message': {
        const added = message.message
        const role = isObject(added) ? added.role : undefined
        const content = isObject(added) ? added.content : undefined
        if ((role !== 'user' && role !== 'system' && role !== 'assistant') || typeof content !== 'string') {
          stats.ignored.push(message)
          break
        }
        const trigger = message.triggerResponseEnabled !== false
        stats.addMessages.push({ role, content, triggerResponseEnabled: trigger })
        if (stats.state === 'open') this.#log(session, role, content)
        if (trigger && !settings.echo && role !== 'assistant') {
          const reply = settings.reply({ source: 'add-message', text: content, role, call: session.call })
          this.#enqueueTurn(session, reply, settings.replyFrames)
        }
        break
      }
      case 'control': {
        const control = message.control
        if (typeof control !== 'string') {
          stats.ignored.push(message)
          break
        }
        stats.controls.push(control)
        if (control === 'mute-assistant') stats.assistantMuted = true
        if (control === 'unmute-assistant') stats.assistantMuted = false
        if (control === 'mute-customer' || control === 'unmute-customer') {
          stats.customerMuted = control === 'mute-customer'
          session.voicedMs = 0
          session.silentMs = 0
        }
        if (control === 'say-first-message' && !settings.echo) {
          const greeting = this.#greeting(session)
          if (greeting) this.#enqueueTurn(session, greeting, settings.greetingFrames)
        }
        break
      }
      case 'end-call':
      case 'hangup':
        stats.endCallReceived = via
        this.#end(session, via === 'control' ? settings.controlEndedReason : 'customer-ended-call')
        break
      default:
        stats.ignored.push(message)
    }
    this.#notify(session)
  }

  // ---- routes --------------------------------------------------------------------------------

  /** `POST /<callId>/control`: the monitor's control URL (no key needed, like Vapi's default). */
  #routes(): void {
    this.#host.app.post('/:callId/control', PUBLIC_ROUTE, async (request: FastifyRequest, reply: FastifyReply) => {
      const callId = (request.params as { callId: string }).callId
      const call = this.#calls.get(callId)
      if (!call || this.#calls.isDeleted(callId) || call.status === 'ended' || call.status === 'scheduled') return reply.code(404).send(vapiError(404, 'Call not found'))
      const problems = controlProblems(request.body)
      if (problems.length > 0) return reply.code(400).send(vapiError(400, problems))
      const message = request.body as Record<string, unknown>
      const log = this.#controls.get(callId) ?? []
      log.push(message)
      this.#controls.set(callId, log)
      const session = this.#sessions.get(callId)
      if (session) {
        session.stats.received.push({ via: 'control', message })
        this.#command(session, message, 'control')
      } else if (message.type === 'end-call') {
        this.#calls.endNow(callId, this.#settings.controlEndedReason)
      }
      return reply.code(200).send({ ok: true })
    })
  }

  #controlRoutes(): void {
    const app = this.#host.app
    const withSession =
      (handler: (session: Session, body: Record<string, unknown>, reply: FastifyReply) => unknown) => async (request: FastifyRequest, reply: FastifyReply) => {
        const session = this.#sessions.get((request.params as { id: string }).id)
        if (!session) return reply.code(404).send(vapiError(404, 'No WebSocket call with that id'))
        return handler(session, isObject(request.body) ? request.body : {}, reply)
      }
    app.post('/__fake/transport/settings', async (request, reply) => {
      const problems = settingsProblems(request.body)
      if (problems.length > 0) return reply.code(400).send(vapiError(400, problems))
      this.configure(fromHttp(request.body as Record<string, unknown>))
      const { reply: _reply, ...settings } = this.#settings
      return { ok: true, settings }
    })
    app.post('/__fake/transport/next', async (request, reply) => {
      const { settings, times } = (request.body ?? {}) as { settings?: unknown; times?: unknown }
      const problems = settingsProblems(settings)
      if (times !== undefined && (typeof times !== 'number' || !Number.isInteger(times) || times < 1)) problems.push('times must be a positive integer')
      if (problems.length > 0) return reply.code(400).send(vapiError(400, problems))
      this.configureNext(fromHttp(settings as Record<string, unknown>), (times as number | undefined) ?? 1)
      return { ok: true }
    })
    app.get('/__fake/transport/calls', async () => ({ calls: this.allStats() }))
    app.get('/__fake/transport/calls/:id', withSession((session) => structuredClone(session.stats)))
    app.get('/__fake/transport/controls/:id', async (request) => ({ messages: this.controlMessages((request.params as { id: string }).id) }))
    app.post(
      '/__fake/transport/calls/:id/settings',
      withSession((session, body, reply) => {
        const problems = settingsProblems(body)
        if (problems.length > 0) return reply.code(400).send(vapiError(400, problems))
        this.configureCall(session.call.id, fromHttp(body))
        return { ok: true }
      }),
    )
    app.post('/__fake/transport/calls/:id/end', withSession((session, body) => ({ ended: this.endCall(session.call.id, typeof body.endedReason === 'string' ? body.endedReason : undefined) })))
    app.post('/__fake/transport/calls/:id/drop', withSession((session) => ({ dropped: this.drop(session.call.id) })))
    app.post('/__fake/transport/calls/:id/interrupt', withSession((session) => ({ interrupted: this.interrupt(session.call.id) })))
    app.post('/__fake/transport/calls/:id/stall-reading', withSession((session) => ({ stalled: this.stallReading(session.call.id) })))
    app.post('/__fake/transport/calls/:id/resume-reading', withSession((session) => ({ resumed: this.resumeReading(session.call.id) })))
    app.post(
      '/__fake/transport/calls/:id/wait',
      withSession(async (session, body) => {
        const id = session.call.id
        if (body.until === 'connected') await this.connected(id)
        else if (body.until === 'ended') await this.ended(id)
        else await this.idle(id)
        return structuredClone(session.stats)
      }),
    )
    let held: { release: () => void } | undefined
    app.post('/__fake/transport/hold-audio', async (request, reply) => {
      const { afterFrames } = (isObject(request.body) ? request.body : {}) as { afterFrames?: unknown }
      if (afterFrames !== undefined && (typeof afterFrames !== 'number' || !Number.isInteger(afterFrames) || afterFrames < 1)) {
        return reply.code(400).send(vapiError(400, ['afterFrames must be a positive integer']))
      }
      held = this.holdAudio(afterFrames)
      return { ok: true }
    })
    app.post('/__fake/transport/release-audio', async () => {
      held?.release()
      held = undefined
      return { ok: true }
    })
  }
}

/** The 400 messages for a control URL body (Vapi's inbound message schema), empty when valid. */
function controlProblems(body: unknown): string[] {
  if (!isObject(body)) return ['body must be a JSON object']
  const { type } = body
  if (typeof type !== 'string' || !CONTROL_TYPES.includes(type)) return [`type must be one of the following values: ${CONTROL_TYPES.join(', ')}`]
  if (type === 'say' && !(typeof body.content === 'string' && body.content) && !(typeof body.message === 'string' && body.message)) return ['content must be a non-empty string']
  if (type === 'add-message') {
    const message = body.message
    if (!isObject(message)) return ['message must be an object']
    const problems: string[] = []
    if (!['user', 'system', 'assistant'].includes(String(message.role))) problems.push('message.role must be one of the following values: user, system, assistant')
    if (typeof message.content !== 'string') problems.push('message.content must be a string')
    if (body.triggerResponseEnabled !== undefined && typeof body.triggerResponseEnabled !== 'boolean') problems.push('triggerResponseEnabled must be a boolean value')
    return problems
  }
  if (type === 'control' && !CONTROL_VALUES.includes(String(body.control))) return [`control must be one of the following values: ${CONTROL_VALUES.join(', ')}`]
  return []
}
