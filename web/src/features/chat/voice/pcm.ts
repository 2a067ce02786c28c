/**
 * The microphone's path to the voice gateway, as pure code: whatever rate the audio context runs
 * at (48 kHz, 44.1 kHz, ...) in, PCM16 mono frames at 16 kHz out. The capture worklet runs it on
 * the audio thread and the unit tests run it in Node, so it imports nothing (the worklet's bundle
 * stays small: the rates and the frame size come in as arguments).
 *
 * Resampling is band-limited interpolation: each output sample is the input convolved with a
 * Blackman-windowed sinc low-pass, evaluated at the output instant's exact (rational) position in
 * the input. The cutoff sits below the lower of the two Nyquist frequencies, so nothing above 8 kHz
 * folds back into the speech band when 48 kHz becomes 16 kHz, and any ratio works (44.1 kHz to
 * 16 kHz is 441/160). Positions are kept as an integer and a numerator over the output rate, so
 * there is no drift however long the call lasts.
 */

/** Lobes of the sinc kept on each side of the centre (more: sharper filter, more work). */
const LOBES = 8
/** Table entries per input sample of the kernel (the kernel is read with linear interpolation). */
const TABLE_RESOLUTION = 64
/** The cutoff as a fraction of the lower Nyquist frequency. */
const CUTOFF = 0.9

/** One float sample (−1..1, clamped; NaN is silence) as a signed 16-bit integer. */
export function floatToPcm16(sample: number): number {
  if (!(sample > -1)) return sample <= -1 ? -32768 : 0
  if (sample >= 1) return 32767
  return sample < 0 ? Math.round(sample * 32768) : Math.round(sample * 32767)
}

/** A signed 16-bit sample as a float in −1..1. */
export const pcm16ToFloat = (sample: number): number => (sample < 0 ? sample / 32768 : sample / 32767)

/** Little-endian PCM16 bytes to float samples (an odd trailing byte is ignored). */
export function pcm16BytesToFloat(bytes: ArrayBuffer): Float32Array {
  const view = new DataView(bytes)
  const out = new Float32Array(Math.floor(bytes.byteLength / 2))
  for (let i = 0; i < out.length; i++) out[i] = pcm16ToFloat(view.getInt16(i * 2, true))
  return out
}

/**
 * Band-limited resampling of a stream of float samples, in pieces of any size (the worklet's
 * quanta are 128 samples). Output sample k stands at input position k × inputRate / outputRate;
 * it is produced as soon as the input reaches the filter's right edge, so the delay is a fraction
 * of a millisecond.
 */
export class Resampler {
  readonly inputRate: number
  readonly outputRate: number
  /** Half the filter's width, in input samples. */
  private readonly halfWidth: number
  private readonly table: Float32Array
  /** The kernel's scale: cutoff frequency over the input rate, times two. */
  private readonly scale: number
  private readonly passThrough: boolean
  /** Input samples kept: buffer[0] is input sample `bufferStart` (negative ones are the silence before the start). */
  private buffer: Float32Array
  private bufferLength = 0
  private bufferStart: number
  /** The next output sample's input position: `position + numerator / outputRate`. */
  private position = 0
  private numerator = 0

  constructor(inputRate: number, outputRate: number) {
    if (!(Number.isInteger(inputRate) && inputRate > 0 && Number.isInteger(outputRate) && outputRate > 0)) {
      throw new RangeError(`Sample rates must be positive whole numbers (got ${inputRate} and ${outputRate})`)
    }
    this.inputRate = inputRate
    this.outputRate = outputRate
    this.passThrough = inputRate === outputRate
    const cutoffHz = (CUTOFF * Math.min(inputRate, outputRate)) / 2
    this.scale = (2 * cutoffHz) / inputRate
    this.halfWidth = Math.ceil(LOBES / this.scale)
    // kernel(t) for t in [0, halfWidth], TABLE_RESOLUTION entries per input sample.
    const entries = this.halfWidth * TABLE_RESOLUTION + 2
    this.table = new Float32Array(entries)
    for (let i = 0; i < entries; i++) {
      const t = i / TABLE_RESOLUTION
      if (t >= this.halfWidth) continue
      const x = Math.PI * this.scale * t
      const sinc = x === 0 ? 1 : Math.sin(x) / x
      const window = 0.42 + 0.5 * Math.cos((Math.PI * t) / this.halfWidth) + 0.08 * Math.cos((2 * Math.PI * t) / this.halfWidth)
      this.table[i] = sinc * window
    }
    this.buffer = new Float32Array(4 * this.halfWidth + 512)
    // The stream starts in silence: the filter's left half reads zeros at first.
    this.bufferStart = -this.halfWidth
    this.bufferLength = this.halfWidth
  }

  /** The filter's value at distance `t` (input samples) from the centre. */
  private kernel(t: number): number {
    const at = Math.abs(t) * TABLE_RESOLUTION
    const index = Math.floor(at)
    const table = this.table
    if (index + 1 >= table.length) return 0
    const fraction = at - index
    return table[index]! + (table[index + 1]! - table[index]!) * fraction
  }

  /**
   * Adds input samples and returns the output samples they complete (written into `out` from
   * `outOffset`, growing nothing: the caller gives room for at least `maxOutput(input.length)`).
   * Returns how many were written.
   */
  process(input: Float32Array, out: Float32Array, outOffset = 0): number {
    if (this.passThrough) {
      out.set(input, outOffset)
      return input.length
    }
    this.append(input)
    const halfWidth = this.halfWidth
    const end = this.bufferStart + this.bufferLength
    let written = 0
    // Output k needs input up to position + halfWidth.
    while (this.position + halfWidth < end) {
      const fraction = this.numerator / this.outputRate
      const first = this.position - halfWidth + 1
      const last = this.position + halfWidth
      let sum = 0
      let weights = 0
      for (let i = first; i <= last; i++) {
        const weight = this.kernel(this.position - i + fraction)
        sum += this.buffer[i - this.bufferStart]! * weight
        weights += weight
      }
      out[outOffset + written] = weights === 0 ? 0 : sum / weights
      written += 1
      this.numerator += this.inputRate
      if (this.numerator >= this.outputRate) {
        this.position += Math.floor(this.numerator / this.outputRate)
        this.numerator %= this.outputRate
      }
    }
    this.compact()
    return written
  }

  /** An upper bound of the samples `process` returns for this many input samples. */
  maxOutput(inputLength: number): number {
    return Math.ceil(((inputLength + this.halfWidth + 1) * this.outputRate) / this.inputRate) + 1
  }

  private append(input: Float32Array): void {
    const needed = this.bufferLength + input.length
    if (needed > this.buffer.length) {
      const grown = new Float32Array(Math.max(needed, this.buffer.length * 2))
      grown.set(this.buffer.subarray(0, this.bufferLength))
      this.buffer = grown
    }
    this.buffer.set(input, this.bufferLength)
    this.bufferLength = needed
  }

  /** Drops the input no future output reads (everything left of the next filter window). */
  private compact(): void {
    const keepFrom = this.position - this.halfWidth + 1
    const drop = keepFrom - this.bufferStart
    if (drop <= 0) return
    this.buffer.copyWithin(0, drop, this.bufferLength)
    this.bufferLength -= drop
    this.bufferStart = keepFrom
  }
}

/**
 * The capture's whole path: channels of float samples at the context's rate in, frames of
 * little-endian PCM16 mono at the gateway's rate out (each `frameBytes` long; samples carry over
 * between calls, so frame boundaries do not depend on how the input is cut).
 */
export class Pcm16Framer {
  private readonly resampler: Resampler
  private readonly frameSamples: number
  private mono = new Float32Array(128)
  private resampled = new Float32Array(128)
  private frame: DataView
  private filled = 0

  constructor({ inputRate, outputRate, frameBytes }: { inputRate: number; outputRate: number; frameBytes: number }) {
    if (!(Number.isInteger(frameBytes) && frameBytes > 0 && frameBytes % 2 === 0)) throw new RangeError(`A frame is a positive even number of bytes (got ${frameBytes})`)
    this.resampler = new Resampler(inputRate, outputRate)
    this.frameSamples = frameBytes / 2
    this.frame = new DataView(new ArrayBuffer(frameBytes))
  }

  /**
   * Adds one piece of input (one Float32Array per channel, all the same length; they are averaged
   * to mono) and returns the frames it completes, each a fresh ArrayBuffer that can be transferred.
   */
  push(channels: readonly Float32Array[]): ArrayBuffer[] {
    const length = channels[0]?.length ?? 0
    if (length === 0) return []
    if (this.mono.length < length) this.mono = new Float32Array(length)
    const mono = this.mono.subarray(0, length)
    if (channels.length === 1) mono.set(channels[0]!)
    else {
      mono.fill(0)
      for (const channel of channels) for (let i = 0; i < length; i++) mono[i]! += channel[i]! / channels.length
    }
    const room = this.resampler.maxOutput(length)
    if (this.resampled.length < room) this.resampled = new Float32Array(room)
    const count = this.resampler.process(mono, this.resampled)
    const frames: ArrayBuffer[] = []
    for (let i = 0; i < count; i++) {
      this.frame.setInt16(this.filled * 2, floatToPcm16(this.resampled[i]!), true)
      this.filled += 1
      if (this.filled === this.frameSamples) {
        frames.push(this.frame.buffer as ArrayBuffer)
        this.frame = new DataView(new ArrayBuffer(this.frameSamples * 2))
        this.filled = 0
      }
    }
    return frames
  }
}

/** The root mean square of some samples (0 for none): the level the meters read. */
export function rms(samples: Float32Array): number {
  if (samples.length === 0) return 0
  let sum = 0
  for (let i = 0; i < samples.length; i++) sum += samples[i]! * samples[i]!
  return Math.sqrt(sum / samples.length)
}
