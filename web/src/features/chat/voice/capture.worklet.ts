/**
 * The capture worklet (audio thread): the microphone at the context's rate in, 20 ms frames of
 * PCM16 mono at 16 kHz out, posted to the main thread as transferred ArrayBuffers.
 */
import { Pcm16Framer } from './pcm'
import { CAPTURE_PROCESSOR, type CaptureOptions } from './worklet-types'

// The AudioWorkletGlobalScope's names (TypeScript's DOM library does not describe that scope).
declare const sampleRate: number
declare class AudioWorkletProcessor {
  readonly port: MessagePort
}
declare function registerProcessor(name: string, processor: new (options: { processorOptions: CaptureOptions }) => AudioWorkletProcessor): void

class CaptureProcessor extends AudioWorkletProcessor {
  private readonly framer: Pcm16Framer
  private running = true

  constructor({ processorOptions }: { processorOptions: CaptureOptions }) {
    super()
    this.framer = new Pcm16Framer({ inputRate: sampleRate, outputRate: processorOptions.outputRate, frameBytes: processorOptions.frameBytes })
    this.port.onmessage = (event: MessageEvent<unknown>) => {
      if (event.data === 'stop') this.running = false
    }
  }

  process(inputs: Float32Array[][]): boolean {
    const input = inputs[0]
    if (this.running && input && input.length > 0) {
      for (const frame of this.framer.push(input)) this.port.postMessage(frame, [frame])
    }
    return this.running
  }
}

registerProcessor(CAPTURE_PROCESSOR, CaptureProcessor)
