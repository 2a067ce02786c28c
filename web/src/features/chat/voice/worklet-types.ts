/** What the main thread and the voice worklets say to each other. */

export const CAPTURE_PROCESSOR = 'momentum-voice-capture'
export const PLAYBACK_PROCESSOR = 'momentum-voice-playback'

export type CaptureOptions = {
  /** The gateway's rate (16 kHz). */
  outputRate: number
  /** One frame's bytes (640: 20 ms of PCM16 mono at 16 kHz). */
  frameBytes: number
}

export type PlaybackOptions = {
  /** The rate of the audio the gateway sends (16 kHz). */
  inputRate: number
  /** Audio queued before playback starts, in ms. */
  startMs: number
  /** The most audio kept queued, in ms (older audio is dropped beyond it). */
  capMs: number
}

/** Main thread → playback worklet. */
export type PlaybackCommand =
  /** PCM16 little-endian mono at `inputRate`. */
  | { type: 'audio'; bytes: ArrayBuffer }
  /** Drop everything queued now (the user interrupted, or voice responses were muted). */
  | { type: 'flush' }
  | { type: 'stop' }

/** Playback worklet → main thread. */
export type PlaybackStats = {
  type: 'stats'
  /** Whether assistant audio is going to the speaker. */
  playing: boolean
  /** Assistant audio handed to playback since the start, in ms (played, dropped, flushed or still queued). */
  receivedMs: number
  /** Assistant audio played since the start, in ms. */
  playedMs: number
  /** Audio dropped because the queue was full, in ms. */
  droppedMs: number
  /** Audio thrown away by flushes, in ms. */
  flushedMs: number
  /** Audio queued now, in ms. */
  bufferedMs: number
}
