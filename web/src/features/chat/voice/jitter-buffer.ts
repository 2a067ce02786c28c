/**
 * The assistant's audio between the socket and the speaker, as pure code (the playback worklet
 * runs it; the unit tests run it in Node):
 * - it holds back playback until `startSamples` are queued (at the start and after running dry), so
 *   the jitter of the network does not turn into clicks; audio that stays short of that (the end of
 *   a reply) plays once it has waited as long as the threshold lasts;
 * - it never holds more than `capSamples`: beyond that the oldest audio is dropped (and counted),
 *   so a stalled speaker cannot grow memory or push the conversation ever further behind;
 * - `flush` empties it at once (the user interrupted the assistant).
 */
type JitterBufferOptions = {
  /** Samples queued before playback starts (e.g. 80 ms). */
  startSamples: number
  /** The most samples kept; older ones are dropped beyond it. */
  capSamples: number
}

export class JitterBuffer {
  readonly startSamples: number
  readonly capSamples: number
  private readonly ring: Float32Array
  private head = 0
  private size = 0
  private started = false
  /** Output time (in samples) spent buffering with audio queued. */
  private waited = 0
  /** Samples pushed since the start: always played + dropped + flushed + buffered. */
  received = 0
  /** Samples handed to the speaker since the start (silence not counted). */
  played = 0
  /** Samples dropped because the buffer was full. */
  dropped = 0
  /** Samples thrown away by flushes. */
  flushed = 0

  constructor({ startSamples, capSamples }: JitterBufferOptions) {
    if (!(Number.isInteger(startSamples) && startSamples > 0 && Number.isInteger(capSamples) && capSamples >= startSamples)) {
      throw new RangeError(`Need whole numbers with 0 < startSamples <= capSamples (got ${startSamples} and ${capSamples})`)
    }
    this.startSamples = startSamples
    this.capSamples = capSamples
    this.ring = new Float32Array(capSamples)
  }

  /** Samples queued now. */
  get buffered(): number {
    return this.size
  }

  /** Whether samples are going to the speaker (the start threshold was reached and it has not run dry). */
  get playing(): boolean {
    return this.started
  }

  /** Queues samples; when that would pass the cap, the oldest queued ones go first. */
  push(samples: Float32Array): void {
    this.received += samples.length
    let input = samples
    if (input.length > this.capSamples) {
      this.dropped += input.length - this.capSamples
      input = input.subarray(input.length - this.capSamples)
    }
    const overflow = this.size + input.length - this.capSamples
    if (overflow > 0) {
      this.head = (this.head + overflow) % this.capSamples
      this.size -= overflow
      this.dropped += overflow
    }
    const tail = (this.head + this.size) % this.capSamples
    const first = Math.min(input.length, this.capSamples - tail)
    this.ring.set(input.subarray(0, first), tail)
    if (first < input.length) this.ring.set(input.subarray(first), 0)
    this.size += input.length
    if (!this.started && this.size >= this.startSamples) this.started = true
  }

  private reset(): void {
    this.size = 0
    this.head = 0
    this.started = false
    this.waited = 0
  }

  /**
   * Fills `out` with the next samples (silence where there are none, or while buffering);
   * returns how many real samples it wrote. Running dry goes back to buffering.
   */
  pull(out: Float32Array): number {
    if (!this.started) {
      if (this.size > 0) this.waited += out.length
      if (this.size === 0 || this.waited < this.startSamples) {
        out.fill(0)
        return 0
      }
      this.started = true
    }
    const count = Math.min(out.length, this.size)
    const first = Math.min(count, this.capSamples - this.head)
    out.set(this.ring.subarray(this.head, this.head + first), 0)
    if (first < count) out.set(this.ring.subarray(0, count - first), first)
    out.fill(0, count)
    this.head = (this.head + count) % this.capSamples
    this.size -= count
    this.played += count
    if (this.size === 0) this.reset()
    return count
  }

  /** Drops everything queued, at once; playback waits for the start threshold again. */
  flush(): void {
    this.flushed += this.size
    this.reset()
  }
}
