/**
 * The call's fast-changing numbers (the microphone's volume, ten times a second; the assistant
 * audio played so far), kept out of React state so they re-render only the meter that shows them
 * (read with useSyncExternalStore), not the whole chat.
 */
export type Meters = Readonly<{
  /** The microphone's volume, 0..1, in steps of 0.05. */
  volume: number
  /** Assistant audio played in this call, in ms. */
  playedMs: number
}>

export const SILENT_METERS: Meters = { volume: 0, playedMs: 0 }

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
    if (next.volume === this.value.volume && next.playedMs === this.value.playedMs) return
    this.value = next
    this.listeners.forEach((listener) => listener())
  }

  reset(): void {
    this.set(SILENT_METERS)
  }
}
