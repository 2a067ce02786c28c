/**
 * The call's fast-changing numbers (the microphone's volume, ten times a second; the playback
 * worklet's counters of the assistant's audio), kept out of React state so they re-render only
 * the meter that shows them (read with useSyncExternalStore), not the whole chat.
 */
type Meters = Readonly<{
  /** The microphone's volume, 0..1, in steps of 0.05. */
  volume: number
  /** Assistant audio handed to playback in this call, in ms: played + dropped + flushed + buffered. */
  receivedMs: number
  /** Assistant audio played in this call, in ms. */
  playedMs: number
  /** Assistant audio thrown away unplayed when the user interrupted or muted, in ms. */
  flushedMs: number
  /** Assistant audio dropped because too much was queued, in ms. */
  droppedMs: number
  /** Assistant audio queued for playback now, in ms. */
  bufferedMs: number
}>

const SILENT_METERS: Meters = { volume: 0, receivedMs: 0, playedMs: 0, flushedMs: 0, droppedMs: 0, bufferedMs: 0 }

const KEYS = Object.keys(SILENT_METERS) as (keyof Meters)[]

export class MeterStore {
  private value: Meters = SILENT_METERS
  private readonly listeners = new Set<() => void>()

  readonly get = (): Meters => this.value

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  set(patch: Partial<Meters>): void {
    const next = { ...this.value, ...patch }
    if (KEYS.every((key) => next[key] === this.value[key])) return
    this.value = next
    this.listeners.forEach((listener) => listener())
  }

  reset(): void {
    this.set(SILENT_METERS)
  }
}
