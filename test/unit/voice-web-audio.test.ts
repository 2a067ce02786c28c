import { describe, expect, it } from 'vitest'
import { VOICE_FRAME_BYTES, VOICE_FRAME_MS, VOICE_SAMPLE_RATE } from '#common/voice'
import { JitterBuffer } from '../../web/src/features/chat/voice/jitter-buffer'
import {
  FULL_VOLUME_LEVEL,
  LevelObserver,
  SPEECH_END_QUIET_MS,
  SPEECH_LEVEL_THRESHOLD,
} from '../../web/src/features/chat/voice/levels'
import { floatToPcm16, Pcm16Framer, pcm16BytesToFloat, pcm16ToFloat, Resampler, rms } from '../../web/src/features/chat/voice/pcm'

/** The audio thread hands the capture worklet 128 samples at a time. */
const QUANTUM = 128
const FRAME_SAMPLES = VOICE_FRAME_BYTES / 2

const framer = (inputRate: number) => new Pcm16Framer({ inputRate, outputRate: VOICE_SAMPLE_RATE, frameBytes: VOICE_FRAME_BYTES })

const sine = (rate: number, hz: number, seconds: number, amplitude = 0.5) =>
  Float32Array.from({ length: Math.round(rate * seconds) }, (_, i) => amplitude * Math.sin((2 * Math.PI * hz * i) / rate))

/** Feeds a signal in pieces of the given sizes (cycled), the way the worklet receives it. */
function feed(target: Pcm16Framer, signal: Float32Array, sizes: readonly number[] = [QUANTUM]): ArrayBuffer[] {
  const frames: ArrayBuffer[] = []
  let at = 0
  for (let piece = 0; at < signal.length; piece++) {
    const size = sizes[piece % sizes.length]!
    frames.push(...target.push([signal.subarray(at, at + size)]))
    at += size
  }
  return frames
}

/** The frames' samples, in order. */
function samplesOf(frames: readonly ArrayBuffer[]): Int16Array {
  const out = new Int16Array(frames.length * FRAME_SAMPLES)
  frames.forEach((frame, index) => {
    const view = new DataView(frame)
    for (let i = 0; i < FRAME_SAMPLES; i++) out[index * FRAME_SAMPLES + i] = view.getInt16(i * 2, true)
  })
  return out
}

/** Sign changes of a signal: twice its frequency per second of signal. */
function zeroCrossings(samples: ArrayLike<number>): number {
  let count = 0
  for (let i = 1; i < samples.length; i++) if ((samples[i - 1]! < 0) !== (samples[i]! < 0)) count += 1
  return count
}

const rmsOf = (samples: ArrayLike<number>) => Math.sqrt(Array.from(samples).reduce((sum, x) => sum + x * x, 0) / samples.length)

describe('the frame format', () => {
  it('is 20 ms of PCM16 mono at 16 kHz: 320 samples, 640 bytes', () => {
    expect(VOICE_SAMPLE_RATE).toBe(16_000)
    expect(VOICE_FRAME_MS).toBe(20)
    expect(FRAME_SAMPLES).toBe(320)
    expect(VOICE_FRAME_BYTES).toBe(640)
  })
})

describe('float samples to PCM16 and back', () => {
  it('maps −1..1 onto the whole 16-bit range and clamps what lies outside it', () => {
    expect(floatToPcm16(0)).toBe(0)
    expect(floatToPcm16(1)).toBe(32767)
    expect(floatToPcm16(-1)).toBe(-32768)
    expect(floatToPcm16(0.5)).toBe(16384)
    expect(floatToPcm16(-0.5)).toBe(-16384)
    expect(floatToPcm16(1.0001)).toBe(32767)
    expect(floatToPcm16(7)).toBe(32767)
    expect(floatToPcm16(-7)).toBe(-32768)
    expect(floatToPcm16(Infinity)).toBe(32767)
    expect(floatToPcm16(-Infinity)).toBe(-32768)
    expect(floatToPcm16(NaN)).toBe(0)
  })

  it('reads little-endian PCM16 bytes back as floats (a trailing odd byte is ignored)', () => {
    const bytes = new ArrayBuffer(9)
    const view = new DataView(bytes)
    ;[0, 32767, -32768, -16384].forEach((value, i) => view.setInt16(i * 2, value, true))
    view.setUint8(8, 0xff)
    expect(Array.from(pcm16BytesToFloat(bytes))).toEqual([0, 1, -1, -0.5])
    expect(pcm16ToFloat(floatToPcm16(0.25))).toBeCloseTo(0.25, 4)
  })
})

describe.each([48_000, 44_100])('capture at %i Hz to 16 kHz frames', (rate) => {
  it('turns two seconds into 640-byte frames of 20 ms, holding back less than one quantum for the filter', () => {
    const target = framer(rate)
    const frames = feed(target, sine(rate, 440, 2))
    expect(frames.every((frame) => frame.byteLength === VOICE_FRAME_BYTES)).toBe(true)
    // 2 s is 100 frames; the filter's look-ahead (under a millisecond) keeps the 100th open...
    expect(frames).toHaveLength((2 * VOICE_SAMPLE_RATE) / FRAME_SAMPLES - 1)
    // ...until the next quantum arrives.
    expect(feed(target, sine(rate, 440, QUANTUM / rate))).toHaveLength(1)
  })

  it('cuts the same frames however the input is cut: samples carry over between quanta', () => {
    const signal = sine(rate, 523.25, 0.75)
    const inQuanta = samplesOf(feed(framer(rate), signal, [QUANTUM]))
    const atOnce = samplesOf(feed(framer(rate), signal, [signal.length]))
    const ragged = samplesOf(feed(framer(rate), signal, [1, 7, 333, 64, 1000, 2]))
    expect(inQuanta.length).toBeGreaterThan(0)
    expect(atOnce).toEqual(inQuanta)
    expect(ragged).toEqual(inQuanta)
  })

  it('keeps a tone at its frequency and level', () => {
    const samples = samplesOf(feed(framer(rate), sine(rate, 1000, 1.1)))
    // One second of output, past the start.
    const second = Array.from(samples.subarray(800, 800 + VOICE_SAMPLE_RATE), (s) => s / 32768)
    expect(zeroCrossings(second)).toBeGreaterThanOrEqual(1999)
    expect(zeroCrossings(second)).toBeLessThanOrEqual(2001)
    expect(rmsOf(second)).toBeCloseTo(0.5 / Math.SQRT2, 2)
  })

  it('removes what lies above the new Nyquist frequency instead of folding it into the speech band', () => {
    // 10 kHz would alias to 6 kHz (at 48 kHz in) without the low-pass filter.
    const samples = samplesOf(feed(framer(rate), sine(rate, 10_000, 0.5)))
    const level = rmsOf(Array.from(samples.subarray(400), (s) => s / 32768))
    expect(level).toBeLessThan((0.5 / Math.SQRT2) * 0.01)
  })

  it('clamps samples beyond full scale instead of wrapping them', () => {
    const loud = Float32Array.from({ length: Math.round(rate * 0.3) }, (_, i) => (i < rate * 0.1 ? 3 : i < rate * 0.2 ? -3 : 0.5))
    const samples = samplesOf(feed(framer(rate), loud))
    const at = (seconds: number) => samples[Math.round(seconds * VOICE_SAMPLE_RATE)]!
    expect(at(0.05)).toBe(32767)
    expect(at(0.15)).toBe(-32768)
    expect(Math.abs(at(0.25) - 16384)).toBeLessThanOrEqual(1)
    expect(Math.min(...samples)).toBe(-32768)
    expect(Math.max(...samples)).toBe(32767)
  })

  it('averages several channels to mono', () => {
    const left = sine(rate, 300, 0.2)
    const right = left.map((x) => -x)
    const frames: ArrayBuffer[] = []
    const target = framer(rate)
    for (let at = 0; at < left.length; at += QUANTUM) frames.push(...target.push([left.subarray(at, at + QUANTUM), right.subarray(at, at + QUANTUM)]))
    expect(frames.length).toBeGreaterThan(0)
    expect(samplesOf(frames).every((s) => s === 0)).toBe(true)
  })
})

describe('the resampler', () => {
  it('passes 16 kHz through unchanged', () => {
    const signal = sine(16_000, 700, 0.1)
    const out = new Float32Array(signal.length)
    expect(new Resampler(16_000, 16_000).process(signal, out)).toBe(signal.length)
    expect(out).toEqual(signal)
  })

  it('brings 16 kHz up to 48 kHz for playback with the tone intact', () => {
    const resampler = new Resampler(16_000, 48_000)
    const signal = sine(16_000, 1000, 1.1)
    const out = new Float32Array(resampler.maxOutput(signal.length))
    const count = resampler.process(signal, out)
    expect(count).toBeGreaterThan(48_000)
    const second = out.subarray(2400, 2400 + 48_000)
    expect(zeroCrossings(second)).toBeGreaterThanOrEqual(1999)
    expect(zeroCrossings(second)).toBeLessThanOrEqual(2001)
    expect(rmsOf(second)).toBeCloseTo(0.5 / Math.SQRT2, 2)
  })

  it('refuses a rate that is not a positive whole number', () => {
    expect(() => new Resampler(0, 16_000)).toThrow(RangeError)
    expect(() => new Resampler(44_100.5, 16_000)).toThrow(RangeError)
    expect(() => new Pcm16Framer({ inputRate: 48_000, outputRate: 16_000, frameBytes: 641 })).toThrow(RangeError)
  })
})

describe('the playback jitter buffer', () => {
  const ramp = (from: number, length: number) => Float32Array.from({ length }, (_, i) => from + i)
  const pulled = (buffer: JitterBuffer, length: number) => {
    const out = new Float32Array(length)
    const count = buffer.pull(out)
    return { count, samples: Array.from(out) }
  }

  it('stays silent until the start threshold is queued, then plays in order', () => {
    const buffer = new JitterBuffer({ startSamples: 1280, capSamples: 48_000 })
    buffer.push(ramp(1, 1279))
    expect(buffer.playing).toBe(false)
    expect(pulled(buffer, 128)).toEqual({ count: 0, samples: new Array(128).fill(0) })
    expect(buffer.buffered).toBe(1279)
    buffer.push(ramp(1280, 1))
    expect(buffer.playing).toBe(true)
    expect(pulled(buffer, 128)).toEqual({ count: 128, samples: Array.from(ramp(1, 128)) })
    expect(buffer.played).toBe(128)
  })

  it('goes back to buffering when it runs dry, and plays a short tail once it has waited as long as the threshold', () => {
    const buffer = new JitterBuffer({ startSamples: 256, capSamples: 4096 })
    buffer.push(ramp(1, 300))
    expect(pulled(buffer, 256).count).toBe(256)
    // 44 left, then silence after them.
    const drained = pulled(buffer, 128)
    expect(drained.count).toBe(44)
    expect(drained.samples.slice(44).every((x) => x === 0)).toBe(true)
    expect(buffer.playing).toBe(false)
    // The end of a reply, shorter than the threshold: held for one threshold's time, then played.
    buffer.push(ramp(1000, 100))
    expect(pulled(buffer, 128).count).toBe(0)
    expect(pulled(buffer, 128).count).toBe(100)
  })

  it('never holds more than its cap: the oldest audio is dropped and counted', () => {
    const buffer = new JitterBuffer({ startSamples: 100, capSamples: 1000 })
    buffer.push(ramp(0, 600))
    buffer.push(ramp(600, 900))
    expect(buffer.buffered).toBe(1000)
    expect(buffer.dropped).toBe(500)
    const all = pulled(buffer, 1000)
    expect(all.count).toBe(1000)
    expect(all.samples).toEqual(Array.from(ramp(500, 1000)))
    // One push larger than the cap keeps only its newest part.
    buffer.push(ramp(0, 2500))
    expect(buffer.buffered).toBe(1000)
    expect(buffer.dropped).toBe(2000)
    expect(pulled(buffer, 3).samples).toEqual([1500, 1501, 1502])
  })

  it("keeps the order across the ring's wrap-around", () => {
    const buffer = new JitterBuffer({ startSamples: 1, capSamples: 13 })
    const heard: number[] = []
    for (let round = 0; round < 4; round++) {
      buffer.push(ramp(round * 7, 7))
      heard.push(...pulled(buffer, 5).samples)
    }
    expect(buffer.buffered).toBe(8)
    heard.push(...pulled(buffer, 8).samples)
    expect(heard).toEqual(Array.from(ramp(0, 28)))
    expect(buffer.dropped).toBe(0)
  })

  it('flushes at once: nothing queued plays, and the next audio waits for the threshold again', () => {
    const buffer = new JitterBuffer({ startSamples: 200, capSamples: 4000 })
    buffer.push(ramp(1, 1000))
    expect(pulled(buffer, 128).count).toBe(128)
    buffer.flush()
    expect(buffer.buffered).toBe(0)
    expect(buffer.flushed).toBe(872)
    expect(buffer.playing).toBe(false)
    expect(pulled(buffer, 128)).toEqual({ count: 0, samples: new Array(128).fill(0) })
    buffer.push(ramp(5000, 150))
    expect(buffer.playing).toBe(false)
    buffer.push(ramp(5150, 50))
    expect(pulled(buffer, 2).samples).toEqual([5000, 5001])
  })

  it('counts what it received: always what played, dropped, was flushed and is queued', () => {
    const buffer = new JitterBuffer({ startSamples: 100, capSamples: 1000 })
    const balanced = () => buffer.received === buffer.played + buffer.dropped + buffer.flushed + buffer.buffered
    buffer.push(ramp(0, 700))
    pulled(buffer, 300)
    buffer.push(ramp(0, 900))
    expect([buffer.received, buffer.played, buffer.dropped, buffer.buffered]).toEqual([1600, 300, 300, 1000])
    expect(balanced()).toBe(true)
    buffer.flush()
    buffer.push(ramp(0, 2500))
    pulled(buffer, 128)
    expect(buffer.received).toBe(4100)
    expect(balanced()).toBe(true)
  })

  it('refuses a cap below the start threshold', () => {
    expect(() => new JitterBuffer({ startSamples: 100, capSamples: 99 })).toThrow(RangeError)
    expect(() => new JitterBuffer({ startSamples: 0, capSamples: 99 })).toThrow(RangeError)
  })
})

describe('the audio-level observer (spec 2 §9)', () => {
  it('hears speech above a summed level of 0.01, with the volume at the sum over 0.15, capped at 1', () => {
    const observer = new LevelObserver()
    expect(SPEECH_LEVEL_THRESHOLD).toBe(0.01)
    expect(FULL_VOLUME_LEVEL).toBe(0.15)
    expect(observer.observe([0.01], 0)).toEqual({ volume: 0.01 / 0.15, speaking: false })
    expect(observer.observe([0.006, 0.006], 100)).toEqual({ volume: 0.012 / 0.15, speaking: true })
    expect(observer.observe([0.075], 200)).toEqual({ volume: 0.5, speaking: true })
    expect(observer.observe([0.2, 0.1], 300)).toEqual({ volume: 1, speaking: true })
  })

  it('ends speech after 1 s of quiet', () => {
    const observer = new LevelObserver()
    expect(SPEECH_END_QUIET_MS).toBe(1000)
    observer.observe([0.05], 1000)
    expect(observer.observe([0], 1100).speaking).toBe(true)
    expect(observer.observe([0.001], 1900).speaking).toBe(true)
    expect(observer.observe([0], 2000)).toEqual({ volume: 0, speaking: false })
    // Speech again starts at once.
    expect(observer.observe([0.02], 2100).speaking).toBe(true)
  })

  it('reads garbage as silence and resets to nothing', () => {
    const observer = new LevelObserver()
    expect(observer.observe([NaN, -1, Infinity], 0)).toEqual({ volume: 0, speaking: false })
    observer.observe([0.5], 100)
    observer.reset()
    expect(observer.current).toEqual({ volume: 0, speaking: false })
  })

  it('measures a level as the root mean square', () => {
    expect(rms(new Float32Array(0))).toBe(0)
    expect(rms(Float32Array.from([0.5, -0.5, 0.5, -0.5]))).toBeCloseTo(0.5, 6)
  })
})
