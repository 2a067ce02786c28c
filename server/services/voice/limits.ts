import { VOICE_FRAME_BYTES, VOICE_FRAME_MS, VOICE_IDLE_TIMEOUT_MS, VOICE_MAX_AUDIO_RATE, VOICE_SAMPLE_RATE } from '#common/voice'

/**
 * The gateway's limits (docs/decisions/042). The protocol's own caps (frame sizes, the audio rate,
 * the idle timeout) are in common/voice.ts; these are the server's policy. Tests may change a
 * gateway's settings (`services.voice.settings`).
 */
export type VoiceSettings = {
  /** Sockets open at once from one client network (an IPv4 address, an IPv6 /64), across every server (more: 429 before the upgrade). */
  connectionsPerIp: number
  /** Sockets open at once of one person, whatever their addresses, across every server (more: 429 before the upgrade). */
  connectionsPerUser: number
  /** How long an upgrade may take once its address's slot is taken (then the slot is released). */
  upgradeMs: number
  /** Frames of any kind a socket may send: per second sustained, and the burst (more: close 1008). */
  framesPerSecond: number
  frameBurst: number
  /** Text frames (JSON messages) a socket may send: per second sustained, and the burst. */
  textPerSecond: number
  textBurst: number
  /** How far ahead of real time audio may arrive in a burst (beyond it, the 1.5× rate applies). */
  audioBurstMs: number
  /** A voice call that hears no audio this long ends ('no-audio'). */
  noAudioMs: number
  /** A ping every so often; a socket that did not answer the last one is gone ('disconnected'). */
  heartbeatMs: number
  /** How often a socket checks that its session still stands (a sign-out on another server). */
  sessionCheckMs: number
  /** After `end-call`, how long Vapi may take to close its socket before it is cut. */
  upstreamCloseMs: number
  /** How long a closing browser socket may take before it is cut. */
  browserCloseMs: number
  /** A socket whose unsent bytes exceed this is behind: audio for it queues, oldest dropped first. */
  browserHighWaterBytes: number
  upstreamHighWaterBytes: number
  /** The most audio queued for a socket that is behind (per direction). */
  audioQueueBytes: number
  /** The per-user voice call lease (renewed each third of it while the call lives; lapses if its server dies). */
  lockTtlMs: number
  /** How long the end of a call waits for its conversation to be written before saying `ended`. */
  flushTimeoutMs: number
}

/** Audio bytes per millisecond of real time (PCM16 mono 16 kHz: 32). */
export const AUDIO_BYTES_PER_MS = (VOICE_SAMPLE_RATE / 1000) * 2

export const defaultVoiceSettings = (): VoiceSettings => ({
  connectionsPerIp: 10,
  // A person's tabs: the dashboard holds one socket (its live card), a voice call in the chat another.
  connectionsPerUser: 8,
  upgradeMs: 10_000,
  // Audio alone is 50 frames a second; twice that leaves room for jitter and the JSON messages.
  framesPerSecond: (1000 / VOICE_FRAME_MS) * 2,
  frameBurst: 200,
  textPerSecond: 5,
  textBurst: 20,
  audioBurstMs: 1000,
  noAudioMs: VOICE_IDLE_TIMEOUT_MS,
  heartbeatMs: 30_000,
  sessionCheckMs: 60_000,
  upstreamCloseMs: 2000,
  browserCloseMs: 2000,
  // One second of audio unsent, then half a second queued at most: late audio is worth less than none.
  browserHighWaterBytes: AUDIO_BYTES_PER_MS * 1000,
  upstreamHighWaterBytes: AUDIO_BYTES_PER_MS * 1000,
  audioQueueBytes: AUDIO_BYTES_PER_MS * 500,
  lockTtlMs: 90_000,
  flushTimeoutMs: 2000,
})

/** The most audio bytes a burst may carry: `audioBurstMs` of audio at the allowed rate. */
export const audioBurstBytes = (settings: VoiceSettings) => Math.max(VOICE_FRAME_BYTES, settings.audioBurstMs * AUDIO_BYTES_PER_MS * VOICE_MAX_AUDIO_RATE)

/**
 * A token bucket on the injected clock: `capacity` tokens, refilled at `perMs` a millisecond.
 * `take(n, at)` is false when fewer than n are left (the caller closes the socket); `at` is the
 * clock's time in ms, read once per message by the caller (every audio frame passes two buckets).
 */
export class TokenBucket {
  #tokens: number
  #last: number
  readonly #capacity: number
  readonly #perMs: number

  constructor(capacity: number, perMs: number, at: number) {
    this.#capacity = capacity
    this.#perMs = perMs
    this.#tokens = capacity
    this.#last = at
  }

  take(n: number, now: number): boolean {
    if (now > this.#last) {
      this.#tokens = Math.min(this.#capacity, this.#tokens + (now - this.#last) * this.#perMs)
      this.#last = now
    }
    if (this.#tokens < n) return false
    this.#tokens -= n
    return true
  }
}
