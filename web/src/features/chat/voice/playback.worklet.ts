/**
 * The playback worklet (audio thread): the assistant's PCM16 16 kHz audio in, resampled to the
 * context's rate into a jitter buffer, played from it; flushed at once on command. It reports what
 * it played (a few times a second, and at once when playback starts or stops).
 */
import { JitterBuffer } from './jitter-buffer'
import { pcm16BytesToFloat, Resampler } from './pcm'
import { PLAYBACK_PROCESSOR, type PlaybackCommand, type PlaybackOptions, type PlaybackStats } from './worklet-types'

declare const sampleRate: number
declare class AudioWorkletProcessor {
  readonly port: MessagePort
}
declare function registerProcessor(name: string, processor: new (options: { processorOptions: PlaybackOptions }) => AudioWorkletProcessor): void

/** Stats go out at most this often while nothing changes (in output samples: a tenth of a second). */
const STATS_EVERY = Math.round(sampleRate / 10)

class PlaybackProcessor extends AudioWorkletProcessor {
  private readonly inputRate: number
  private readonly buffer: JitterBuffer
  private resampler: Resampler
  private resampled = new Float32Array(1024)
  private running = true
  private sinceStats = 0
  private reported = ''

  constructor({ processorOptions }: { processorOptions: PlaybackOptions }) {
    super()
    this.inputRate = processorOptions.inputRate
    const samples = (ms: number) => Math.max(1, Math.round((ms * sampleRate) / 1000))
    this.buffer = new JitterBuffer({ startSamples: samples(processorOptions.startMs), capSamples: samples(processorOptions.capMs) })
    this.resampler = new Resampler(this.inputRate, sampleRate)
    this.port.onmessage = (event: MessageEvent<PlaybackCommand>) => this.command(event.data)
  }

  private command(command: PlaybackCommand): void {
    if (command.type === 'audio') {
      const input = pcm16BytesToFloat(command.bytes)
      const room = this.resampler.maxOutput(input.length)
      if (this.resampled.length < room) this.resampled = new Float32Array(room)
      const count = this.resampler.process(input, this.resampled)
      this.buffer.push(this.resampled.subarray(0, count))
    } else if (command.type === 'flush') {
      this.buffer.flush()
      // The resampler holds a fraction of a millisecond of the old audio: start afresh.
      this.resampler = new Resampler(this.inputRate, sampleRate)
      this.report(true)
    } else {
      this.running = false
    }
  }

  private report(now: boolean): void {
    const ms = (samples: number) => Math.round((samples * 1000) / sampleRate)
    const stats: PlaybackStats = {
      type: 'stats',
      playing: this.buffer.playing,
      receivedMs: ms(this.buffer.received),
      playedMs: ms(this.buffer.played),
      droppedMs: ms(this.buffer.dropped),
      flushedMs: ms(this.buffer.flushed),
      bufferedMs: ms(this.buffer.buffered),
    }
    const key = `${stats.playing}|${stats.receivedMs}|${stats.playedMs}|${stats.droppedMs}|${stats.flushedMs}|${stats.bufferedMs}`
    if (key === this.reported) return
    if (!now && this.sinceStats < STATS_EVERY) return
    this.reported = key
    this.sinceStats = 0
    this.port.postMessage(stats)
  }

  process(_inputs: Float32Array[][], outputs: Float32Array[][]): boolean {
    const channels = outputs[0]
    const first = channels?.[0]
    if (!channels || !first) return this.running
    const wasPlaying = this.buffer.playing
    this.buffer.pull(first)
    for (let c = 1; c < channels.length; c++) channels[c]!.set(first)
    this.sinceStats += first.length
    this.report(wasPlaying !== this.buffer.playing)
    return this.running
  }
}

registerProcessor(PLAYBACK_PROCESSOR, PlaybackProcessor)
