/**
 * The audio-level rules of spec 2 §9, as pure code: an observer reads the levels every 100 ms; a
 * summed level above 0.01 means speech; the volume is the sum divided by 0.15, capped at 1; speech
 * ends after 1 s of quiet.
 */
export const LEVEL_OBSERVER_INTERVAL_MS = 100
export const SPEECH_LEVEL_THRESHOLD = 0.01
export const FULL_VOLUME_LEVEL = 0.15
export const SPEECH_END_QUIET_MS = 1000

type LevelReading = {
  /** 0..1: the summed level over FULL_VOLUME_LEVEL, capped at 1. */
  volume: number
  /** Speech is heard, or was less than SPEECH_END_QUIET_MS ago. */
  speaking: boolean
}

/** One speaker's (or one meter's) level over time: feed it every observer tick. */
export class LevelObserver {
  private lastSpeechAt: number | null = null
  private reading: LevelReading = { volume: 0, speaking: false }

  /** The levels heard at `now` (ms; any monotonic clock), summed. */
  observe(levels: readonly number[], now: number): LevelReading {
    const sum = levels.reduce((total, level) => total + (Number.isFinite(level) && level > 0 ? level : 0), 0)
    const volume = Math.min(1, sum / FULL_VOLUME_LEVEL)
    if (sum > SPEECH_LEVEL_THRESHOLD) this.lastSpeechAt = now
    const speaking = this.lastSpeechAt !== null && now - this.lastSpeechAt < SPEECH_END_QUIET_MS
    if (!speaking) this.lastSpeechAt = null
    this.reading = { volume, speaking }
    return this.reading
  }

  get current(): LevelReading {
    return this.reading
  }

  reset(): void {
    this.lastSpeechAt = null
    this.reading = { volume: 0, speaking: false }
  }
}
