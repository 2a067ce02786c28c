/**
 * One browser socket of the voice gateway (`GET /api/voice`, already authenticated, paid and
 * same-origin): the caps on what it sends, its heartbeat and session checks, and the protocol's
 * messages dispatched to the voice call it holds (at most one at a time) or to the live phone-call
 * seam. Audio toward it goes through a pump: when it is behind, the oldest assistant audio is
 * dropped, never the newest, and never into an unbounded buffer.
 */
import { randomUUID } from 'node:crypto'
import type WebSocket from 'ws'
import type { RawData } from 'ws'
import {
  VOICE_MAX_BINARY_FRAME_BYTES,
  VOICE_MAX_TEXT_FRAME_BYTES,
  VOICE_MAX_AUDIO_RATE,
  VOICE_PROTOCOL_VERSION,
  VoiceClientMessageSchema,
  type VoiceClientMessage,
  type VoiceEndReason,
  type VoiceServerMessage,
} from '#common/voice'
import { AppError } from '#server/lib/app-error'
import type { Clock, Timers } from '#server/lib/clock'
import { VoiceCall, type BrowserSide, type CallContext } from './call'
import { AUDIO_BYTES_PER_MS, audioBurstBytes, TokenBucket, type VoiceSettings } from './limits'
import { AudioPump } from './pump'

/** Close codes (RFC 6455 §7.4.1). */
export const CLOSE = {
  normal: 1000,
  goingAway: 1001,
  invalidData: 1007,
  policy: 1008,
  tooBig: 1009,
} as const

/** The live phone-call part of the protocol (`watch-calls`, `end-phone-call`): services/call-watch. */
export type PhoneCallWatch = {
  /** Subscribes the socket to the user's phone calls; returns the unsubscribe. */
  watch(userId: string, send: (message: VoiceServerMessage) => void): () => void
  endPhoneCall(userId: string, callId: string): Promise<void>
}

/** What a connection gets from the gateway. */
type ConnectionEnv = {
  clock: Clock
  timers: Timers
  settings: VoiceSettings
  /** What voice calls need; undefined when Vapi is not configured (`start` is refused). */
  calls: CallContext | undefined
  phoneCalls: PhoneCallWatch
  sessionIsLive(sessionId: string): Promise<boolean>
  /** The socket is still there (each heartbeat): its address's slot is kept. */
  heartbeat(connection: VoiceConnection): void
  /** The socket closed (the gateway forgets it, and frees its address's slot). */
  closed(connection: VoiceConnection): void
}

/** Whose socket it is, and the slot it holds (`admit`: one of its client network's and one of its person's). */
export type Who = { userId: string; sessionId: string; ip: string; slot: string }

export class VoiceConnection implements BrowserSide {
  readonly id = randomUUID()
  readonly userId: string
  readonly sessionId: string
  readonly ip: string
  readonly slot: string
  readonly #env: ConnectionEnv
  readonly #socket: WebSocket
  readonly #frames: TokenBucket
  readonly #texts: TokenBucket
  readonly #audio: TokenBucket
  readonly #toBrowser: AudioPump
  #call: VoiceCall | null = null
  #muted = false
  #closing = false
  #gone = false
  #awaitingPong = false
  #heartbeat: unknown = null
  #sessionCheck: unknown = null
  #unwatch: (() => void) | null = null
  #closedDone: () => void = () => {}
  /** Resolves once the socket is closed. */
  readonly done = new Promise<void>((resolve) => (this.#closedDone = resolve))

  constructor(env: ConnectionEnv, socket: WebSocket, who: Who) {
    this.#env = env
    this.#socket = socket
    this.userId = who.userId
    this.sessionId = who.sessionId
    this.ip = who.ip
    this.slot = who.slot
    const { settings } = env
    const now = env.clock.now().getTime()
    this.#frames = new TokenBucket(settings.frameBurst, settings.framesPerSecond / 1000, now)
    this.#texts = new TokenBucket(settings.textBurst, settings.textPerSecond / 1000, now)
    this.#audio = new TokenBucket(audioBurstBytes(settings), AUDIO_BYTES_PER_MS * VOICE_MAX_AUDIO_RATE, now)
    this.#toBrowser = new AudioPump(
      { send: (frame, done) => socket.send(frame, { binary: true }, done), buffered: () => socket.bufferedAmount },
      { highWaterBytes: () => settings.browserHighWaterBytes, maxQueuedBytes: () => settings.audioQueueBytes },
    )
  }

  get muted(): boolean {
    return this.#muted
  }

  /** Assistant audio frames dropped because this browser was behind. */
  get dropped(): number {
    return this.#toBrowser.dropped
  }

  /** Says hello and starts listening, the heartbeat and the session checks. */
  open(): void {
    const socket = this.#socket
    socket.binaryType = 'nodebuffer'
    socket.on('message', (data, isBinary) => this.#onMessage(data, isBinary))
    socket.on('pong', () => (this.#awaitingPong = false))
    socket.on('close', () => this.#onClose())
    // Errors (a frame over the size limit: ws closes with 1009 itself) end in 'close'.
    socket.on('error', () => {})
    this.send({ type: 'hello', v: VOICE_PROTOCOL_VERSION })
    this.#armHeartbeat(this.#env.settings.heartbeatMs)
    this.#armSessionCheck(this.#env.settings.sessionCheckMs)
  }

  send(message: VoiceServerMessage): void {
    if (this.#gone || this.#socket.readyState !== this.#socket.OPEN) return
    this.#socket.send(JSON.stringify(message))
  }

  audio(frame: Buffer): void {
    if (this.#gone || this.#closing) return
    this.#toBrowser.push(frame)
  }

  interrupt(): void {
    this.#toBrowser.clear()
  }

  ended(call: VoiceCall, reason: VoiceEndReason, conversationId: string | null, announced: boolean): void {
    if (this.#call === call) this.#call = null
    this.#toBrowser.clear()
    if (announced) this.send({ type: 'ended', reason, conversationId })
  }

  /**
   * Ends the socket: its call first (the browser is told `ended` with `reason`), then the close
   * with `code`; cut if the browser does not answer the close within `browserCloseMs`.
   */
  async close(code: number, reason: VoiceEndReason, text = reason): Promise<void> {
    if (this.#closing || this.#gone) return this.done
    this.#closing = true
    this.#stopTimers()
    const call = this.#call
    if (call) {
      // Bounded: a call still being created waits for Vapi's answer (up to its 15 s limit), longer
      // than a shutdown may; it is ended when the answer comes, the browser told by the close.
      const { timers, settings } = this.#env
      await new Promise<void>((resolve) => {
        const bound = timers.setTimeout(resolve, settings.upstreamCloseMs + settings.flushTimeoutMs)
        void call.end(reason).finally(() => {
          timers.clearTimeout(bound)
          resolve()
        })
      })
    }
    if (!this.#gone) {
      this.#socket.close(code, text)
      const { timers } = this.#env
      const cut = timers.setTimeout(() => this.#socket.terminate(), this.#env.settings.browserCloseMs)
      void this.done.then(() => timers.clearTimeout(cut))
    }
    return this.done
  }

  /** A cap broken: the socket closes with `code` at once (the call, if any, ends as 'disconnected'). */
  #violation(code: number, text: string): void {
    if (this.#closing || this.#gone) return
    this.#closing = true
    this.#stopTimers()
    this.#socket.close(code, text)
    void this.#call?.end('disconnected')
  }

  #onMessage(data: RawData, isBinary: boolean): void {
    if (this.#closing || this.#gone) return
    // Anything from the browser shows it is there, as a pong does.
    this.#awaitingPong = false
    const now = this.#env.clock.now().getTime()
    if (!this.#frames.take(1, now)) return this.#violation(CLOSE.policy, 'message budget exceeded')
    const frame = data as Buffer
    if (isBinary) {
      if (frame.length > VOICE_MAX_BINARY_FRAME_BYTES) return this.#violation(CLOSE.tooBig, 'audio frame too large')
      if (!this.#audio.take(frame.length, now)) return this.#violation(CLOSE.policy, 'audio faster than real time')
      if (frame.length % 2 !== 0) return this.#violation(CLOSE.invalidData, 'audio is PCM16')
      this.#call?.audioFromBrowser(frame, now)
      return
    }
    if (frame.length > VOICE_MAX_TEXT_FRAME_BYTES) return this.#violation(CLOSE.tooBig, 'message too large')
    if (!this.#texts.take(1, now)) return this.#violation(CLOSE.policy, 'message budget exceeded')
    let json: unknown
    try {
      json = JSON.parse(frame.toString('utf8'))
    } catch {
      return this.#error(new AppError('VALIDATION_FAILED', 'Each text frame is one JSON message.'))
    }
    const parsed = VoiceClientMessageSchema.safeParse(json)
    if (!parsed.success) {
      const issue = parsed.error.issues[0]
      const field = issue?.path.map(String).join('.') || 'type'
      return this.#error(new AppError('VALIDATION_FAILED', `${field}: ${issue?.message ?? 'Invalid message'}`, { field }))
    }
    this.#dispatch(parsed.data)
  }

  #dispatch(message: VoiceClientMessage): void {
    switch (message.type) {
      case 'start': {
        if (!this.#env.calls) return this.#error(new AppError('VOICE_NOT_CONFIGURED'))
        if (this.#call) return this.#error(new AppError('VOICE_SESSION_ACTIVE'))
        const call = new VoiceCall(this.#env.calls, this, this.userId, message.conversationId ?? null)
        this.#call = call
        void call.start()
        return
      }
      case 'end':
        if (!this.#call) return this.#error(new AppError('VOICE_NOT_ACTIVE'))
        void this.#call.end('user-ended')
        return
      case 'text':
        if (!this.#call?.typed(message.text)) this.#error(new AppError('VOICE_NOT_ACTIVE'))
        return
      case 'mute':
        this.#muted = message.muted
        if (message.muted) this.#toBrowser.clear()
        this.#call?.muted(message.muted)
        return
      case 'watch-calls': {
        this.#unwatch ??= this.#env.phoneCalls.watch(this.userId, (event) => this.send(event))
        return
      }
      case 'end-phone-call': {
        this.#env.phoneCalls.endPhoneCall(this.userId, message.callId).catch((error: unknown) => this.#error(error instanceof AppError ? error : new AppError('INTERNAL')))
        return
      }
    }
  }

  #error(error: AppError): void {
    this.send({ type: 'error', code: error.code, message: error.message })
  }

  /** A ping each `heartbeatMs`; no pong since the last one: the browser is gone. */
  #armHeartbeat(ms: number): void {
    const { timers } = this.#env
    this.#heartbeat = timers.setTimeout(() => {
      this.#heartbeat = null
      if (this.#closing || this.#gone) return
      if (this.#awaitingPong) {
        this.#socket.terminate()
        return
      }
      this.#awaitingPong = true
      this.#socket.ping()
      this.#env.heartbeat(this)
      this.#armHeartbeat(ms)
    }, ms)
  }

  /** Each `sessionCheckMs`: a session signed out elsewhere (another server) closes the socket. */
  #armSessionCheck(ms: number): void {
    const { timers } = this.#env
    this.#sessionCheck = timers.setTimeout(() => {
      this.#sessionCheck = null
      if (this.#closing || this.#gone) return
      this.#env
        .sessionIsLive(this.sessionId)
        .then((live) => {
          if (!live) return this.close(CLOSE.normal, 'signed-out')
          this.#armSessionCheck(ms)
        })
        .catch(() => this.#armSessionCheck(ms))
    }, ms)
  }

  #stopTimers(): void {
    const { timers } = this.#env
    if (this.#heartbeat !== null) timers.clearTimeout(this.#heartbeat)
    if (this.#sessionCheck !== null) timers.clearTimeout(this.#sessionCheck)
    this.#heartbeat = null
    this.#sessionCheck = null
  }

  /** The socket closed (the browser left, or our close completed): its call ends, within bounds. */
  #onClose(): void {
    if (this.#gone) return
    this.#gone = true
    this.#stopTimers()
    this.#toBrowser.close()
    this.#unwatch?.()
    this.#unwatch = null
    this.#env.closed(this)
    // Ends at once (Vapi is told at once); its bounded waits need not hold the socket's close.
    void this.#call?.end('disconnected')
    this.#closedDone()
  }
}
