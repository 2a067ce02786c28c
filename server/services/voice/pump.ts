/**
 * Audio toward a socket that may fall behind, never an unbounded buffer. A frame goes out at once
 * while the socket's unsent bytes (`bufferedAmount`: ws's queue plus the kernel's refusal) are under
 * the high-water mark; otherwise it waits in a queue of at most `maxQueuedBytes`, and when that is
 * full the OLDEST waiting frames are dropped (and counted): late audio is worth less than current
 * audio. The queue drains as the socket reports frames written.
 */
type AudioSink = {
  /** Sends one binary frame; `done` runs once it is written (or failed). */
  send(frame: Buffer, done: (error?: Error) => void): void
  /** Bytes accepted but not yet written. */
  buffered(): number
}

type PumpLimits = {
  highWaterBytes: () => number
  maxQueuedBytes: () => number
  /** Told of each frame dropped, as it is dropped (a gateway's live counters). */
  onDrop?: () => void
}

export class AudioPump {
  readonly #sink: AudioSink
  readonly #highWater: () => number
  readonly #maxQueued: () => number
  readonly #onDrop: () => void
  #queue: Buffer[] = []
  #head = 0
  #queuedBytes = 0
  #closed = false
  /** Frames dropped because the socket was behind. */
  dropped = 0
  /** Frames sent. */
  sent = 0

  constructor(sink: AudioSink, limits: PumpLimits) {
    this.#sink = sink
    this.#highWater = limits.highWaterBytes
    this.#maxQueued = limits.maxQueuedBytes
    this.#onDrop = limits.onDrop ?? (() => {})
  }

  get queuedBytes(): number {
    return this.#queuedBytes
  }

  push(frame: Buffer): void {
    if (this.#closed) return
    if (this.#queuedBytes === 0 && this.#sink.buffered() < this.#highWater()) {
      this.#write(frame)
      return
    }
    this.#queue.push(frame)
    this.#queuedBytes += frame.length
    const max = this.#maxQueued()
    while (this.#queuedBytes > max && this.#head < this.#queue.length) {
      const oldest = this.#queue[this.#head]!
      this.#queue[this.#head++] = EMPTY
      this.#queuedBytes -= oldest.length
      this.dropped++
      this.#onDrop()
    }
    this.#compact()
    this.#drain()
  }

  /** Drops what waits (the listener interrupted the assistant); returns how many frames. */
  clear(): number {
    const cleared = this.#queue.length - this.#head
    this.#queue = []
    this.#head = 0
    this.#queuedBytes = 0
    return cleared
  }

  close(): void {
    this.#closed = true
    this.clear()
  }

  #write(frame: Buffer): void {
    this.sent++
    this.#sink.send(frame, (error) => {
      if (!error) this.#drain()
    })
  }

  #drain(): void {
    while (!this.#closed && this.#head < this.#queue.length && this.#sink.buffered() < this.#highWater()) {
      const frame = this.#queue[this.#head]!
      this.#queue[this.#head++] = EMPTY
      this.#queuedBytes -= frame.length
      this.#write(frame)
    }
    this.#compact()
  }

  #compact(): void {
    if (this.#head === this.#queue.length) {
      this.#queue = []
      this.#head = 0
    } else if (this.#head > 64 && this.#head * 2 > this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head)
      this.#head = 0
    }
  }
}

const EMPTY = Buffer.alloc(0)
