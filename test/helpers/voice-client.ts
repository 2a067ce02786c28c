import WebSocket from 'ws'
import { VoiceServerMessageSchema, type VoiceServerMessage } from '#common/voice'

/** A frame the browser got: a JSON message (checked against the protocol) or audio. */
export type Received = { kind: 'json'; raw: string; message: VoiceServerMessage } | { kind: 'binary'; data: Buffer }

/** What a refused upgrade answered: the status, the headers and the body. */
export type Refusal = { status: number; headers: Record<string, string | string[] | undefined>; body: string }

type Waiter = { match: (message: VoiceServerMessage) => boolean; resolve: (message: VoiceServerMessage) => void; from: number }

/**
 * A test's stand-in for the browser: a `ws` client on the gateway that records every frame it
 * gets (for the scans), checks each JSON one against the protocol's schema, and lets the test wait
 * for messages by content, never by time.
 */
export class VoiceClient {
  readonly socket: WebSocket
  readonly frames: Received[] = []
  closed: { code: number; reason: string } | null = null
  readonly #waiters: Waiter[] = []
  readonly #closeWaiters: Array<(closed: { code: number; reason: string }) => void> = []
  readonly #audioWaiters: Array<{ count: number; resolve: () => void }> = []
  #audioCount = 0

  private constructor(socket: WebSocket) {
    this.socket = socket
    socket.binaryType = 'nodebuffer'
    socket.on('message', (data: Buffer, isBinary) => {
      if (isBinary) {
        this.frames.push({ kind: 'binary', data })
        this.#audioCount++
        for (const waiter of [...this.#audioWaiters]) {
          if (this.#audioCount >= waiter.count) {
            this.#audioWaiters.splice(this.#audioWaiters.indexOf(waiter), 1)
            waiter.resolve()
          }
        }
        return
      }
      const raw = data.toString('utf8')
      const message = VoiceServerMessageSchema.parse(JSON.parse(raw))
      this.frames.push({ kind: 'json', raw, message })
      for (const waiter of [...this.#waiters]) {
        if (this.#index(message) >= waiter.from && waiter.match(message)) {
          this.#waiters.splice(this.#waiters.indexOf(waiter), 1)
          waiter.resolve(message)
        }
      }
    })
    socket.on('close', (code, reason) => {
      this.closed = { code, reason: reason.toString() }
      for (const resolve of this.#closeWaiters.splice(0)) resolve(this.closed)
    })
    socket.on('error', () => {})
  }

  /** Opens a socket; resolves once it is open, or with the refusal. */
  static connect(url: string, headers: Record<string, string>): Promise<VoiceClient | Refusal> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url, { headers, perMessageDeflate: false })
      const client = new VoiceClient(socket)
      socket.once('open', () => resolve(client))
      socket.once('unexpected-response', (_request, response) => {
        let body = ''
        response.setEncoding('utf8')
        response.on('data', (chunk: string) => (body += chunk))
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }))
      })
      socket.once('error', (error) => reject(error))
    })
  }

  static async open(url: string, headers: Record<string, string>): Promise<VoiceClient> {
    const result = await VoiceClient.connect(url, headers)
    if (!(result instanceof VoiceClient)) throw new Error(`the upgrade was refused: ${result.status} ${result.body}`)
    return result
  }

  get messages(): VoiceServerMessage[] {
    return this.frames.flatMap((frame) => (frame.kind === 'json' ? [frame.message] : []))
  }

  get audioFrames(): Buffer[] {
    return this.frames.flatMap((frame) => (frame.kind === 'binary' ? [frame.data] : []))
  }

  #index(message: VoiceServerMessage): number {
    return this.messages.indexOf(message)
  }

  /** The first message (from the `from`-th on) that matches, already here or still to come. */
  next<T extends VoiceServerMessage['type']>(type: T, match: (message: Extract<VoiceServerMessage, { type: T }>) => boolean = () => true, from = 0): Promise<Extract<VoiceServerMessage, { type: T }>> {
    const test = (message: VoiceServerMessage) => message.type === type && match(message as Extract<VoiceServerMessage, { type: T }>)
    const found = this.messages.slice(from).find(test)
    if (found) return Promise.resolve(found as Extract<VoiceServerMessage, { type: T }>)
    return new Promise((resolve) => this.#waiters.push({ match: test, resolve: resolve as (message: VoiceServerMessage) => void, from }))
  }

  /** Resolves once `count` audio frames have arrived in all. */
  untilAudio(count: number): Promise<void> {
    if (this.#audioCount >= count) return Promise.resolve()
    return new Promise((resolve) => this.#audioWaiters.push({ count, resolve }))
  }

  /** Resolves when the socket has closed (with its code and reason). */
  whenClosed(): Promise<{ code: number; reason: string }> {
    if (this.closed) return Promise.resolve(this.closed)
    return new Promise((resolve) => this.#closeWaiters.push(resolve))
  }

  /**
   * Resolves once the server has read every frame sent before: a ping is answered after the frames
   * ahead of it (ws handles a socket's frames in order; the gateway handles each as it comes).
   */
  roundTrip(): Promise<void> {
    return new Promise((resolve, reject) => {
      const onPong = () => {
        this.socket.off('close', onClose)
        resolve()
      }
      const onClose = () => {
        this.socket.off('pong', onPong)
        reject(new Error('the socket closed before the pong'))
      }
      this.socket.once('pong', onPong)
      this.socket.once('close', onClose)
      this.socket.ping()
    })
  }

  send(message: Record<string, unknown>): void {
    this.socket.send(JSON.stringify(message))
  }

  sendRaw(data: string | Buffer, binary = typeof data !== 'string'): void {
    this.socket.send(data, { binary })
  }

  close(): Promise<{ code: number; reason: string }> {
    this.socket.close(1000)
    return this.whenClosed()
  }
}
