/**
 * The voice call's audio in the browser: one AudioContext at the device's rate with
 * - the microphone (echo cancellation, noise suppression) → the capture worklet, which posts 20 ms
 *   PCM16 16 kHz frames for the socket, and an analyser for the level meter;
 * - the playback worklet (the assistant's audio, through its jitter buffer) → a gain (0 while voice
 *   responses are muted) → the speakers, and an analyser for the assistant's level.
 */
import { VOICE_FRAME_BYTES, VOICE_SAMPLE_RATE } from '#common/voice'
import captureWorkletUrl from './capture.worklet.ts?worker&url'
import playbackWorkletUrl from './playback.worklet.ts?worker&url'
import { rms } from './pcm'
import { CAPTURE_PROCESSOR, PLAYBACK_PROCESSOR, type CaptureOptions, type PlaybackCommand, type PlaybackOptions, type PlaybackStats } from './worklet-types'

/** Assistant audio queued before it starts playing (absorbs the network's jitter). */
const PLAYBACK_START_MS = 80
/** The most assistant audio queued; beyond it the oldest is dropped. */
const PLAYBACK_CAP_MS = 3000

/** The microphone could not be had: refused, missing, or this browser cannot capture. */
class MicrophoneError extends Error {
  override readonly name = 'MicrophoneError'
}

type AudioHandlers = {
  /** One 20 ms frame of the microphone (PCM16 mono 16 kHz, 640 bytes). */
  onFrame: (frame: ArrayBuffer) => void
  onPlaybackStats: (stats: PlaybackStats) => void
}

/** Creates the audio context; call it in the click's own turn, so browsers let it play. */
export function createAudioContext(): AudioContext {
  const Context = window.AudioContext
  if (typeof Context !== 'function') throw new MicrophoneError('Web Audio is not available')
  return new Context({ latencyHint: 'interactive' })
}

/** The voice call's audio, running. `close` releases the microphone and the audio device. */
export class CallAudio {
  private readonly context: AudioContext
  private readonly stream: MediaStream
  private readonly capture: AudioWorkletNode
  private readonly playback: AudioWorkletNode
  private readonly gain: GainNode
  private readonly micAnalyser: AnalyserNode
  private readonly playbackAnalyser: AnalyserNode
  private readonly micBuffer: Float32Array<ArrayBuffer>
  private readonly playbackBuffer: Float32Array<ArrayBuffer>
  private closed = false

  private constructor(parts: {
    context: AudioContext
    stream: MediaStream
    capture: AudioWorkletNode
    playback: AudioWorkletNode
    gain: GainNode
    micAnalyser: AnalyserNode
    playbackAnalyser: AnalyserNode
  }) {
    this.context = parts.context
    this.stream = parts.stream
    this.capture = parts.capture
    this.playback = parts.playback
    this.gain = parts.gain
    this.micAnalyser = parts.micAnalyser
    this.playbackAnalyser = parts.playbackAnalyser
    this.micBuffer = new Float32Array(parts.micAnalyser.fftSize)
    this.playbackBuffer = new Float32Array(parts.playbackAnalyser.fftSize)
  }

  /**
   * Asks for the microphone and builds the graph on `context` (closed on failure). Rejects with a
   * MicrophoneError when the microphone is refused or missing, or the browser cannot capture.
   */
  static async start(context: AudioContext, handlers: AudioHandlers, muted: boolean): Promise<CallAudio> {
    let stream: MediaStream | null = null
    try {
      if (!navigator.mediaDevices?.getUserMedia) throw new MicrophoneError('This browser cannot use a microphone here')
      try {
        stream = await navigator.mediaDevices.getUserMedia({
          audio: { echoCancellation: true, noiseSuppression: true, autoGainControl: true, channelCount: 1 },
        })
      } catch (error) {
        throw new MicrophoneError(error instanceof Error ? `${error.name}: ${error.message}` : String(error))
      }
      if (context.state === 'suspended') await context.resume()
      try {
        await Promise.all([context.audioWorklet.addModule(captureWorkletUrl), context.audioWorklet.addModule(playbackWorkletUrl)])
      } catch (error) {
        throw new MicrophoneError(`The audio worklets could not be loaded: ${error instanceof Error ? error.message : String(error)}`)
      }
      const source = context.createMediaStreamSource(stream)
      const captureOptions: CaptureOptions = { outputRate: VOICE_SAMPLE_RATE, frameBytes: VOICE_FRAME_BYTES }
      const capture = new AudioWorkletNode(context, CAPTURE_PROCESSOR, {
        numberOfInputs: 1,
        numberOfOutputs: 0,
        channelCount: 1,
        channelCountMode: 'explicit',
        channelInterpretation: 'speakers',
        processorOptions: captureOptions,
      })
      const micAnalyser = new AnalyserNode(context, { fftSize: 2048 })
      source.connect(capture)
      source.connect(micAnalyser)

      const playbackOptions: PlaybackOptions = { inputRate: VOICE_SAMPLE_RATE, startMs: PLAYBACK_START_MS, capMs: PLAYBACK_CAP_MS }
      const playback = new AudioWorkletNode(context, PLAYBACK_PROCESSOR, {
        numberOfInputs: 0,
        numberOfOutputs: 1,
        outputChannelCount: [1],
        processorOptions: playbackOptions,
      })
      const gain = new GainNode(context, { gain: muted ? 0 : 1 })
      const playbackAnalyser = new AnalyserNode(context, { fftSize: 2048 })
      playback.connect(gain)
      gain.connect(context.destination)
      gain.connect(playbackAnalyser)

      capture.port.onmessage = (event: MessageEvent<ArrayBuffer>) => handlers.onFrame(event.data)
      playback.port.onmessage = (event: MessageEvent<PlaybackStats>) => handlers.onPlaybackStats(event.data)
      return new CallAudio({ context, stream, capture, playback, gain, micAnalyser, playbackAnalyser })
    } catch (error) {
      stream?.getTracks().forEach((track) => track.stop())
      void context.close().catch(() => undefined)
      throw error
    }
  }

  /** Queues the assistant's audio (PCM16 16 kHz) for playback. */
  play(bytes: ArrayBuffer): void {
    if (this.closed) return
    const command: PlaybackCommand = { type: 'audio', bytes }
    this.playback.port.postMessage(command, [bytes])
  }

  /** Drops the assistant audio queued for playback, at once. */
  flush(): void {
    if (this.closed) return
    const command: PlaybackCommand = { type: 'flush' }
    this.playback.port.postMessage(command)
  }

  /** Silences (and drops) the assistant's voice, or lets it play again. */
  setMuted(muted: boolean): void {
    if (this.closed) return
    this.gain.gain.setValueAtTime(muted ? 0 : 1, this.context.currentTime)
    if (muted) this.flush()
  }

  /** The microphone's and the assistant's levels now (RMS over the analysers' windows). */
  levels(): { mic: number; assistant: number } {
    if (this.closed) return { mic: 0, assistant: 0 }
    this.micAnalyser.getFloatTimeDomainData(this.micBuffer)
    this.playbackAnalyser.getFloatTimeDomainData(this.playbackBuffer)
    return { mic: rms(this.micBuffer), assistant: rms(this.playbackBuffer) }
  }

  /** Stops the microphone, the worklets and the context. Safe to call more than once. */
  close(): void {
    if (this.closed) return
    this.closed = true
    this.capture.port.postMessage('stop')
    const stop: PlaybackCommand = { type: 'stop' }
    this.playback.port.postMessage(stop)
    this.capture.port.onmessage = null
    this.playback.port.onmessage = null
    this.stream.getTracks().forEach((track) => track.stop())
    this.capture.disconnect()
    this.playback.disconnect()
    this.gain.disconnect()
    void this.context.close().catch(() => undefined)
  }
}
