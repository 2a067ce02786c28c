/**
 * A local fake of Vapi's REST API and server messages for tests and benchmarks: a real HTTP server
 * on 127.0.0.1 that the app reaches through VAPI_API_URL (the official SDK with `baseUrl`), holding
 * to Vapi's wire formats (brief: vapi.md §1–§6, §10). Route modules: this file (shared rules,
 * chat, test control), vapi-calls.ts (calls and the phone calls' scripted scenarios),
 * vapi-transport.ts (the WebSocket transport and every call's control URL), vapi-webhooks.ts (the
 * webhook sender), vapi-shared.ts (the host interface a route module gets). Another module
 * registers with one call in the constructor, e.g. `registerX(this)` taking a `FakeVapiHost`; it
 * may plug its stores into `calls.resolveAssistant` (server URL, serverMessages of an assistantId)
 * and `calls.resolveCredential` (the webhook auth of a server.credentialId).
 *
 * Shared rules:
 * - Every REST route needs `Authorization: Bearer <apiKey>`; otherwise 401.
 * - Errors use Vapi's shape: {"message": ["…"] | "…", "error": "Bad Request", "statusCode": 400};
 *   unknown top-level properties are refused as "property X should not exist" (nested ones as
 *   "customer.property X should not exist", class-validator's wording).
 * - Faults (per route such as 'POST /call', for the next N requests, first queued first served):
 *   a status (optional body and Retry-After), latency, a hang (never answers until reset/close), a
 *   dropped connection, a stalled stream (chat), and `pass` (answer normally: a placeholder in a
 *   sequence). `commit: true` creates the resource first, then fails the answer: "created
 *   server-side, but the client saw a 5xx / timeout / network error" (POST /call: on a status,
 *   hang or drop; POST /chat: on a status).
 * - Every request is recorded (method, path, headers, body). Time comes from `options.clock`.
 *
 * Chat: `POST /chat` (JSON, or server-sent events with `stream: true`), `GET /chat/:id` and
 * `DELETE /chat/:id` (200 with the chat as it was; afterwards GET, DELETE and a `previousChatId`
 * naming it answer 404; `deletedChats` keeps what was deleted, for assertions; faults: 'DELETE /chat').
 * - Validation: unknown top-level properties; `input` required (a non-empty string or array);
 *   `sessionId` and `previousChatId` are mutually exclusive; `sessionId` with `assistantId` is
 *   refused; one of assistantId, assistant, squadId, squad, sessionId or previousChatId is required.
 *   An unknown `previousChatId` (or `sessionId`: the fake has no sessions) is a **404** (Vapi's real
 *   status is unconfirmed, 400 or 404; this fake picks 404).
 * - The reply is deterministic: `echo:<input>|name:<firstName>|goals:<goalsSummary or goals>|turn:<n>`;
 *   `scriptChatReply(inputStartsWith, content)` queues a reply as a model would write it for one
 *   instruction (a memory extraction's JSON, docs/decisions/083): the next chat whose input starts
 *   with those words is answered with `content`, once; other chats are answered as above.
 *   Each chat gets a new id; `messages` holds the chained history plus the input. Streaming answers
 *   `data: {"id","path":"chat.output[0].content","delta"}` lines, one per word. `holdStreams()`
 *   holds every stream after its first delta until released.
 *
 * Calls (vapi-calls.ts):
 * - `POST /call` → 201 Call: validation per CreateCallDTO (exactly one of assistantId, assistant,
 *   squadId, squad, workflowId, workflow; name ≤ 40; a phone call needs phoneNumberId (or
 *   phoneNumber) and customer.number in E.164 unless numberE164CheckEnabled is false, 3–40 chars;
 *   assistantOverrides.maxDurationSeconds 10–43200; serverMessages from the SDK's enum;
 *   server.url a URL, server.timeoutSeconds 1–300; schedulePlan dates). The Call has id, orgId,
 *   type 'outboundPhoneCall', status 'queued' ('scheduled' with schedulePlan), createdAt/updatedAt,
 *   the echoed request fields, monitor {listenUrl, controlUrl} on the fake's host, and
 *   subscriptionLimits (concurrencyLimit 10; remaining = limit − calls queued/ringing/in progress).
 *   `customers[]` answers {results, errors: [], subscriptionLimits}. With `transport` it is a
 *   WebSocket call (below).
 * - Line limit (`enforceConcurrency`, off by default: the limit is then only reported): a phone
 *   call created while the calls holding a line (queued, ringing, in progress, forwarding; phone
 *   and WebSocket calls alike) are already at `concurrencyLimit` is answered 201 with
 *   subscriptionLimits {concurrencyBlocked: true, remainingConcurrentCalls: 0}, holds no line,
 *   and plays only status-update ended 'call.start.error-subscription-concurrency-limit-reached'
 *   (no report), whatever its number's scenario. `calls.refused` counts them, `calls.activeCalls`
 *   is the lines held, `calls.onLinesChange(active, call)` hears each change (GET /__fake/lines:
 *   {concurrencyLimit, enforceConcurrency, active, refused}). The fake's choices: a WebSocket
 *   call and a scheduled call are never refused (a scheduled one is not counted until dialled);
 *   a batch (`customers[]`) refuses the customers past the limit, and its one subscriptionLimits
 *   says blocked when any was.
 * - Durations: an answered call talks `scenario.talkSeconds`, else `talkSeconds(call)` (a
 *   per-fake function; `lognormalTalkSeconds({medianSeconds: 210, sigma: 0.5, seed})` draws the
 *   same seconds for the same number and seed), else 150 s. Every connected call is capped by its
 *   assistantOverrides.maxDurationSeconds (600 when unset) and then ends 'exceeded-max-duration'.
 *   `timeScale` (default 1) divides every interval of a phone call's script (ring 1 s, answer
 *   6 s, talk, the report's 4 s lag…): scaled durations, timestamps consistent with the clock.
 * - `GET /call`: filters id, assistantId, phoneNumberId, createdAt{Gt,Lt,Ge,Le}, updatedAt{…};
 *   limit (default 100, at most 1000: the fake's choice). Unknown query properties are refused.
 *   Order: newest createdAt first (UNCONFIRMED: the brief does not say; ties newest-created first).
 * - `GET /call/:id`: the current record, moving with the scenario (status, endedReason, startedAt,
 *   endedAt, cost, costs, artifact, analysis, messages); 404 {"message":"Call not found"}.
 * - `DELETE /call/:id`: 200 with the call as deleted, ended calls too (Vapi deletes a call's data
 *   whatever its status); a call not yet ended ends first (scheduled →
 *   scheduled-call-deleted, queued → manually-canceled, ringing/in progress → call-deleted, the last
 *   UNCONFIRMED) with a status-update; afterwards the data is gone (GET and DELETE 404; `calls.get`
 *   keeps it). Faults: 'DELETE /call'.
 * - Scenarios by customer number (default 'answered'): answered (queued → ringing → in-progress →
 *   5 utterances as speech-update/transcript partial+final/conversation-update → ended
 *   customer-ended-call → end-of-call-report with artifact {transcript, messages,
 *   messagesOpenAIFormatted, structuredOutputs {<id>: {name: 'coaching_call_report', result}},
 *   variableValues}, analysis {summary}, startedAt, endedAt, durationSeconds, durationMs, cost,
 *   costs); no-answer (ringing → customer-did-not-answer); busy (customer-busy); voicemail
 *   (in-progress → voicemail, the voicemailMessage as the only utterance); start-error (only a
 *   status-update ended call.start.error-subscription-concurrency-limit-reached, no report); stuck
 *   (stays in-progress forever). UNCONFIRMED choices: calls that never connect still get an
 *   end-of-call-report (empty artifact, no summary) except start-error; the call record gets its
 *   artifact, analysis and cost only with the report (Vapi's record lags at teardown);
 *   assistant turns in artifact.messages have role 'bot' (`botRole` option); no legacy top-level
 *   summary/transcript fields; `timestamp` is epoch ms; each scripted step has its own instant from
 *   createdAt (ringing +1 s, answer +6 s, talk 150 s, report 4 s after the end), used for
 *   timestamps, startedAt/endedAt and updatedAt, independent of real time. The default result is
 *   deterministic: areasDiscussed = the variableValues.focusAreas labels as LIFE_AREAS ids
 *   (['fitness', 'family'] when none parse), mood 7, energy 6, a summary and one commitment built
 *   from firstName and the areas; result, summary, endedReason, talk time and cost are settable
 *   per number.
 * - Server messages go to assistantOverrides.server.url (else an inline assistant's, a resolved
 *   assistant's, or the configured default URL) as {message: {type, timestamp, call, customer, …}},
 *   only types in serverMessages (else the default list of brief §3.1; transcript[transcriptType=
 *   "final"] gets finals only), with the static server.headers plus the auth mode (none, X-Vapi-Secret,
 *   Bearer, HMAC of `${timestamp}.${rawBody}` in x-signature/x-timestamp, the clock's time at send,
 *   in seconds or ms), or the header of the account's credential a server's `credentialId` names
 *   (vapi-resources.ts: bearer or HMAC, Vapi's defaults; POST /call refuses an id the account does
 *   not have, the fake's choice). Knobs (vapi-webhooks.ts): duplicates, order
 *   (timeline | shuffle | reverse), delay, drop rate (seeded) or types, per-delivery timeout,
 *   backoffPlan retries (delays × retryDelayScale, 0 by default); every attempt recorded (dropped
 *   ones too). A reordered stream is built whole first, so the record is final before its first
 *   delivery. Drops and shuffles draw from a PRNG per call, seeded by `seed` and the call's
 *   position since the last reset: the same test gives the same result. Pacing 'auto' plays a
 *   call right after its 201 (each delivery awaited, in order; the script, hence the scenario, is
 *   fixed at creation; its instants are only timestamps); 'clock' plays each step when the
 *   fake's clock reaches its instant, through the `timers` option (real timers by default; a test
 *   passes manual timers), so a call holds its line for as long as it lasts; 'manual' waits for
 *   `play(callId)` / `advance()` (the earliest scripted step of any call); a scheduled call always
 *   waits for those. `settled()` waits for everything scheduled.
 *
 * - Live phone calls: with serverMessages holding 'transcript', an answered call sends each
 *   utterance's transcript partial and final between in-progress and ended
 *   ('transcript[transcriptType="final"]': finals only). To watch a call in progress: manual pacing
 *   (`advance()` step by step), or `calls.holdBefore('status-update:ended')` in auto pacing, which
 *   holds every call before that step until released (`reached` resolves with the first held).
 *
 * WebSocket calls (vapi-transport.ts; `fake.transport`):
 * - `POST /call` with `transport: {provider: 'vapi.websocket', audioFormat?, conversationType?}`:
 *   no phoneNumberId, phoneNumber, customers or schedulePlan (400); audioFormat.format pcm_s16le
 *   (default) or mulaw, container raw, sampleRate an integer 1–192000 (default 16000; the fake's
 *   lower bound is 1, Vapi's 0). 201 with type 'vapi.websocketCall', status 'queued', transport
 *   {provider, audioFormat (defaults filled in), websocketCallUrl ws://127.0.0.1:<port>/<id>/transport
 *   (`calls.websocketBase` names another base, for a test of a socket elsewhere)},
 *   monitor {listenUrl, controlUrl}; no phoneCallProvider fields; no script plays.
 * - Upgrade to `/<id>/transport`: the Bearer key is recorded (valid, invalid, missing) and needed
 *   only with `requireBearer` (else 401). Refused with an HTTP status and Vapi's error body: 404
 *   for an unknown, deleted or ended call (and every listen URL: not served); 409 for a second
 *   socket to a call (UNCONFIRMED: Vapi's behaviour is unknown). No socket within `joinTimeoutMs`
 *   (15 s; Vapi documents customerJoinTimeoutSeconds for web calls only): ended
 *   'call.in-progress.error-assistant-did-not-receive-customer-audio'.
 * - On open: the call is in progress (startedAt from the clock), text {"type":"status-update",
 *   "status":"in-progress"}, then the greeting (assistantOverrides.firstMessage with {{variables}},
 *   else "Hi <firstName>, this is your coach. What would you like to talk about?"; none with
 *   firstMessageMode 'assistant-waits-for-user'). Every assistant turn (greeting, reply, say):
 *   speech-update assistant started, transcript partial (first half of the words) and final,
 *   conversation-update, N 20 ms frames of a 440 Hz tone in the call's format (greetingFrames,
 *   replyFrames: 10), paced at frameIntervalMs (20; 0 sends at once), speech-update stopped.
 *   JSON messages are flat ({type, …}); `turn` counts user and assistant turns from 1.
 * - Inbound audio: a pcm_s16le frame of odd length closes 1007 (the call ends
 *   'phone-call-provider-closed-websocket'); bytes and frames are counted. Speech detection: a
 *   frame is speech when its mean absolute sample (PCM16 scale) is above silenceThreshold (500);
 *   speechMs (200) of speech starts a user turn (speech-update user started, transcript partial),
 *   silenceMs (500) of silence ends it (transcript final, speech-update stopped,
 *   conversation-update), then the reply `reply({text})` (default `echo:<text>`). The user's
 *   words are `userTranscripts[turn]` (the last repeats). Speech that starts during an assistant
 *   turn interrupts it: speech-update user started, user-interrupted {turnId} (unless
 *   userInterrupted is off), no more frames, speech-update assistant stopped.
 * - Inbound JSON: say (content, or message as the web SDK sends; endCallAfterSpoken ends with
 *   'assistant-ended-call-after-message-spoken'), add-message (logged; with triggerResponseEnabled,
 *   default true, a user or system message gets the reply `echo:<content>`), control
 *   (mute-assistant: frames are counted, not sent, unless honourAssistantMute is off (then they
 *   are sent anyway, as by a provider that ignores it); mute-customer: audio is not heard;
 *   say-first-message; all recorded), end-call or hangup (ended 'customer-ended-call'). Other
 *   types and text that is not JSON are recorded and ignored.
 * - Echo mode (`echo`, for every call or per call): inbound binary frames go straight back
 *   unchanged; no greeting, no speech detection, say/add-message recorded only; end-call works.
 * - Ends: the call record ends (duration from the fake's clock, $0.12 a minute, artifact of what
 *   was said, a coaching_call_report and summary once two messages were said); an open socket
 *   gets status-update ended then close 1000; then server messages status-update ended and
 *   end-of-call-report. Paths: end-call; `endCall(id)` ('assistant-ended-call'); maxDurationSeconds
 *   (600 by default) × maxDurationScale on the `timers` option (manual timers on a test clock);
 *   `drop(id)` (terminate, no close frame: 1006; 'call.in-progress.error-vapifault-worker-died');
 *   the client closing without end-call ('phone-call-provider-closed-websocket', UNCONFIRMED);
 *   the join timeout; DELETE /call/:id ('call-deleted', socket closed, no report).
 * - Server messages: every JSON message the socket sends of the types status-update,
 *   speech-update, transcript, conversation-update and user-interrupted also goes to the call's
 *   server URL when its serverMessages allow it.
 *
 * Control URL `POST /<id>/control` (every call's monitor.controlUrl; no key, as Vapi's
 * controlAuthenticationEnabled defaults to false): say, add-message, control, end-call, transfer,
 * handoff, validated (400 in Vapi's shape); 200 {"ok":true} (Vapi's body is UNCONFIRMED); 404 for
 * an unknown, deleted, scheduled or ended call. A WebSocket call acts as on its socket; end-call
 * ends with `controlEndedReason` ('customer-ended-call', UNCONFIRMED: Vapi names no reason for a
 * control-URL end). A phone call records the messages (`transport.controlMessages(id)`); end-call
 * drops the rest of its script and ends it now (at the later of the clock and its last played
 * step) with the same reason, then status-update ended and an end-of-call-report of what was
 * said (with summary once two messages were said).
 *
 * Transport test API (`fake.transport`): configure (every later call), configureNext (the next N
 * calls), configureCall(id) (from now on), stats(id) (state, bearer, bytes and frames in and out,
 * frames muted, messages received and sent, says, addMessages, controls, ignored, endCallReceived,
 * turns, interruptions, close code and side, endedReason), controlMessages(id), upgrades,
 * endCall(id, reason?), drop(id), interrupt(id) (user-interrupted mid-reply), holdAudio(afterFrames?)
 * (turns pause after their first frame, or their first `afterFrames`, until released),
 * stallReading(id) / resumeReading(id) (the call's socket stops reading, as a stalled peer: TCP
 * buffers fill and the client's writes wait; resumed, it reads what waited), and waits that resolve on events:
 * connected(id?), ended(id), idle(id), waitFor(id, predicate), settled().
 *
 * Test control over HTTP under `/__fake/*` (no auth; loopback only), for another process:
 * GET requests, POST faults ({route, fault, times} or {route, sequence}), POST settings, POST chat-replies ({inputStartsWith, content}), POST reset,
 * GET calls, GET calls/:id, POST calls/:id/play, POST advance, POST settled, GET deliveries
 * (?callId=), POST scenarios ({scenarios, default}), POST webhooks (knobs, url, pacing,
 * concurrencyLimit, enforceConcurrency, timeScale), GET lines, POST webhooks/auth, POST calls/hold ({before}), POST calls/hold/reached,
 * POST calls/hold/release; transport: POST transport/settings, POST transport/next ({settings,
 * times}), GET transport/calls, GET transport/calls/:id, GET transport/controls/:id, POST
 * transport/calls/:id/{settings, end ({endedReason}), drop, interrupt, stall-reading,
 * resume-reading, wait ({until: connected | ended | idle})}, POST transport/hold-audio
 * ({afterFrames?}), POST transport/release-audio.
 */
import { randomUUID } from 'node:crypto'
import type { ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify'
import { FakeCalls, type FakeCallsOptions, type StepInfo } from './vapi-calls'
import { registerVapiResources, webhookAuthOf } from './vapi-resources'
import { ORG_ID, sleep, vapiError, type FakeVapiHost, type Fault, type RecordedRequest } from './vapi-shared'
import { FakeVapiTransport, type FakeTransportOptions } from './vapi-transport'

export { vapiError, type Fault, type FakeVapiHost, type RecordedRequest } from './vapi-shared'
export type { FakeCall, FakeAudioFormat, Pacing, Scenario, ScenarioInput, ScenarioName, CoachingCallReport, StepInfo } from './vapi-calls'
export { lognormalTalkSeconds } from './vapi-calls'
export { DEFAULT_USER_TRANSCRIPT, defaultTransportSettings } from './vapi-transport'
export type { ReplyContext, TransportSettings, TransportStats, TransportTimers } from './vapi-transport'
export type { Delivery, EmitterSettings, WebhookAuth } from './vapi-webhooks'

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

export type FakeVapiOptions = FakeCallsOptions & FakeTransportOptions & {
  apiKey?: string
  /** The fake's time source (the app's test clock); the system clock by default. */
  clock?: { now(): Date }
  /** Delay between streamed deltas (default 0). */
  deltaDelayMs?: number
  /** Delay before the first streamed delta or the JSON answer (default 0). */
  firstTokenDelayMs?: number
  /** Builds the assistant's reply; the default echoes the input and variable values. */
  reply?: (input: ReplyInput) => string
}

const CHAT_FIELDS = new Set(['assistantId', 'assistant', 'assistantOverrides', 'squadId', 'squad', 'name', 'sessionId', 'input', 'stream', 'previousChatId', 'transport'])

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

export class FakeVapi implements FakeVapiHost {
  readonly app: FastifyInstance
  readonly apiKey: string
  readonly requests: RecordedRequest[] = []
  readonly chats = new Map<string, FakeChat>()
  /** Chats deleted through `DELETE /chat/:id`, by id (gone from `chats`). */
  readonly deletedChats = new Map<string, FakeChat>()
  /** Phone calls: records, scenarios, webhook knobs and deliveries (vapi-calls.ts). */
  readonly calls: FakeCalls
  /** WebSocket calls and every call's control URL (vapi-transport.ts). */
  readonly transport: FakeVapiTransport
  deltaDelayMs: number
  firstTokenDelayMs: number
  reply: (input: ReplyInput) => string
  readonly #clock: { now(): Date }
  #faults: Array<{ route: string; fault: Fault; remaining: number }> = []
  #resets: Array<() => void> = []
  #hanging = new Set<ServerResponse>()
  #held: { promise: Promise<void>; release: () => void } | null = null
  /** Replies queued by `scriptChatReply`, oldest first. */
  #scriptedReplies: Array<{ inputStartsWith: string; content: string }> = []
  #startedAt = performance.now()
  #url = ''

  private constructor(options: FakeVapiOptions) {
    this.apiKey = options.apiKey ?? `fake-vapi-key-${randomUUID()}`
    this.#clock = options.clock ?? { now: () => new Date() }
    this.deltaDelayMs = options.deltaDelayMs ?? 0
    this.firstTokenDelayMs = options.firstTokenDelayMs ?? 0
    this.reply = options.reply ?? defaultReply
    this.app = Fastify({ logger: false, forceCloseConnections: true })
    // Route registration: the shared rules first, then each route module, then the test controls.
    this.#sharedRules()
    this.#chatRoutes()
    this.calls = new FakeCalls(this, options)
    this.transport = new FakeVapiTransport(this, this.calls, options)
    const resources = registerVapiResources(this.app)
    // A call whose server references a credential is sent that credential's header, as by Vapi.
    this.calls.resolveCredential = (credentialId) => webhookAuthOf(resources.credentials.get(credentialId))
    this.#controlRoutes()
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

  now(): Date {
    return this.#clock.now()
  }

  /** Requests received on a route, e.g. `requestsTo('POST', '/chat')`. */
  requestsTo(method: string, path: string): RecordedRequest[] {
    return this.requests.filter((request) => request.method === method && request.path === path)
  }

  /** The bodies of the chat requests received, in order. */
  chatBodies(): Array<Record<string, unknown>> {
    return this.requestsTo('POST', '/chat').map((request) => request.body as Record<string, unknown>)
  }

  /**
   * The next chat whose input starts with `inputStartsWith` is answered with `content` (once), as a
   * model would answer that instruction: a scripted extraction stands in for the model.
   */
  scriptChatReply(inputStartsWith: string, content: string): void {
    if (!inputStartsWith) throw new Error('scriptChatReply: inputStartsWith must not be empty')
    this.#scriptedReplies.push({ inputStartsWith, content })
  }

  /** The scripted reply for an input (taken from the queue), if one matches. */
  #takeScriptedReply(input: string): string | undefined {
    const index = this.#scriptedReplies.findIndex((scripted) => input.startsWith(scripted.inputStartsWith))
    if (index < 0) return undefined
    return this.#scriptedReplies.splice(index, 1)[0]!.content
  }

  /** Applies a fault to the next `times` requests of a route such as 'POST /call' (Infinity for all). */
  inject(route: string, fault: Fault, times = 1): void {
    this.#faults.push({ route, fault, remaining: times })
  }

  /**
   * Queues one fault per request, in order: a number is a status (2xx = answer normally), e.g.
   * `injectSequence('POST /call', [503, 201])`; a Fault object is used as is.
   */
  injectSequence(route: string, sequence: Array<number | Fault>): void {
    for (const item of sequence) {
      this.inject(route, typeof item !== 'number' ? item : item >= 200 && item < 300 ? { kind: 'pass' } : { kind: 'status', status: item })
    }
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

  /**
   * Resolves when every scheduled call play and webhook delivery has finished, and every WebSocket
   * call is idle (no assistant turn streaming or queued) or ended.
   */
  settled(): Promise<void> {
    return this.transport.settled()
  }

  /** Plays the rest of a call's scenario (manual pacing, or a scheduled call). */
  play(callId: string): Promise<void> {
    return this.calls.play(callId)
  }

  /** Plays the next scripted step among all calls (manual pacing). */
  advance(): Promise<StepInfo | undefined> {
    return this.calls.advance()
  }

  /** Forgets recorded requests, faults, calls and deliveries; ends hanging answers, releases held streams. */
  reset(): void {
    this.requests.length = 0
    this.#faults = []
    this.#scriptedReplies = []
    this.#held?.release()
    for (const response of this.#hanging) response.destroy()
    this.#hanging.clear()
    for (const reset of this.#resets) reset()
  }

  async close(): Promise<void> {
    this.reset()
    await this.app.close()
  }

  onReset(reset: () => void): void {
    this.#resets.push(reset)
  }

  takeFault(route: string): Fault | undefined {
    const index = this.#faults.findIndex((entry) => entry.route === route && entry.remaining > 0)
    if (index === -1) return undefined
    const entry = this.#faults[index]!
    entry.remaining -= 1
    if (entry.remaining <= 0) this.#faults.splice(index, 1)
    return entry.fault
  }

  async answerFault(reply: FastifyReply, fault: Fault): Promise<boolean> {
    switch (fault.kind) {
      case 'latency':
        await sleep(fault.ms)
        return false
      case 'hang':
        reply.hijack()
        this.#hanging.add(reply.raw)
        reply.raw.once('close', () => this.#hanging.delete(reply.raw))
        return true
      case 'drop':
        reply.hijack()
        reply.raw.socket?.destroy()
        return true
      case 'status':
        if (fault.retryAfterSeconds !== undefined) reply.header('retry-after', String(fault.retryAfterSeconds))
        reply.code(fault.status).send(fault.body ?? vapiError(fault.status, fault.status >= 500 ? 'Internal server error (injected)' : 'Injected error'))
        return true
      case 'pass':
      case 'stall-stream':
        return false
    }
  }

  #sharedRules() {
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
      if ((request.routeOptions.config as { vapiAuth?: boolean } | undefined)?.vapiAuth === false) return
      if (request.headers.authorization !== `Bearer ${this.apiKey}`) {
        return reply
          .code(401)
          .send(vapiError(401, 'Invalid Key. Hot tip, you may be using the private key instead of the public key, or vice versa.'))
      }
    })
  }

  #chatRoutes() {
    this.app.post('/chat', async (request, reply) => this.#createChat(request, reply))
    this.app.get('/chat/:id', async (request, reply) => {
      const chat = this.chats.get((request.params as { id: string }).id)
      if (!chat) return reply.code(404).send(vapiError(404, 'Chat not found'))
      return chat
    })
    this.app.delete('/chat/:id', async (request, reply) => {
      const fault = this.takeFault('DELETE /chat')
      if (fault && (await this.answerFault(reply, fault))) return reply
      const id = (request.params as { id: string }).id
      const chat = this.chats.get(id)
      if (!chat) return reply.code(404).send(vapiError(404, 'Chat not found'))
      this.chats.delete(id)
      this.deletedChats.set(id, chat)
      return chat
    })
  }

  /** Test control (for a test in another process than the fake); vapi-calls.ts adds its own. */
  #controlRoutes() {
    const app = this.app
    app.get('/__fake/requests', async () => ({ requests: this.requests }))
    app.post('/__fake/faults', async (request) => {
      const { route, fault, times, sequence } = request.body as { route: string; fault?: Fault; times?: number; sequence?: Array<number | Fault> }
      if (sequence) this.injectSequence(route, sequence)
      if (fault) this.inject(route, fault, times ?? 1)
      return { ok: true }
    })
    app.post('/__fake/settings', async (request) => {
      const body = request.body as { deltaDelayMs?: number; firstTokenDelayMs?: number }
      if (typeof body.deltaDelayMs === 'number') this.deltaDelayMs = body.deltaDelayMs
      if (typeof body.firstTokenDelayMs === 'number') this.firstTokenDelayMs = body.firstTokenDelayMs
      return { ok: true }
    })
    app.post('/__fake/chat-replies', async (request) => {
      const { inputStartsWith, content } = request.body as { inputStartsWith: string; content: string }
      this.scriptChatReply(inputStartsWith, content)
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
    const fault = this.takeFault('POST /chat')
    const commit = fault?.kind === 'status' && fault.commit === true
    if (fault && !commit && (await this.answerFault(reply, fault))) return reply
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
    const content = this.#takeScriptedReply(input) ?? this.reply({ input, variableValues, turn: history.length + 1, history })
    const now = this.now().toISOString()
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

    if (fault && commit) {
      // Committed: the chat exists, but the answer says it failed.
      await this.answerFault(reply, fault)
      return reply
    }
    if (this.firstTokenDelayMs > 0) await sleep(this.firstTokenDelayMs)
    if (!chat.stream) return reply.code(201).send(chat)
    return this.#stream(reply, chat, fault?.kind === 'stall-stream' ? fault.afterDeltas : undefined)
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
