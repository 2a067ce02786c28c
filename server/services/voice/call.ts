/**
 * One voice call: our row in coaching_calls, Vapi's call over its WebSocket transport, the audio
 * relayed both ways, Vapi's whitelisted messages mapped for the browser, the finals saved, and
 * every way it ends (docs/decisions/042). The browser's socket (a VoiceConnection) is reached
 * through `BrowserSide` only.
 *
 * The browser hears `status: connecting` once Vapi is asked for the call, `status: listening` once
 * its socket is open, and `ended` (with the conversation's id) once the call is over, if it heard
 * `connecting`; a start refused before that (another call live, not paid) is an `error` only.
 */
import { randomUUID } from 'node:crypto'
import type { Logger } from 'pino'
import type WebSocket from 'ws'
import type { RawData } from 'ws'
import { VOICE_CALL_MIN_SECONDS } from '#common/usage'
import { VOICE_END_REASONS, type VoiceEndReason, type VoiceServerMessage } from '#common/voice'
import type { VapiVoiceClient } from '#server/integrations/vapi-voice'
import { AppError } from '#server/lib/app-error'
import type { Clock, Timers } from '#server/lib/clock'
import type { OpenedWebCall } from '#server/services/calls'
import type { VoiceSettings } from './limits'
import type { VoiceLocks } from './locks'
import { mapVapiMessage, type UpstreamEvent } from './mapping'
import { AudioPump } from './pump'
import { VoiceRecorder, type VoiceConversations } from './recorder'

/** What a call needs of the calls service (its row, kept by the webhooks once Vapi has the call). */
export type WebCalls = {
  open(userId: string, maxDurationSeconds: number): Promise<OpenedWebCall>
  attach(callId: string, vapiCallId: string): Promise<void>
  fail(callId: string, status: 'failed' | 'cancelled', reason: string, detail: Record<string, unknown>): Promise<void>
  serverMessages: readonly string[]
}

/** Why a call ends when the time it was allowed is up: the ceiling of one call, or the plan's minutes for the month or the day. */
type VoiceLimitReason = Extract<VoiceEndReason, 'max-duration' | 'monthly-limit' | 'daily-limit'>

/** How long a call may run, why it would end then, and the local date its seconds count against. */
export type VoiceAllowance = { seconds: number; reason: VoiceLimitReason; localDate: string }

/**
 * The plan's budget of voice minutes in the app (services/usage, docs/decisions/061): asked before
 * each call (an AppError, USAGE_LIMIT_REACHED, when nothing is left), and told the call's seconds
 * as it goes (each count raises the call's, never adds to it).
 */
export type VoiceBudget = {
  voiceAllowance(userId: string): Promise<VoiceAllowance>
  countVoice(input: { callId: string; userId: string; localDate: string; seconds: number }): Promise<void>
}

/** A call's seconds are counted this often while it lives (what a server that dies mid-call can lose). */
const COUNT_EVERY_MS = 60_000

export type VoiceMetrics = {
  callsStarted: number
  callsEnded: Record<VoiceEndReason, number>
  /** Assistant audio frames dropped because a browser was behind (oldest first). */
  droppedToBrowser: number
  /** Browser audio frames dropped because Vapi's socket was behind (oldest first), live calls included. */
  droppedToVapi: number
  /** Vapi messages not relayed (types off the whitelist, unreadable). */
  ignoredUpstream: number
}

export const emptyMetrics = (): VoiceMetrics => ({
  callsStarted: 0,
  callsEnded: Object.fromEntries(VOICE_END_REASONS.map((reason) => [reason, 0])) as Record<VoiceEndReason, number>,
  droppedToBrowser: 0,
  droppedToVapi: 0,
  ignoredUpstream: 0,
})

/** Everything the calls share (the gateway builds it once). */
export type CallContext = {
  clock: Clock
  timers: Timers
  log: Logger
  vapi: VapiVoiceClient
  webCalls: WebCalls
  conversations: VoiceConversations
  budget: VoiceBudget
  locks: VoiceLocks
  settings: VoiceSettings
  firstMessage: string
  metrics: VoiceMetrics
}

/** The browser socket, as a call sees it. */
export type BrowserSide = {
  send(message: VoiceServerMessage): void
  /** Assistant audio (through the connection's pump: drop-oldest when the browser is behind). */
  audio(frame: Buffer): void
  /** The user interrupted: drop the assistant audio still queued for the browser. */
  interrupt(): void
  /** Whether the browser muted the assistant's voice. */
  readonly muted: boolean
  /** Assistant audio frames dropped so far on this socket because the browser was behind. */
  readonly dropped: number
  /** The call is over; `announced`: the browser heard `connecting` (it is then told `ended`). */
  ended(call: VoiceCall, reason: VoiceEndReason, conversationId: string | null, announced: boolean): void
}

type State = 'starting' | 'connecting' | 'live' | 'ending' | 'ended'

const END_CALL = JSON.stringify({ type: 'end-call' })

export class VoiceCall {
  readonly #ctx: CallContext
  readonly #browser: BrowserSide
  readonly #userId: string
  readonly #owner = randomUUID()
  readonly #recorder: VoiceRecorder
  #state: State = 'starting'
  #callId: string | null = null
  #vapiCallId: string | null = null
  #upstream: WebSocket | null = null
  #toVapi: AudioPump | null = null
  #locked = false
  #announced = false
  #assistantSpeaking = false
  #lastAudioAt = 0
  #liveAt = 0
  #droppedBefore = 0
  #allowance: VoiceAllowance | null = null
  /** When Vapi created the call (clock ms): its seconds count from here. */
  #billedFrom = 0
  #countTimer: unknown = null
  #endReason: VoiceEndReason | null = null
  #timers = new Set<unknown>()
  #upstreamCut: unknown = null
  #leaseTimer: unknown = null
  #finishing: Promise<void> | null = null
  #markUpstreamClosed: () => void = () => {}
  readonly #upstreamClosed = new Promise<void>((resolve) => (this.#markUpstreamClosed = resolve))
  #markDone: () => void = () => {}
  readonly #done = new Promise<void>((resolve) => (this.#markDone = resolve))

  readonly #conversationId: string | null

  /** `conversationId`: the conversation open when the call was started (the call is written there), or null for a new one. */
  constructor(ctx: CallContext, browser: BrowserSide, userId: string, conversationId: string | null = null) {
    this.#ctx = ctx
    this.#browser = browser
    this.#userId = userId
    this.#conversationId = conversationId
    this.#recorder = new VoiceRecorder(ctx.conversations, userId, (error) => this.#recordingFailed(error), conversationId)
  }

  get live(): boolean {
    return this.#state === 'live'
  }

  /** Starts the call: the conversation it was started from checked, the user's lock, our row, Vapi's call, its socket. Never throws. */
  async start(): Promise<void> {
    const ctx = this.#ctx
    try {
      if (this.#conversationId) {
        // Another user's conversation (or none) is "not found", before anything is spent.
        try {
          await ctx.conversations.check(this.#userId, this.#conversationId)
        } catch (error) {
          if (!(error instanceof AppError)) ctx.log.error({ err: error }, 'voice: could not read the conversation')
          return this.#refuse(error instanceof AppError ? error : new AppError('INTERNAL'))
        }
        if (this.#endReason) return void (await this.#finish())
      }
      if (!(await ctx.locks.acquire(this.#userId, this.#owner, ctx.settings.lockTtlMs))) return this.#refuse(new AppError('VOICE_SESSION_ACTIVE'))
      this.#locked = true
      this.#renewLease()
      if (this.#endReason) return void (await this.#finish())

      // What is left of the plan's minutes, read while the lease is held: no other call of the
      // person's spends meanwhile, on any server.
      let allowance: VoiceAllowance
      try {
        allowance = await ctx.budget.voiceAllowance(this.#userId)
      } catch (error) {
        if (!(error instanceof AppError)) ctx.log.error({ err: error }, 'voice: could not read the budget')
        return this.#refuse(error instanceof AppError ? error : new AppError('INTERNAL'))
      }
      this.#allowance = allowance
      if (this.#endReason) return void (await this.#finish())

      let opened: OpenedWebCall
      try {
        opened = await ctx.webCalls.open(this.#userId, allowance.seconds)
      } catch (error) {
        if (!(error instanceof AppError)) ctx.log.error({ err: error }, 'voice: could not record the call')
        return this.#refuse(error instanceof AppError ? error : new AppError('INTERNAL'))
      }
      this.#callId = opened.callId
      if (this.#endReason) {
        await this.#failRow('cancelled', 'ended-before-dial', {})
        return void (await this.#finish())
      }

      this.#announced = true
      this.#browser.send({ type: 'status', status: 'connecting' })
      const outcome = await ctx.vapi.createCall({
        callId: opened.callId,
        variableValues: opened.variableValues,
        firstMessage: ctx.firstMessage,
        maxDurationSeconds: opened.maxDurationSeconds,
        metadata: { callId: opened.callId, userId: this.#userId, kind: 'web' },
        server: opened.server,
        serverMessages: ctx.webCalls.serverMessages,
      })
      if (outcome.kind === 'failed') {
        const refused = outcome.status !== undefined && outcome.status < 500 && outcome.status !== 408
        ctx.log.error({ callId: opened.callId, status: outcome.status, vapiMessage: outcome.message }, 'voice: Vapi did not create the call')
        await this.#failRow('failed', outcome.reason ?? (refused ? `vapi-refused-${outcome.status}` : 'vapi-unconfirmed'), { status: outcome.status ?? null, message: outcome.message })
        this.#browser.send({ type: 'error', code: 'VOICE_UNAVAILABLE', message: new AppError('VOICE_UNAVAILABLE').message })
        this.#endReason ??= 'upstream-error'
        return void (await this.#finish())
      }
      this.#vapiCallId = outcome.vapiCallId
      ctx.metrics.callsStarted++
      // Vapi has the call: it costs from now, so it counts from now (at once its shortest length).
      this.#billedFrom = ctx.clock.now().getTime()
      this.#count()
      this.#armCount()
      await ctx.webCalls.attach(opened.callId, outcome.vapiCallId).catch((error: unknown) => {
        // The webhooks still find the row by our call id in the call's metadata.
        ctx.log.warn({ err: error, callId: opened.callId, vapiCallId: outcome.vapiCallId }, 'voice: could not record the Vapi call id')
      })
      // Ended meanwhile (the browser left): the socket still opens, to tell Vapi `end-call`.
      this.#connect(outcome.websocketCallUrl)
      if (this.#endReason) await this.#finish()
    } catch (error) {
      ctx.log.error({ err: error, callId: this.#callId }, 'voice: the call could not start')
      this.#endReason ??= 'upstream-error'
      await this.#finish()
    }
  }

  /** Audio from the browser (already checked against the caps), arrived `at` (clock ms): to Vapi while the call is live. */
  audioFromBrowser(frame: Buffer, at: number): void {
    if (this.#state !== 'live') return
    this.#lastAudioAt = at
    this.#toVapi!.push(frame)
  }

  /** A message the user typed into the call: the assistant answers by voice. False when not live. */
  typed(text: string): boolean {
    if (this.#state !== 'live') return false
    this.#sendUpstream({ type: 'add-message', message: { role: 'user', content: text }, triggerResponseEnabled: true })
    this.#recorder.typed(text)
    return true
  }

  /** The browser muted (or unmuted) the assistant's voice: Vapi is told too. */
  muted(muted: boolean): void {
    if (this.#state === 'live') this.#sendUpstream({ type: 'control', control: muted ? 'mute-assistant' : 'unmute-assistant' })
  }

  /**
   * Ends the call for `reason` (the first reason given stands): Vapi is told `end-call` unless it
   * ended the call itself, its socket is closed (cut after `upstreamCloseMs`), the conversation is
   * written (at most `flushTimeoutMs`), then the browser is told. Resolves once all that is done.
   */
  end(reason: VoiceEndReason): Promise<void> {
    this.#endReason ??= reason
    // While starting, start() finishes the end at its next step.
    if (this.#state !== 'starting') void this.#finish()
    return this.#done
  }

  /**
   * Counts the call's seconds so far (at least VOICE_CALL_MIN_SECONDS once Vapi has it, so a
   * script opening call after call spends too). A count that fails is logged: the next one, the
   * end's, or Vapi's billed duration makes it up.
   */
  #count(): Promise<void> {
    const ctx = this.#ctx
    if (!this.#billedFrom || !this.#callId || !this.#allowance) return Promise.resolve()
    const seconds = Math.max(VOICE_CALL_MIN_SECONDS, Math.ceil((ctx.clock.now().getTime() - this.#billedFrom) / 1000))
    return ctx.budget.countVoice({ callId: this.#callId, userId: this.#userId, localDate: this.#allowance.localDate, seconds }).catch((error: unknown) => {
      ctx.log.warn({ err: error, callId: this.#callId }, 'voice: could not count the call against the budget')
    })
  }

  /** While the call goes, its seconds are counted each COUNT_EVERY_MS (a server that dies loses at most that). */
  #armCount(): void {
    const ctx = this.#ctx
    this.#countTimer = ctx.timers.setTimeout(() => {
      this.#countTimer = null
      if (this.#state !== 'connecting' && this.#state !== 'live') return
      void this.#count()
      this.#armCount()
    }, COUNT_EVERY_MS)
  }

  /** The lease is renewed a third of its time before it lapses, for as long as the call holds it. */
  #renewLease(): void {
    const ctx = this.#ctx
    this.#leaseTimer = ctx.timers.setTimeout(() => {
      this.#leaseTimer = null
      if (!this.#locked) return
      ctx.locks.renew(this.#userId, this.#owner, ctx.settings.lockTtlMs).catch(() => {})
      this.#renewLease()
    }, Math.max(1000, Math.floor(ctx.settings.lockTtlMs / 3)))
  }

  #refuse(error: AppError): void {
    this.#browser.send({ type: 'error', code: error.code, message: error.message })
    this.#endReason ??= 'upstream-error'
    void this.#finish()
  }

  async #failRow(status: 'failed' | 'cancelled', reason: string, detail: Record<string, unknown>): Promise<void> {
    await this.#ctx.webCalls.fail(this.#callId!, status, reason, detail).catch((error: unknown) => {
      this.#ctx.log.warn({ err: error, callId: this.#callId }, 'voice: could not record the call that did not start')
    })
  }

  #connect(url: string): void {
    const ctx = this.#ctx
    this.#state = 'connecting'
    const socket = ctx.vapi.connect(url)
    this.#upstream = socket
    socket.binaryType = 'nodebuffer'
    this.#toVapi = new AudioPump(
      { send: (frame, done) => socket.send(frame, { binary: true }, done), buffered: () => socket.bufferedAmount },
      {
        highWaterBytes: () => ctx.settings.upstreamHighWaterBytes,
        maxQueuedBytes: () => ctx.settings.audioQueueBytes,
        // Counted as they happen, so the gateway's metrics show a call that is behind right now.
        onDrop: () => ctx.metrics.droppedToVapi++,
      },
    )
    socket.on('open', () => this.#opened())
    socket.on('message', (data, isBinary) => this.#fromVapi(data, isBinary))
    socket.on('error', (error: Error & { code?: string }) => {
      // Never the URL (it grants access to the call) nor the message (it may quote it): the code.
      ctx.log.warn({ callId: this.#callId, vapiCallId: this.#vapiCallId, code: error.code ?? error.name }, 'voice: the call socket failed')
    })
    socket.on('close', (code) => this.#upstreamGone(code))
  }

  #opened(): void {
    if (this.#state !== 'connecting') {
      // Ended while the socket opened: now Vapi can be told.
      this.#closeUpstream(true)
      return
    }
    const ctx = this.#ctx
    this.#state = 'live'
    this.#droppedBefore = this.#browser.dropped
    const now = ctx.clock.now().getTime()
    this.#liveAt = now
    this.#lastAudioAt = now
    this.#browser.send({ type: 'status', status: 'listening' })
    if (this.#browser.muted) this.muted(true)
    // The time it was allowed, from when Vapi created it: then it ends for the ceiling or the budget.
    const allowance = this.#allowance!
    this.#arm(Math.max(0, allowance.seconds * 1000 - (now - this.#billedFrom)), () => void this.end(allowance.reason))
    this.#armNoAudio(ctx.settings.noAudioMs)
  }

  /** No audio for `noAudioMs` ends the call; the timer re-arms for what is left after each frame. */
  #armNoAudio(ms: number): void {
    this.#arm(ms, () => {
      const left = this.#ctx.settings.noAudioMs - (this.#ctx.clock.now().getTime() - this.#lastAudioAt)
      if (left <= 0) void this.end('no-audio')
      else this.#armNoAudio(left)
    })
  }

  #arm(ms: number, fire: () => void): void {
    const handle = this.#ctx.timers.setTimeout(() => {
      this.#timers.delete(handle)
      if (this.#state === 'live') fire()
    }, ms)
    this.#timers.add(handle)
  }

  #fromVapi(data: RawData, isBinary: boolean): void {
    if (isBinary) {
      if (this.#state === 'live' && !this.#browser.muted) this.#browser.audio(data as Buffer)
      return
    }
    // Text is read while ending too: the last finals may come after `end-call`.
    if (this.#state !== 'live' && this.#state !== 'ending') return
    let message: unknown
    try {
      message = JSON.parse(data.toString())
    } catch {
      this.#ctx.metrics.ignoredUpstream++
      return
    }
    const events = mapVapiMessage(message, this.#assistantSpeaking)
    if (events.length === 0) this.#ctx.metrics.ignoredUpstream++
    for (const event of events) this.#apply(event)
  }

  #apply(event: UpstreamEvent): void {
    switch (event.kind) {
      case 'live':
        return
      case 'ended':
        if (this.#state !== 'live') return
        this.#ctx.log.info({ callId: this.#callId, vapiCallId: this.#vapiCallId, endedReason: event.endedReason }, 'voice: Vapi ended the call')
        // Vapi's own limit is the time the call was allowed: the budget's end when the budget set it.
        this.#endReason ??= event.reason === 'max-duration' && this.#allowance ? this.#allowance.reason : event.reason
        void this.#finish(true)
        return
      case 'relay': {
        const message = event.message
        if (message.type === 'speech' && message.role === 'assistant') this.#assistantSpeaking = message.status === 'started'
        if (message.type === 'interrupted') {
          this.#assistantSpeaking = false
          this.#browser.interrupt()
        }
        this.#browser.send(message)
        return
      }
      case 'final':
        if (event.role === 'user') this.#recorder.userFinal(event.text)
        else this.#recorder.assistantFinal(event.text)
        return
    }
  }

  #sendUpstream(message: Record<string, unknown>): void {
    const socket = this.#upstream
    if (socket && socket.readyState === socket.OPEN) socket.send(JSON.stringify(message))
  }

  /** Vapi's socket closed: the call is over (for the reason Vapi gave, else by how it closed). */
  #upstreamGone(code: number): void {
    if (this.#upstreamCut !== null) this.#ctx.timers.clearTimeout(this.#upstreamCut)
    this.#upstreamCut = null
    this.#toVapi?.close()
    this.#markUpstreamClosed()
    if (this.#state === 'connecting' || this.#state === 'live') {
      this.#endReason ??= code === 1000 || code === 1005 ? 'assistant-ended' : 'upstream-error'
      void this.#finish(true)
    }
  }

  /** Says `end-call` (unless Vapi ended the call) and closes Vapi's socket, cut if it lingers. */
  #closeUpstream(sayEnd: boolean): void {
    const socket = this.#upstream
    if (!socket || socket.readyState === socket.CLOSED) {
      this.#markUpstreamClosed()
      return
    }
    this.#toVapi?.close()
    if (socket.readyState === socket.OPEN) {
      if (sayEnd) socket.send(END_CALL)
      socket.close(1000)
    }
    // Still CONNECTING: #opened says `end-call` when it opens. Either way it is cut if it lingers.
    this.#upstreamCut ??= this.#ctx.timers.setTimeout(() => {
      this.#upstreamCut = null
      socket.terminate()
      this.#markUpstreamClosed()
    }, this.#ctx.settings.upstreamCloseMs)
  }

  /**
   * The end, once: the caps' timers off, Vapi told and its socket closed, the lock released, the
   * conversation written, the browser told. `byVapi`: Vapi ended the call (no `end-call`).
   */
  #finish(byVapi = false): Promise<void> {
    if (this.#finishing) return this.#finishing
    const reason = (this.#endReason ??= 'upstream-error')
    this.#state = 'ending'
    this.#finishing = (async () => {
      const ctx = this.#ctx
      for (const handle of this.#timers) ctx.timers.clearTimeout(handle)
      this.#timers.clear()
      if (this.#countTimer !== null) ctx.timers.clearTimeout(this.#countTimer)
      this.#countTimer = null
      // Its seconds up to now (Vapi is told to end it now), counted before the lease goes, so the
      // person's next call, on any server, reads them.
      const counted = this.#count()
      this.#closeUpstream(!byVapi)
      if (this.#leaseTimer !== null) ctx.timers.clearTimeout(this.#leaseTimer)
      this.#leaseTimer = null
      await this.#bounded(counted, ctx.settings.flushTimeoutMs)
      if (this.#locked) {
        this.#locked = false
        await ctx.locks.release(this.#userId, this.#owner).catch(() => {})
      }
      await this.#bounded(this.#upstreamClosed, ctx.settings.upstreamCloseMs)
      await this.#bounded(this.#recorder.flush(), ctx.settings.flushTimeoutMs)
      this.#state = 'ended'
      if (this.#announced) ctx.metrics.callsEnded[reason]++
      if (this.#vapiCallId) {
        ctx.log.info(
          {
            callId: this.#callId,
            vapiCallId: this.#vapiCallId,
            reason,
            liveMs: this.#liveAt ? ctx.clock.now().getTime() - this.#liveAt : 0,
            droppedToVapi: this.#toVapi?.dropped ?? 0,
            droppedToBrowser: this.#liveAt ? this.#browser.dropped - this.#droppedBefore : 0,
          },
          'voice: call ended',
        )
      }
      this.#browser.ended(this, reason, this.#recorder.conversationId, this.#announced)
      this.#markDone()
    })()
    return this.#finishing
  }

  /** Waits for `work`, at most `ms` on the clock. */
  #bounded(work: Promise<void>, ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const handle = this.#ctx.timers.setTimeout(resolve, ms)
      void work.finally(() => {
        this.#ctx.timers.clearTimeout(handle)
        resolve()
      })
    })
  }

  #recordingFailed(error: unknown): void {
    const known = error instanceof AppError ? error : null
    if (!known) this.#ctx.log.error({ err: error, callId: this.#callId }, 'voice: could not save the conversation')
    this.#browser.send({ type: 'error', code: known?.code ?? 'INTERNAL', message: known?.message ?? new AppError('INTERNAL').message })
  }
}
