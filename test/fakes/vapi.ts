/**
 * A local fake of Vapi's REST API for tests and benchmarks: a real
 * HTTP server on 127.0.0.1 that the app reaches through VAPI_API_URL, holding to Vapi's wire
 * formats. This part covers what the chat needs: `POST /chat` (JSON, or server-sent events with
 * `stream: true`) and `GET /chat/:id`. The voice and calls issues add their routes to `fake.app`
 * and reuse the shared rules below (Bearer auth, Vapi's error shape, recording, fault injection).
 *
 * Behaviour:
 * - Every REST route needs `Authorization: Bearer <apiKey>`; otherwise 401.
 * - Errors use Vapi's shape: {"message": ["…"] | "…", "error": "Bad Request", "statusCode": 400}.
 * - `POST /chat` validation: unknown top-level properties ("property X should not exist"); `input`
 *   required (a non-empty string or array); `sessionId` and `previousChatId` are mutually exclusive;
 *   `sessionId` with `assistantId` is refused; one of assistantId, assistant, squadId, squad,
 *   sessionId or previousChatId is required. An unknown `previousChatId` (or `sessionId`, since the
 *   fake has no sessions) is a **404** Not Found: Vapi's real status is unconfirmed (400 or 404);
 *   this fake picks 404.
 * - The reply is deterministic and reflects the input and the received variableValues:
 *   `echo:<input>|name:<firstName>|goals:<goalsSummary or goals>|turn:<position in the chain>`.
 *   Each chat gets a new id; `messages` holds the chained history (previousChatId) plus the input.
 * - Streaming answers `text/event-stream` with `data: {"id","path":"chat.output[0].content","delta"}`
 *   lines, one per word, then closes.
 * - Faults (per route, for the next N requests): a status (with an optional body, Retry-After, and
 *   `commit` to create the chat anyway, "succeeded server-side but answered 5xx"), latency before
 *   the answer, a hang (never answers until reset/close), a dropped connection, and a stream that
 *   stalls after some deltas. `holdStreams()` holds every stream after its first delta until released.
 * - Every request is recorded (method, path, headers, body) for assertions.
 * - A test-control API under `/__fake/*` (no auth; the fake listens on loopback only) does the same
 *   from another process: GET requests, POST faults, POST settings, POST reset.
 */
import { randomUUID } from 'node:crypto'
import type { IncomingHttpHeaders, ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify'
import { registerVapiResources } from './vapi-resources'

export type RecordedRequest = {
  method: string
  /** The path without the query string. */
  path: string
  headers: IncomingHttpHeaders
  body: unknown
  /** Milliseconds since the fake started. */
  at: number
}

export type Fault =
  | { kind: 'status'; status: number; body?: unknown; retryAfterSeconds?: number; commit?: boolean }
  | { kind: 'latency'; ms: number }
  | { kind: 'hang' }
  | { kind: 'drop' }
  | { kind: 'stall-stream'; afterDeltas: number }

export type FakeChat = {
  id: string
  orgId: string
  assistantId: string | undefined
  previousChatId: string | undefined
  name: string | undefined
  input: unknown
  messages: Array<{ role: string; content: string }>
  output: Array<{ role: 'assistant'; content: string }>
  variableValues: Record<string, unknown>
  stream: boolean
  createdAt: string
  updatedAt: string
  cost: number
  costs: unknown[]
}

export type ReplyInput = { input: string; variableValues: Record<string, unknown>; turn: number; history: FakeChat[] }

export type FakeVapiOptions = {
  apiKey?: string
  /** Delay between streamed deltas (default 0). */
  deltaDelayMs?: number
  /** Delay before the first streamed delta or the JSON answer (default 0). */
  firstTokenDelayMs?: number
  /** Builds the assistant's reply; the default echoes the input and variable values. */
  reply?: (input: ReplyInput) => string
}

const CHAT_FIELDS = new Set(['assistantId', 'assistant', 'assistantOverrides', 'squadId', 'squad', 'name', 'sessionId', 'input', 'stream', 'previousChatId', 'transport'])
const ORG_ID = 'org-fake-0001'
const REASONS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  408: 'Request Timeout',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
}

/** Vapi's error body. */
export function vapiError(status: number, message: string | string[]) {
  return { message, error: REASONS[status] ?? 'Error', statusCode: status }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export function defaultReply({ input, variableValues, turn }: ReplyInput): string {
  const name = String(variableValues.firstName ?? '')
  const goals = String(variableValues.goalsSummary ?? variableValues.goals ?? '')
  return `echo:${input}|name:${name}|goals:${goals}|turn:${turn}`
}

/** The words of a text with their following spaces: the pieces a stream delivers. */
export function splitIntoDeltas(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [text]
}

const inputText = (input: unknown): string =>
  typeof input === 'string'
    ? input
    : Array.isArray(input)
      ? input.map((item) => (item && typeof item === 'object' ? String((item as { content?: unknown }).content ?? '') : String(item))).join('\n')
      : ''

export class FakeVapi {
  readonly app: FastifyInstance
  readonly apiKey: string
  readonly requests: RecordedRequest[] = []
  readonly chats = new Map<string, FakeChat>()
  deltaDelayMs: number
  firstTokenDelayMs: number
  reply: (input: ReplyInput) => string
  #faults: Array<{ route: string; fault: Fault; remaining: number }> = []
  #hanging = new Set<ServerResponse>()
  #held: { promise: Promise<void>; release: () => void } | null = null
  #startedAt = performance.now()
  #url = ''

  private constructor(options: FakeVapiOptions) {
    this.apiKey = options.apiKey ?? `fake-vapi-key-${randomUUID()}`
    this.deltaDelayMs = options.deltaDelayMs ?? 0
    this.firstTokenDelayMs = options.firstTokenDelayMs ?? 0
    this.reply = options.reply ?? defaultReply
    this.app = Fastify({ logger: false, forceCloseConnections: true })
    this.#routes()
  }

  /** Starts a fake on a random loopback port. */
  static async start(options: FakeVapiOptions = {}): Promise<FakeVapi> {
    const fake = new FakeVapi(options)
    await fake.app.listen({ port: 0, host: '127.0.0.1' })
    fake.#url = `http://127.0.0.1:${(fake.app.server.address() as AddressInfo).port}`
    return fake
  }

  /** The base URL to give the app as VAPI_API_URL. */
  get url(): string {
    return this.#url
  }

  /** Requests received on a route, e.g. `requestsTo('POST', '/chat')`. */
  requestsTo(method: string, path: string): RecordedRequest[] {
    return this.requests.filter((request) => request.method === method && request.path === path)
  }

  /** The bodies of the chat requests received, in order. */
  chatBodies(): Array<Record<string, unknown>> {
    return this.requestsTo('POST', '/chat').map((request) => request.body as Record<string, unknown>)
  }

  /** Applies a fault to the next `times` requests of a route such as 'POST /chat' (Infinity for all). */
  inject(route: string, fault: Fault, times = 1): void {
    this.#faults.push({ route, fault, remaining: times })
  }

  /** Holds every stream after its first delta until `release()` (to observe a reply mid-stream). */
  holdStreams(): { release: () => void } {
    let release = () => {}
    const promise = new Promise<void>((resolve) => (release = resolve))
    const held = {
      promise,
      release: () => {
        if (this.#held === held) this.#held = null
        release()
      },
    }
    this.#held = held
    return { release: held.release }
  }

  /** Forgets recorded requests and faults, ends hanging answers, releases held streams. */
  reset(): void {
    this.requests.length = 0
    this.#faults = []
    this.#held?.release()
    for (const response of this.#hanging) response.destroy()
    this.#hanging.clear()
  }

  async close(): Promise<void> {
    this.reset()
    await this.app.close()
  }

  #takeFault(route: string): Fault | undefined {
    const index = this.#faults.findIndex((entry) => entry.route === route && entry.remaining > 0)
    if (index === -1) return undefined
    const entry = this.#faults[index]!
    entry.remaining -= 1
    if (entry.remaining <= 0) this.#faults.splice(index, 1)
    return entry.fault
  }

  /** Applies latency, hang and drop; answers a status fault. Returns the fault left for the route to act on. */
  async #before(route: string, reply: FastifyReply): Promise<{ done: boolean; fault: Fault | undefined }> {
    const fault = this.#takeFault(route)
    if (!fault) return { done: false, fault }
    if (fault.kind === 'latency') {
      await sleep(fault.ms)
      return { done: false, fault }
    }
    if (fault.kind === 'hang') {
      reply.hijack()
      this.#hanging.add(reply.raw)
      reply.raw.once('close', () => this.#hanging.delete(reply.raw))
      return { done: true, fault }
    }
    if (fault.kind === 'drop') {
      reply.hijack()
      reply.raw.socket?.destroy()
      return { done: true, fault }
    }
    if (fault.kind === 'status' && !fault.commit) {
      this.#sendStatusFault(reply, fault)
      return { done: true, fault }
    }
    return { done: false, fault }
  }

  #sendStatusFault(reply: FastifyReply, fault: Extract<Fault, { kind: 'status' }>) {
    if (fault.retryAfterSeconds !== undefined) reply.header('retry-after', String(fault.retryAfterSeconds))
    reply.code(fault.status).send(fault.body ?? vapiError(fault.status, fault.status >= 500 ? 'Internal server error (injected)' : 'Injected error'))
  }

  #routes() {
    const app = this.app

    app.setErrorHandler((error: { statusCode?: number; message: string }, _request, reply) => {
      const status = error.statusCode && error.statusCode >= 400 ? error.statusCode : 500
      reply.code(status).send(vapiError(status, status === 400 ? [error.message] : error.message))
    })
    app.setNotFoundHandler((request, reply) => {
      reply.code(404).send(vapiError(404, `Cannot ${request.method} ${request.url.split('?')[0]}`))
    })

    app.addHook('preHandler', async (request, reply) => {
      const path = request.url.split('?')[0] ?? '/'
      if (path.startsWith('/__fake/')) return
      this.requests.push({ method: request.method, path, headers: request.headers, body: request.body, at: performance.now() - this.#startedAt })
      if (request.headers.authorization !== `Bearer ${this.apiKey}`) {
        return reply
          .code(401)
          .send(vapiError(401, 'Invalid Key. Hot tip, you may be using the private key instead of the public key, or vice versa.'))
      }
    })

    app.post('/chat', async (request, reply) => this.#createChat(request, reply))
    app.get('/chat/:id', async (request, reply) => {
      const chat = this.chats.get((request.params as { id: string }).id)
      if (!chat) return reply.code(404).send(vapiError(404, 'Chat not found'))
      return chat
    })
    registerVapiResources(app)

    // Test control (for a test in another process than the fake).
    app.get('/__fake/requests', async () => ({ requests: this.requests }))
    app.post('/__fake/faults', async (request) => {
      const { route, fault, times } = request.body as { route: string; fault: Fault; times?: number }
      this.inject(route, fault, times ?? 1)
      return { ok: true }
    })
    app.post('/__fake/settings', async (request) => {
      const body = request.body as { deltaDelayMs?: number; firstTokenDelayMs?: number }
      if (typeof body.deltaDelayMs === 'number') this.deltaDelayMs = body.deltaDelayMs
      if (typeof body.firstTokenDelayMs === 'number') this.firstTokenDelayMs = body.firstTokenDelayMs
      return { ok: true }
    })
    app.post('/__fake/reset', async () => {
      this.reset()
      return { ok: true }
    })
  }

  /** The 400 messages for a chat body, empty when it is valid. */
  #validateChat(body: Record<string, unknown>): string[] {
    const problems: string[] = []
    for (const key of Object.keys(body)) if (!CHAT_FIELDS.has(key)) problems.push(`property ${key} should not exist`)
    const input = body.input
    if (input === undefined || input === null || input === '') problems.push('input should not be empty')
    else if (!(typeof input === 'string' || (Array.isArray(input) && input.length > 0))) problems.push('input must be a string or a non-empty array of messages')
    if (body.sessionId !== undefined && body.previousChatId !== undefined) problems.push('sessionId and previousChatId are mutually exclusive')
    if (body.sessionId !== undefined && body.assistantId !== undefined) problems.push('assistantId cannot be used with sessionId: a session belongs to one assistant')
    const sources = ['assistantId', 'assistant', 'squadId', 'squad', 'sessionId', 'previousChatId']
    if (!sources.some((key) => body[key] !== undefined)) problems.push('Either assistantId, assistant, squadId, squad, sessionId or previousChatId must be provided')
    if (body.stream !== undefined && typeof body.stream !== 'boolean') problems.push('stream must be a boolean value')
    if (body.assistantOverrides !== undefined && (typeof body.assistantOverrides !== 'object' || body.assistantOverrides === null)) {
      problems.push('assistantOverrides must be an object')
    }
    for (const key of ['assistantId', 'previousChatId', 'sessionId', 'name'] as const) {
      if (body[key] !== undefined && typeof body[key] !== 'string') problems.push(`${key} must be a string`)
    }
    return problems
  }

  async #createChat(request: FastifyRequest, reply: FastifyReply) {
    const before = await this.#before('POST /chat', reply)
    if (before.done) return reply
    const body = request.body
    if (!body || typeof body !== 'object' || Array.isArray(body)) return reply.code(400).send(vapiError(400, ['body must be a JSON object']))
    const fields = body as Record<string, unknown>
    const problems = this.#validateChat(fields)
    if (problems.length > 0) return reply.code(400).send(vapiError(400, problems))

    const previousChatId = fields.previousChatId as string | undefined
    const previous = previousChatId ? this.chats.get(previousChatId) : undefined
    if (previousChatId && !previous) return reply.code(404).send(vapiError(404, `Chat with id ${previousChatId} not found`))
    if (fields.sessionId !== undefined) return reply.code(404).send(vapiError(404, `Session with id ${String(fields.sessionId)} not found`))

    const history: FakeChat[] = []
    for (let chat = previous; chat; chat = chat.previousChatId ? this.chats.get(chat.previousChatId) : undefined) history.unshift(chat)
    const input = inputText(fields.input)
    const variableValues = ((fields.assistantOverrides as { variableValues?: Record<string, unknown> } | undefined)?.variableValues ?? {}) as Record<string, unknown>
    const content = this.reply({ input, variableValues, turn: history.length + 1, history })
    const now = new Date().toISOString()
    const chat: FakeChat = {
      id: randomUUID(),
      orgId: ORG_ID,
      assistantId: (fields.assistantId as string | undefined) ?? previous?.assistantId,
      previousChatId,
      name: fields.name as string | undefined,
      input: fields.input,
      messages: [...(previous ? [...previous.messages, ...previous.output] : []), { role: 'user', content: input }],
      output: [{ role: 'assistant', content }],
      variableValues,
      stream: fields.stream === true,
      createdAt: now,
      updatedAt: now,
      cost: 0,
      costs: [],
    }
    this.chats.set(chat.id, chat)

    if (before.fault?.kind === 'status') {
      // Committed: the chat exists, but the answer says it failed.
      this.#sendStatusFault(reply, before.fault)
      return reply
    }
    if (this.firstTokenDelayMs > 0) await sleep(this.firstTokenDelayMs)
    if (!chat.stream) return reply.code(201).send(chat)
    return this.#stream(reply, chat, before.fault?.kind === 'stall-stream' ? before.fault.afterDeltas : undefined)
  }

  async #stream(reply: FastifyReply, chat: FakeChat, stallAfter: number | undefined) {
    reply.hijack()
    const raw = reply.raw
    raw.writeHead(201, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' })
    const deltas = splitIntoDeltas(chat.output[0]!.content)
    let sent = 0
    for (const delta of deltas) {
      if (raw.destroyed) return reply
      if (stallAfter !== undefined && sent >= stallAfter) {
        this.#hanging.add(raw)
        raw.once('close', () => this.#hanging.delete(raw))
        return reply
      }
      raw.write(`data: ${JSON.stringify({ id: chat.id, path: 'chat.output[0].content', delta })}\n\n`)
      sent += 1
      if (sent === 1 && this.#held) await this.#held.promise
      if (this.deltaDelayMs > 0) await sleep(this.deltaDelayMs)
    }
    raw.end()
    return reply
  }
}
