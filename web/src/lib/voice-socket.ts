/**
 * The browser's end of the voice gateway (`GET /api/voice`, a WebSocket on our own origin; the
 * session cookie signs it in), for the chat's voice call and the dashboard's live phone calls alike.
 * Text frames are the versioned JSON protocol of common/voice.ts, each checked against its schema
 * both ways; binary frames are PCM16 mono 16 kHz audio.
 */
import { VOICE_FRAME_BYTES, VOICE_PROTOCOL_VERSION, VoiceClientMessageSchema, type VoiceClientMessage, type VoiceServerMessage } from '#common/voice'
import { isHello, parseServerMessage, voiceSocketUrl } from './voice-protocol'

/** The most microphone audio waiting in the socket's send buffer; newer frames are dropped beyond it. */
const MAX_QUEUED_AUDIO_BYTES = 10 * VOICE_FRAME_BYTES
/** How long the server may take to greet. */
const HELLO_TIMEOUT_MS = 10_000

/** The socket could not be opened, or closed before the server greeted with our protocol's version. */
class VoiceConnectError extends Error {
  override readonly name = 'VoiceConnectError'
}

type VoiceSocketHandlers = {
  onMessage: (message: VoiceServerMessage) => void
  /** The assistant's audio: PCM16 mono 16 kHz. */
  onAudio: (bytes: ArrayBuffer) => void
  /** The socket closed (after it was open and greeted). */
  onClose: (event: { code: number; reason: string }) => void
}

export class VoiceSocket {
  private readonly socket: WebSocket
  private closedByUs = false
  /** Microphone frames dropped because the connection was behind. */
  droppedFrames = 0

  private constructor(socket: WebSocket) {
    this.socket = socket
  }

  /**
   * Opens the socket and waits for the server's `hello` with our protocol version. `signal` gives
   * up on a socket not greeted yet: it is closed and the promise rejects.
   */
  static connect(handlers: VoiceSocketHandlers, { url = voiceSocketUrl(window.location), signal }: { url?: string; signal?: AbortSignal } = {}): Promise<VoiceSocket> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) {
        reject(new VoiceConnectError('The connection was given up'))
        return
      }
      let ws: WebSocket
      try {
        ws = new WebSocket(url)
      } catch (error) {
        reject(new VoiceConnectError(error instanceof Error ? error.message : String(error)))
        return
      }
      ws.binaryType = 'arraybuffer'
      const voice = new VoiceSocket(ws)
      let greeted = false
      const timer = window.setTimeout(() => {
        if (greeted) return
        reject(new VoiceConnectError('The voice gateway did not greet in time'))
        voice.close()
      }, HELLO_TIMEOUT_MS)
      ws.onmessage = (event: MessageEvent<string | ArrayBuffer>) => {
        if (typeof event.data !== 'string') {
          if (greeted && !voice.closedByUs) handlers.onAudio(event.data)
          return
        }
        const message = parseServerMessage(event.data)
        if (!message) {
          if (!greeted && isHello(event.data)) {
            reject(new VoiceConnectError('The voice gateway speaks another version of the protocol'))
            voice.close()
            return
          }
          console.warn('The voice gateway sent a message this page does not understand; it was ignored.')
          return
        }
        if (!greeted) {
          if (message.type !== 'hello') return
          greeted = true
          window.clearTimeout(timer)
          resolve(voice)
          return
        }
        if (!voice.closedByUs) handlers.onMessage(message)
      }
      signal?.addEventListener(
        'abort',
        () => {
          if (greeted) return
          window.clearTimeout(timer)
          reject(new VoiceConnectError('The connection was given up'))
          voice.close()
        },
        { once: true },
      )
      ws.onclose = (event) => {
        window.clearTimeout(timer)
        if (!greeted) {
          reject(new VoiceConnectError(`The voice gateway closed the connection (${event.code})`))
          return
        }
        if (!voice.closedByUs) handlers.onClose({ code: event.code, reason: event.reason })
      }
    })
  }

  get isOpen(): boolean {
    return this.socket.readyState === WebSocket.OPEN && !this.closedByUs
  }

  /** Sends one protocol message (checked against the schema); false when the socket is not open. */
  send(message: VoiceClientMessage): boolean {
    if (!this.isOpen) return false
    const checked = VoiceClientMessageSchema.parse(message)
    this.socket.send(JSON.stringify(checked))
    return true
  }

  /** Starts the voice call, written into `conversationId` (the chat's own) or, without, into a new conversation. */
  start(conversationId: string | null = null): boolean {
    return this.send({ type: 'start', v: VOICE_PROTOCOL_VERSION, ...(conversationId ? { conversationId } : {}) })
  }

  /**
   * Sends one microphone frame. When the connection is behind (more than MAX_QUEUED_AUDIO_BYTES
   * waiting), the frame is dropped: sending it later would only add delay and a burst.
   */
  sendAudio(frame: ArrayBuffer): boolean {
    if (!this.isOpen) return false
    if (this.socket.bufferedAmount > MAX_QUEUED_AUDIO_BYTES) {
      this.droppedFrames += 1
      return false
    }
    this.socket.send(frame)
    return true
  }

  /** Closes the socket (no more handler calls after this). */
  close(code = 1000, reason = ''): void {
    if (this.closedByUs) return
    this.closedByUs = true
    if (this.socket.readyState === WebSocket.CONNECTING || this.socket.readyState === WebSocket.OPEN) this.socket.close(code, reason)
  }
}
