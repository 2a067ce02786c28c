/**
 * The Vapi fake's phone calls: `POST /call`, `GET /call`, `GET /call/:id`, `DELETE /call/:id`, the
 * scripted scenario each call plays (its record moves step by step, and each step's server
 * messages go through the webhook sender of vapi-webhooks.ts), and the `/__fake/*` controls for
 * both. test/fakes/vapi.ts creates one `FakeCalls` per fake; its header lists the choices made.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto'
import { Vapi } from '@vapi-ai/server-sdk'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { LifeArea } from '#common/domain'
import { LIFE_AREA_STEPS } from '#common/goals'
import { ORG_ID, vapiError, type FakeVapiHost } from './vapi-shared'
import type { TransportTimers } from './vapi-transport'
import { WebhookEmitter, seededRandom, type EmitterSettings, type Outgoing, type Target, type WebhookAuth } from './vapi-webhooks'

// ---- shapes ----------------------------------------------------------------------------------

export type CallStatus = 'scheduled' | 'queued' | 'ringing' | 'in-progress' | 'forwarding' | 'ended'

export type ServerConfig = {
  url?: string
  credentialId?: string
  headers?: Record<string, unknown>
  timeoutSeconds?: number
  backoffPlan?: Target['backoffPlan']
}

export type FakeCustomer = { number?: string; name?: string; numberE164CheckEnabled?: boolean; [key: string]: unknown }

export type FakeAssistantOverrides = {
  variableValues?: Record<string, unknown>
  metadata?: Record<string, unknown>
  maxDurationSeconds?: number
  serverMessages?: string[]
  server?: ServerConfig
  voicemailMessage?: string
  [key: string]: unknown
}

export type ArtifactMessage = { role: string; message: string; time: number; endTime?: number; secondsFromStart: number; duration?: number; source?: string }

export type FakeArtifact = {
  transcript?: string
  messages: ArtifactMessage[]
  messagesOpenAIFormatted: Array<{ role: string; content: string }>
  structuredOutputs?: Record<string, { name: string; result: unknown }>
  variableValues?: Record<string, unknown>
}

/** The audio of a WebSocket call (`transport.audioFormat`, defaults filled in). */
export type FakeAudioFormat = { format: 'pcm_s16le' | 'mulaw'; container: 'raw'; sampleRate: number }

/** A WebSocket call's `transport` as the fake answers it. */
export type FakeWebsocketTransport = { provider: 'vapi.websocket'; audioFormat: FakeAudioFormat; websocketCallUrl: string; conversationType?: 'voice' }

/** A call as `GET /call/:id` returns it (Vapi's `Call`, the fields the fake fills). */
export interface FakeCall {
  id: string
  orgId: string
  type: 'outboundPhoneCall' | 'vapi.websocketCall'
  status: CallStatus
  endedReason?: string
  createdAt: string
  updatedAt: string
  startedAt?: string
  endedAt?: string
  cost: number
  costs: Array<Record<string, unknown>>
  monitor: { listenUrl: string; controlUrl: string }
  /** Phone calls only. */
  phoneCallProvider?: 'twilio'
  phoneCallTransport?: 'pstn'
  phoneCallProviderId?: string
  /** WebSocket calls only. */
  transport?: FakeWebsocketTransport
  assistantId?: string
  phoneNumberId?: string
  name?: string
  customer?: FakeCustomer
  assistantOverrides?: FakeAssistantOverrides
  artifact?: FakeArtifact
  analysis?: { summary?: string; [key: string]: unknown }
  messages?: ArtifactMessage[]
  [key: string]: unknown
}

/** The structured output `coaching_call_report` (docs/notes issue 13). */
export type CoachingCallReport = {
  areasDiscussed: LifeArea[]
  summary: string
  mood: number
  energy: number
  commitments: string[]
  /** The open commitments of `variableValues.openCommitments` ("1. …" a line), each reviewed. */
  commitmentsReviewed: Array<{ number?: number; commitment: string; outcome: 'kept' | 'missed' }>
}

export const SCENARIOS = ['answered', 'no-answer', 'busy', 'voicemail', 'start-error', 'stuck'] as const
export type ScenarioName = (typeof SCENARIOS)[number]

/** What a call to one number does. A bare name takes the defaults. */
export type Scenario = {
  name: ScenarioName
  /** Overrides the scenario's endedReason (answered: 'customer-ended-call'). */
  endedReason?: string
  /** Seconds between in-progress and ended (answered 150, voicemail 20). */
  talkSeconds?: number
  /** The structured output's result (answered), merged over the default derived from variableValues. */
  result?: Partial<CoachingCallReport> & Record<string, unknown>
  /** analysis.summary (answered); the result's summary by default. */
  summary?: string
  /** Whether an end-of-call-report follows the ended status (default: all but start-error). */
  report?: boolean
  /** The final cost in USD (answered and voicemail: $0.12 a minute by default; 0 otherwise). */
  cost?: number
}
export type ScenarioInput = ScenarioName | Scenario

export type StepInfo = { callId: string; label: string; at: string }

/**
 * How phone calls play their scripts: 'auto' right after the 201 (timestamps scripted, no waiting);
 * 'clock' each step at its scripted instant on the fake's clock and timers (calls hold their
 * lines for as long as they last); 'manual' on play()/advance().
 */
export type Pacing = 'auto' | 'clock' | 'manual'

/**
 * Talk times (seconds from in progress to ended of an answered call) drawn from a lognormal
 * distribution, the same for the same customer number and seed (so a bench can replay them):
 * median `medianSeconds` (3.5 minutes by default), shape `sigma` (0.5: mean ≈ 1.13 × median).
 */
export function lognormalTalkSeconds(options: { medianSeconds?: number; sigma?: number; seed?: number } = {}): (call: Pick<FakeCall, 'id' | 'customer'>) => number {
  const median = options.medianSeconds ?? 210
  const sigma = options.sigma ?? 0.5
  const seed = options.seed ?? 1
  return (call) => {
    const digest = createHash('sha256').update(`${seed}|${call.customer?.number ?? call.id}`).digest()
    // Two uniforms in (0, 1) from the digest, then Box–Muller for a standard normal.
    const u1 = (digest.readUInt32BE(0) + 1) / 4294967297
    const u2 = digest.readUInt32BE(4) / 4294967296
    const z = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2)
    return median * Math.exp(sigma * z)
  }
}

export type FakeCallsOptions = {
  /** Where server messages go when a call names no server URL. */
  webhookUrl?: string
  webhookAuth?: WebhookAuth
  /** Emitter knobs (duplicates, order, drops, timeout, seed…). */
  webhooks?: Partial<EmitterSettings>
  /** 'auto' (default): a phone call plays its scenario right after its 201; 'clock': at its instants; 'manual': play()/advance(). */
  pacing?: Pacing
  /** Scenarios by customer number. */
  scenarios?: Record<string, ScenarioInput>
  defaultScenario?: ScenarioInput
  /** The id under which `coaching_call_report` appears in artifact.structuredOutputs. */
  structuredOutputId?: string
  /** subscriptionLimits.concurrencyLimit (Vapi's default 10). */
  concurrencyLimit?: number
  /**
   * Refuse a phone call created while the calls holding a line (queued to forwarding, phone and
   * WebSocket) are at `concurrencyLimit`: 201 with subscriptionLimits.concurrencyBlocked true,
   * then only status-update ended 'call.start.error-subscription-concurrency-limit-reached'.
   * Off by default (the limit is then only reported).
   */
  enforceConcurrency?: boolean
  /**
   * Talk seconds of an answered call whose scenario sets none (default 150), e.g.
   * `lognormalTalkSeconds()`. Every connected call is capped by its
   * assistantOverrides.maxDurationSeconds (600 by default), ending 'exceeded-max-duration'.
   */
  talkSeconds?: (call: FakeCall) => number
  /**
   * Scaled durations: every interval of a phone call's script (ring, answer, talk, the report's
   * lag) divided by this (default 1), so a bench plays hours of calls in minutes; the timestamps
   * stay consistent with the clock.
   */
  timeScale?: number
  /** Timers for 'clock' pacing (real, unref'd timers by default; a test passes its manual timers). */
  timers?: TransportTimers
  /** The role of assistant turns in artifact.messages (unconfirmed: 'bot' by default). */
  botRole?: string
}

// ---- validation ------------------------------------------------------------------------------

const CALL_FIELDS = new Set([
  'assistantVersion', 'transport', 'customers', 'name', 'schedulePlan', 'assistantId', 'assistant', 'assistantOverrides', 'squadId', 'squad',
  'squadOverrides', 'workflowId', 'workflow', 'workflowOverrides', 'phoneNumberId', 'phoneNumber', 'customerId', 'customer',
])
const CUSTOMER_FIELDS = new Set(['numberE164CheckEnabled', 'extension', 'assistantOverrides', 'squadOverrides', 'number', 'sipUri', 'name', 'email', 'externalId'])
const ASSISTANT_SOURCES = ['assistantId', 'assistant', 'squadId', 'squad', 'workflowId', 'workflow'] as const
const SERVER_MESSAGE_TYPES: readonly string[] = Object.values(Vapi.AssistantOverridesServerMessagesItem)
/** `serverMessages` when neither the call nor the assistant sets it (brief §3.1). */
export const DEFAULT_SERVER_MESSAGES = [
  'conversation-update', 'end-of-call-report', 'function-call', 'hang', 'speech-update', 'status-update', 'tool-calls',
  'transfer-destination-request', 'handoff-destination-request', 'user-interrupted', 'assistant.started',
]
const LIST_FILTERS = ['id', 'assistantId', 'phoneNumberId', 'limit'] as const
const DATE_FILTERS = ['createdAtGt', 'createdAtLt', 'createdAtGe', 'createdAtLe', 'updatedAtGt', 'updatedAtLt', 'updatedAtGe', 'updatedAtLe'] as const
const E164 = /^\+[1-9]\d{1,14}$/
const LIST_LIMIT_MAX = 1000

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)
const isIsoDate = (value: unknown) => typeof value === 'string' && /^\d{4}-\d{2}-\d{2}/.test(value) && !Number.isNaN(Date.parse(value))

function customerProblems(customer: unknown, path: string, addressRequired = true): string[] {
  if (!isObject(customer)) return [`${path} must be an object`]
  const problems: string[] = []
  for (const key of Object.keys(customer)) if (!CUSTOMER_FIELDS.has(key)) problems.push(`${path}.property ${key} should not exist`)
  const { number, sipUri } = customer
  if (addressRequired && number === undefined && sipUri === undefined) problems.push(`${path}.number or ${path}.sipUri must be provided`)
  if (number !== undefined) {
    if (typeof number !== 'string') problems.push(`${path}.number must be a string`)
    else if (number.length < 3 || number.length > 40) problems.push(`${path}.number must be longer than or equal to 3 and shorter than or equal to 40 characters`)
    else if (customer.numberE164CheckEnabled !== false && !E164.test(number)) {
      problems.push(`${path}.number must be a valid phone number in the E.164 format. Hot tip, you may be missing the country code (Eg. US: +1).`)
    }
  }
  if (customer.numberE164CheckEnabled !== undefined && typeof customer.numberE164CheckEnabled !== 'boolean') problems.push(`${path}.numberE164CheckEnabled must be a boolean value`)
  if (customer.name !== undefined && (typeof customer.name !== 'string' || customer.name.length > 40)) problems.push(`${path}.name must be shorter than or equal to 40 characters`)
  return problems
}

function overridesProblems(overrides: unknown): string[] {
  if (!isObject(overrides)) return ['assistantOverrides must be an object']
  const problems: string[] = []
  const { maxDurationSeconds, serverMessages, server, variableValues, metadata } = overrides
  if (maxDurationSeconds !== undefined) {
    if (typeof maxDurationSeconds !== 'number' || !Number.isFinite(maxDurationSeconds)) problems.push('assistantOverrides.maxDurationSeconds must be a number conforming to the specified constraints')
    else if (maxDurationSeconds < 10) problems.push('assistantOverrides.maxDurationSeconds must not be less than 10')
    else if (maxDurationSeconds > 43200) problems.push('assistantOverrides.maxDurationSeconds must not be greater than 43200')
  }
  if (serverMessages !== undefined) {
    if (!Array.isArray(serverMessages)) problems.push('assistantOverrides.serverMessages must be an array')
    else if (serverMessages.some((type) => !SERVER_MESSAGE_TYPES.includes(type as string))) {
      problems.push(`assistantOverrides.each value in serverMessages must be one of the following values: ${SERVER_MESSAGE_TYPES.join(', ')}`)
    }
  }
  if (server !== undefined) {
    if (!isObject(server)) problems.push('assistantOverrides.server must be an object')
    else {
      if (server.url !== undefined && (typeof server.url !== 'string' || !/^https?:\/\/[^\s/]+/.test(server.url))) problems.push('assistantOverrides.server.url must be a URL address')
      const timeout = server.timeoutSeconds
      if (timeout !== undefined && (typeof timeout !== 'number' || timeout < 1 || timeout > 300)) problems.push('assistantOverrides.server.timeoutSeconds must not be less than 1 and not greater than 300')
      if (server.headers !== undefined && !isObject(server.headers)) problems.push('assistantOverrides.server.headers must be an object')
    }
  }
  if (variableValues !== undefined && !isObject(variableValues)) problems.push('assistantOverrides.variableValues must be an object')
  if (metadata !== undefined && !isObject(metadata)) problems.push('assistantOverrides.metadata must be an object')
  return problems
}

const TRANSPORT_FIELDS = new Set(['provider', 'audioFormat', 'conversationType'])
const AUDIO_FORMAT_FIELDS = new Set(['format', 'container', 'sampleRate'])

/**
 * The 400 messages for a WebSocket call (`transport.provider` 'vapi.websocket'): no phone fields
 * (phoneNumberId, phoneNumber, customers, schedulePlan: a socket call starts when it is created),
 * audioFormat.format pcm_s16le or mulaw, container raw, sampleRate an integer 1–192000 (Vapi's
 * range starts at 0; the fake needs a rate to frame audio), conversationType voice.
 */
function websocketCallProblems(body: Record<string, unknown>): string[] {
  const transport = body.transport
  if (!isObject(transport)) return ['transport must be an object']
  const problems: string[] = []
  for (const key of Object.keys(transport)) if (!TRANSPORT_FIELDS.has(key)) problems.push(`transport.property ${key} should not exist`)
  if (transport.provider !== 'vapi.websocket') problems.push('transport.provider must be one of the following values: vapi.websocket')
  if (transport.conversationType !== undefined && transport.conversationType !== 'voice') problems.push('transport.conversationType must be one of the following values: voice')
  const format = transport.audioFormat
  if (format !== undefined) {
    if (!isObject(format)) problems.push('transport.audioFormat must be an object')
    else {
      for (const key of Object.keys(format)) if (!AUDIO_FORMAT_FIELDS.has(key)) problems.push(`transport.audioFormat.property ${key} should not exist`)
      if (format.format !== undefined && format.format !== 'pcm_s16le' && format.format !== 'mulaw') problems.push('transport.audioFormat.format must be one of the following values: pcm_s16le, mulaw')
      if (format.container !== undefined && format.container !== 'raw') problems.push('transport.audioFormat.container must be one of the following values: raw')
      const rate = format.sampleRate
      if (rate !== undefined && (typeof rate !== 'number' || !Number.isInteger(rate) || rate < 1 || rate > 192000)) {
        problems.push('transport.audioFormat.sampleRate must be an integer not less than 1 and not greater than 192000')
      }
    }
  }
  for (const key of ['phoneNumberId', 'phoneNumber', 'customers', 'schedulePlan'] as const) {
    if (body[key] !== undefined) problems.push(`${key} should not be provided with transport.provider vapi.websocket`)
  }
  if (body.customer !== undefined) problems.push(...customerProblems(body.customer, 'customer', false))
  return problems
}

/** The 400 messages for a `POST /call` body, empty when it is valid. */
export function createCallProblems(body: Record<string, unknown>): string[] {
  const problems: string[] = []
  for (const key of Object.keys(body)) if (!CALL_FIELDS.has(key)) problems.push(`property ${key} should not exist`)
  const sources = ASSISTANT_SOURCES.filter((key) => body[key] !== undefined)
  if (sources.length === 0) problems.push('Need Either `assistant`, `assistantId`, `squad`, `squadId`, `workflow`, or `workflowId`.')
  if (sources.length > 1) problems.push(`Only one of \`assistantId\`, \`assistant\`, \`squadId\`, \`squad\`, \`workflowId\` or \`workflow\` may be given (got ${sources.join(', ')}).`)
  for (const key of ['assistantId', 'squadId', 'workflowId', 'phoneNumberId', 'customerId'] as const) {
    if (body[key] !== undefined && typeof body[key] !== 'string') problems.push(`${key} must be a string`)
  }
  if (body.name !== undefined) {
    if (typeof body.name !== 'string') problems.push('name must be a string')
    else if (body.name.length > 40) problems.push('name must be shorter than or equal to 40 characters')
  }
  if (body.assistantOverrides !== undefined) problems.push(...overridesProblems(body.assistantOverrides))
  if (body.transport !== undefined) return [...problems, ...websocketCallProblems(body)]
  if (body.phoneNumberId === undefined && body.phoneNumber === undefined) problems.push('Need Either `phoneNumberId` or `phoneNumber`.')
  if (body.customer !== undefined && body.customers !== undefined) problems.push('customer and customers cannot be used together')
  if (body.customer === undefined && body.customers === undefined && body.customerId === undefined) problems.push('Need Either `customer`, `customerId` or `customers`.')
  if (body.customer !== undefined) problems.push(...customerProblems(body.customer, 'customer'))
  if (body.customers !== undefined) {
    if (!Array.isArray(body.customers) || body.customers.length === 0) problems.push('customers must contain at least 1 elements')
    else body.customers.forEach((customer, index) => problems.push(...customerProblems(customer, `customers.${index}`)))
  }
  if (body.schedulePlan !== undefined) {
    const plan = body.schedulePlan
    if (!isObject(plan)) problems.push('schedulePlan must be an object')
    else {
      if (!isIsoDate(plan.earliestAt)) problems.push('schedulePlan.earliestAt must be a valid ISO 8601 date string')
      if (plan.latestAt !== undefined && !isIsoDate(plan.latestAt)) problems.push('schedulePlan.latestAt must be a valid ISO 8601 date string')
      else if (plan.latestAt !== undefined && isIsoDate(plan.earliestAt) && Date.parse(plan.latestAt as string) < Date.parse(plan.earliestAt as string)) {
        problems.push('schedulePlan.latestAt must not be before schedulePlan.earliestAt')
      }
    }
  }
  return problems
}

/** The 400 messages for a `GET /call` query, empty when it is valid. */
function listProblems(query: Record<string, unknown>): string[] {
  const problems: string[] = []
  const known = new Set<string>([...LIST_FILTERS, ...DATE_FILTERS])
  for (const key of Object.keys(query)) if (!known.has(key)) problems.push(`property ${key} should not exist`)
  if (query.limit !== undefined) {
    const limit = Number(query.limit)
    if (!/^\d+$/.test(String(query.limit))) problems.push('limit must be a number conforming to the specified constraints')
    else if (limit > LIST_LIMIT_MAX) problems.push(`limit must not be greater than ${LIST_LIMIT_MAX}`)
  }
  for (const key of DATE_FILTERS) if (query[key] !== undefined && !isIsoDate(query[key])) problems.push(`${key} must be a valid ISO 8601 date string`)
  return problems
}

// ---- the default report ----------------------------------------------------------------------

const AREA_BY_LABEL = new Map<string, LifeArea>()
for (const step of LIFE_AREA_STEPS) {
  for (const label of [step.id, step.title, step.shortLabel, step.id.replace(/_/g, ' ')]) AREA_BY_LABEL.set(label.toLowerCase(), step.id)
}
const areaTitle = (area: LifeArea) => LIFE_AREA_STEPS.find((step) => step.id === area)?.shortLabel ?? area

/** The life areas named in a comma-separated list of labels or ids (unknown names skipped). */
export function parseAreas(value: unknown): LifeArea[] {
  if (typeof value !== 'string') return []
  const areas = value
    .split(',')
    .map((label) => AREA_BY_LABEL.get(label.trim().toLowerCase()))
    .filter((area): area is LifeArea => area !== undefined)
  return [...new Set(areas)]
}

/** The numbered list of `variableValues.openCommitments` ("1. Walk daily" a line). */
export function parseOpenCommitments(value: unknown): Array<{ number: number; commitment: string }> {
  if (typeof value !== 'string') return []
  return value
    .split('\n')
    .map((line) => /^(\d+)\.\s+(.+)$/.exec(line.trim()))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match) => ({ number: Number(match[1]), commitment: match[2]!.trim() }))
}

/**
 * The default `coaching_call_report` result for a call: deterministic, from its variableValues —
 * areasDiscussed = the focusAreas labels as LIFE_AREAS ids (['fitness', 'family'] when none parse);
 * every open commitment the call was given (`openCommitments`) reviewed as kept.
 */
export function defaultCoachingReport(variableValues: Record<string, unknown> = {}): CoachingCallReport {
  const parsed = parseAreas(variableValues.focusAreas)
  const areasDiscussed: LifeArea[] = parsed.length > 0 ? parsed : ['fitness', 'family']
  const firstName = typeof variableValues.firstName === 'string' && variableValues.firstName ? variableValues.firstName : 'The member'
  const titles = areasDiscussed.map(areaTitle)
  return {
    areasDiscussed,
    summary: `${firstName} talked about ${titles.join(', ')} and committed to one step before the next call.`,
    mood: 7,
    energy: 6,
    commitments: [`Take one small step on ${titles[0]} today`],
    commitmentsReviewed: parseOpenCommitments(variableValues.openCommitments).map((open) => ({ ...open, outcome: 'kept' as const })),
  }
}

// ---- the calls -------------------------------------------------------------------------------

/** One step of a call's script: it moves the record and yields that moment's server messages. */
type Step = { at: number; label: string; run: () => Array<Outgoing['message']> }

type Entry = {
  seq: number
  record: FakeCall
  /** Refused for lack of a line (enforceConcurrency): holds none, plays the start error only. */
  blocked: boolean
  deleted: boolean
  /** Stops a script midway (the call was deleted or ended through its control URL). */
  cancelled: boolean
  /** Wakes a play held at a gate (holdBefore) when the call is cancelled. */
  wake: () => void
  woken: Promise<void>
  steps: Step[] | undefined
  next: number
  /** The scripted instant of the last step played. */
  lastAt: number
  /** Ends the call now (control URL): moves the record, answers the server messages to send. */
  endEarly: ((at: number, endedReason: string) => Array<Outgoing['message']>) | undefined
  random: () => number
  chain: Promise<void>
}

/** A gate set by `holdBefore`: auto-paced calls wait before the step with this label. */
type Hold = { label: string; released: Promise<void>; release: () => void; arrivals: Array<(step: StepInfo) => void>; reached: StepInfo[] }

/** A server message of a call at a scripted instant: `{type, timestamp, call, customer?, …extra}`. */
export function serverMessage(call: FakeCall, at: number, type: string, extra: Record<string, unknown> = {}): Outgoing['message'] {
  return { type, timestamp: at, call: structuredClone(call), ...(call.customer !== undefined ? { customer: call.customer } : {}), ...extra }
}

const iso = (ms: number) => new Date(ms).toISOString()
const str = (value: unknown, fallback: string) => (typeof value === 'string' && value ? value : fallback)
const ACTIVE: ReadonlySet<CallStatus> = new Set(['queued', 'ringing', 'in-progress', 'forwarding'])

const realTimers: TransportTimers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms).unref(),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
}

export class FakeCalls {
  readonly emitter: WebhookEmitter
  pacing: Pacing
  defaultScenario: ScenarioInput
  structuredOutputId: string
  concurrencyLimit: number
  enforceConcurrency: boolean
  talkSeconds: ((call: FakeCall) => number) | undefined
  timeScale: number
  botRole: string
  /**
   * Called each time the number of calls holding a line changes (after the change), with the call
   * that moved: e.g. a bench's line-use timeline.
   */
  onLinesChange: (active: number, call: FakeCall) => void = () => {}
  /** The server settings of a saved assistant (a resources module may plug in its store). */
  resolveAssistant: (assistantId: string) => { server?: ServerConfig; serverMessages?: string[] } | undefined = () => undefined
  /** The webhook authentication of a `server.credentialId` (a resources module may plug in its store). */
  resolveCredential: (credentialId: string) => WebhookAuth | undefined = () => undefined
  /**
   * The base of the `websocketCallUrl` a WebSocket call is answered with (default: this fake's own
   * ws:// address). A test names another host to see what a client does with a socket elsewhere.
   */
  websocketBase: string | undefined = undefined
  readonly #host: FakeVapiHost
  readonly #options: FakeCallsOptions
  readonly #entries = new Map<string, Entry>()
  /** Calls in an active status (queued to forwarding), kept as statuses change: what `subscriptionLimits` reports. */
  #active = 0
  /** Phone calls refused for lack of a line since the last reset. */
  #refused = 0
  readonly #timers: TransportTimers
  #scenarios = new Map<string, ScenarioInput>()
  #inflight = new Set<Promise<void>>()
  #created: Array<(call: FakeCall) => void> = []
  #holds: Hold[] = []
  /** The hold set over HTTP (/__fake/calls/hold). */
  #httpHold: { reached: Promise<StepInfo>; release: () => void } | undefined
  #seq = 0
  #generation = 0
  /** Called with each WebSocket call created (the transport module takes it from there). */
  onWebsocketCall: (call: FakeCall) => void = () => {}
  /** Called when a call is deleted (DELETE /call/:id), after its record ended and before its data is gone. */
  onDeleted: (call: FakeCall) => void = () => {}

  constructor(host: FakeVapiHost, options: FakeCallsOptions = {}) {
    this.#host = host
    this.#options = options
    this.emitter = new WebhookEmitter(() => host.now(), this.#initialEmitterSettings())
    this.pacing = options.pacing ?? 'auto'
    this.defaultScenario = options.defaultScenario ?? 'answered'
    this.structuredOutputId = options.structuredOutputId ?? '5e5c0a3e-0c0a-4c0a-9c0a-c0ac11e9e913'
    this.concurrencyLimit = options.concurrencyLimit ?? 10
    this.enforceConcurrency = options.enforceConcurrency ?? false
    this.talkSeconds = options.talkSeconds
    this.timeScale = options.timeScale ?? 1
    this.#timers = options.timers ?? realTimers
    this.botRole = options.botRole ?? 'bot'
    this.#scenarios = new Map(Object.entries(options.scenarios ?? {}))
    this.#routes()
    this.#controlRoutes()
    host.onReset(() => this.reset())
  }

  // ---- test API ------------------------------------------------------------------------------

  /** A call by id (deleted ones too), as GET /call/:id shows it. */
  get(id: string): FakeCall | undefined {
    return this.#entries.get(id)?.record
  }

  /** Every call created since the last reset, oldest first. */
  list(): FakeCall[] {
    return [...this.#entries.values()].map((entry) => entry.record)
  }

  /** Calls holding a line now (queued, ringing, in progress or forwarding; phone and WebSocket). */
  get activeCalls(): number {
    return this.#active
  }

  /** Phone calls refused for lack of a line (enforceConcurrency) since the last reset. */
  get refused(): number {
    return this.#refused
  }

  isDeleted(id: string): boolean {
    return this.#entries.get(id)?.deleted ?? false
  }

  /** Resolves with the next call created (e.g. to act while a create is still unanswered). */
  nextCreated(): Promise<FakeCall> {
    return new Promise((resolve) => this.#created.push(resolve))
  }

  setScenario(number: string, scenario: ScenarioInput): void {
    this.#scenarios.set(number, scenario)
  }

  setScenarios(scenarios: Record<string, ScenarioInput>): void {
    for (const [number, scenario] of Object.entries(scenarios)) this.#scenarios.set(number, scenario)
  }

  scenarioFor(number: string | undefined): Scenario {
    const input = (number !== undefined ? this.#scenarios.get(number) : undefined) ?? this.defaultScenario
    return typeof input === 'string' ? { name: input } : input
  }

  setWebhookAuth(auth: WebhookAuth): void {
    this.emitter.settings.auth = auth
  }

  configureWebhooks(settings: Partial<EmitterSettings>): void {
    Object.assign(this.emitter.settings, settings)
  }

  /** The server messages sent, parsed: every attempt (copies and retries too), dropped ones left out. */
  messages(callId?: string): Array<Outgoing['message']> {
    return this.emitter.deliveries
      .filter((delivery) => delivery.outcome !== 'dropped' && (callId === undefined || delivery.callId === callId))
      .map((delivery) => (JSON.parse(delivery.body) as { message: Outgoing['message'] }).message)
  }

  /**
   * Sends a call's server messages (the types its serverMessages allow) after the ones already on
   * their way, through the webhook knobs; `settled()` waits for them. For a module that drives a
   * call itself (the WebSocket transport).
   */
  emit(callId: string, messages: Array<Outgoing['message']>): Promise<void> {
    const entry = this.#entries.get(callId)
    if (!entry) return Promise.resolve()
    const target = this.#target(entry.record)
    const batch = this.#allowed(entry)(messages)
    if (!target || batch.length === 0) return Promise.resolve()
    const live = this.#isLive(entry, this.#generation)
    return this.#enqueue(entry, () => this.emitter.send(target, batch, entry.random, live))
  }

  /**
   * Ends a phone call now (end-call through its control URL): the rest of its script is dropped,
   * the record ends with `endedReason` at the later of the clock and the last scripted step, then
   * status-update ended and an end-of-call-report of what was said so far are sent (a structured
   * output and summary only once two messages were said, as Vapi skips analysis below that).
   * Undefined when the call is unknown, deleted, ended or not a phone call.
   */
  endNow(callId: string, endedReason: string): FakeCall | undefined {
    const entry = this.#entries.get(callId)
    if (!entry || entry.deleted || entry.record.status === 'ended' || entry.record.type !== 'outboundPhoneCall') return undefined
    this.#script(entry)
    entry.cancelled = true
    entry.wake()
    const at = Math.max(this.#host.now().getTime(), entry.lastAt)
    void this.emit(callId, entry.endEarly!(at, endedReason))
    return entry.record
  }

  /**
   * Holds every auto-paced phone call before its step labelled `label` until `release()`: e.g.
   * 'status-update:ended' keeps an answered call in progress once its utterances were sent, so a
   * test can watch a live call. `reached` resolves with the first call held. Manual pacing
   * (advance, play) and reordered streams (order other than 'timeline') are not held; ending a
   * held call through its control URL lets it go (its remaining steps are dropped).
   */
  holdBefore(label: string): { reached: Promise<StepInfo>; release: () => void } {
    let release = () => {}
    const released = new Promise<void>((resolve) => (release = resolve))
    const hold: Hold = { label, released, release: () => {}, arrivals: [], reached: [] }
    hold.release = () => {
      this.#holds = this.#holds.filter((other) => other !== hold)
      release()
    }
    this.#holds.push(hold)
    return { reached: this.#reached(hold), release: hold.release }
  }

  /** The calls held at a gate so far (for the HTTP control). */
  #reached(hold: Hold): Promise<StepInfo> {
    const first = hold.reached[0]
    return first ? Promise.resolve(first) : new Promise((resolve) => hold.arrivals.push(resolve))
  }

  /** Releases every hold (holdBefore). */
  releaseHolds(): void {
    this.#httpHold = undefined
    for (const hold of [...this.#holds]) hold.release()
  }

  /** Plays the rest of a call's script (a scheduled call too) and waits for its deliveries. */
  async play(callId: string): Promise<void> {
    const entry = this.#entries.get(callId)
    if (!entry) throw new Error(`no call ${callId}`)
    const steps = this.#claim(entry, Infinity)
    await this.#enqueue(entry, () => this.#runSteps(entry, steps))
  }

  /** Plays every call's remaining script. */
  async playAll(): Promise<void> {
    await Promise.all([...this.#entries.keys()].map((id) => this.play(id)))
  }

  /**
   * Plays the single next step among all calls (the earliest scripted time first) and waits for
   * its deliveries. Undefined when no call has a step left.
   */
  async advance(): Promise<StepInfo | undefined> {
    let best: { entry: Entry; step: Step } | undefined
    for (const entry of this.#entries.values()) {
      if (entry.deleted || entry.cancelled) continue
      const step = this.#script(entry)[entry.next]
      if (step && (!best || step.at < best.step.at)) best = { entry, step }
    }
    if (!best) return undefined
    const { entry } = best
    const steps = this.#claim(entry, 1)
    await this.#enqueue(entry, () => this.#runSteps(entry, steps))
    return { callId: entry.record.id, label: best.step.label, at: iso(best.step.at) }
  }

  /** Resolves when every scheduled play and delivery has finished. */
  async settled(): Promise<void> {
    while (this.#inflight.size > 0) await Promise.all([...this.#inflight])
  }

  /** Forgets calls, scenarios and deliveries; stops pending plays; back to the options' settings. */
  reset(): void {
    this.#generation += 1
    this.#seq = 0
    this.#entries.clear()
    this.#active = 0
    this.#refused = 0
    this.#inflight.clear()
    this.#created = []
    this.releaseHolds()
    this.#scenarios = new Map(Object.entries(this.#options.scenarios ?? {}))
    this.defaultScenario = this.#options.defaultScenario ?? 'answered'
    this.pacing = this.#options.pacing ?? 'auto'
    this.concurrencyLimit = this.#options.concurrencyLimit ?? 10
    this.enforceConcurrency = this.#options.enforceConcurrency ?? false
    this.talkSeconds = this.#options.talkSeconds
    this.timeScale = this.#options.timeScale ?? 1
    this.websocketBase = undefined
    this.emitter.clear()
    this.emitter.settings = { ...this.emitter.settings, ...this.#initialEmitterSettings() }
  }

  #initialEmitterSettings(): Partial<EmitterSettings> {
    const options = this.#options
    return { duplicates: 0, order: 'timeline', delayMs: 0, dropRate: 0, dropTypes: [], timeoutMs: undefined, seed: 1, retryDelayScale: 0, ...options.webhooks, url: options.webhookUrl ?? options.webhooks?.url, auth: options.webhookAuth ?? options.webhooks?.auth ?? { mode: 'none' } }
  }

  // ---- playing -------------------------------------------------------------------------------

  #claim(entry: Entry, count: number): Step[] {
    const script = this.#script(entry)
    const steps = script.slice(entry.next, entry.next + count)
    entry.next += steps.length
    return steps
  }

  #enqueue(entry: Entry, work: () => Promise<void>): Promise<void> {
    const generation = this.#generation
    const run = entry.chain.then(() => (generation === this.#generation ? work() : undefined))
    entry.chain = run.catch(() => {})
    const tracked = run.finally(() => this.#inflight.delete(tracked))
    this.#inflight.add(tracked)
    return tracked
  }

  #isLive(entry: Entry, generation: number) {
    return () => generation === this.#generation && this.#entries.get(entry.record.id) === entry
  }

  /** The server messages of a call its serverMessages allow, ready to send. */
  #allowed(entry: Entry): (messages: Array<Outgoing['message']>) => Outgoing[] {
    const allowed = this.#serverMessages(entry.record)
    return (messages) =>
      messages
        .filter((message) => allowed.has(message.type) || (message.type === 'transcript' && message.transcriptType === 'final' && allowed.has('transcript[transcriptType="final"]')))
        .map((message) => ({ callId: entry.record.id, message }))
  }

  /** Waits at every hold set for this step's label (until released, or the call is cancelled). */
  async #gate(entry: Entry, step: Step): Promise<void> {
    for (const hold of this.#holds.filter((candidate) => candidate.label === step.label)) {
      const info = { callId: entry.record.id, label: step.label, at: iso(step.at) }
      hold.reached.push(info)
      for (const arrive of hold.arrivals.splice(0)) arrive(info)
      await Promise.race([hold.released, entry.woken])
    }
  }

  /** Waits until the fake's clock reaches `at` (its timers), or the call is cancelled. */
  #until(entry: Entry, at: number): Promise<void> {
    const ms = at - this.#host.now().getTime()
    if (ms <= 0) return Promise.resolve()
    let handle: unknown
    const reached = new Promise<void>((resolve) => (handle = this.#timers.setTimeout(resolve, ms)))
    return Promise.race([reached, entry.woken.then(() => this.#timers.clearTimeout(handle))])
  }

  /** Plays steps in order; `gated`: auto or clock pacing (holds apply); `timed`: each at its instant. */
  async #runSteps(entry: Entry, steps: Step[], gated = false, timed = false): Promise<void> {
    const live = this.#isLive(entry, this.#generation)
    const target = this.#target(entry.record)
    const filter = this.#allowed(entry)
    const run = (step: Step) => {
      entry.lastAt = Math.max(entry.lastAt, step.at)
      return filter(step.run())
    }
    if (this.emitter.settings.order !== 'timeline') {
      // A reordered stream needs the whole stream: the record reaches the last step first.
      const batch: Outgoing[] = []
      const last = steps.at(-1)
      if (timed && last) await this.#until(entry, last.at)
      for (const step of steps) if (!entry.cancelled && live()) batch.push(...run(step))
      await this.emitter.send(target, batch, entry.random, live)
      return
    }
    for (const step of steps) {
      if (timed) await this.#until(entry, step.at)
      if (gated && this.#holds.length > 0) await this.#gate(entry, step)
      if (entry.cancelled || !live()) return
      await this.emitter.send(target, run(step), entry.random, live)
    }
  }

  #target(call: FakeCall): Target | undefined {
    const assistant = call.assistantId ? this.resolveAssistant(call.assistantId) : undefined
    const inline = isObject(call.assistant) ? (call.assistant as { server?: ServerConfig }) : undefined
    const server = call.assistantOverrides?.server ?? inline?.server ?? assistant?.server
    const url = server?.url ?? this.emitter.settings.url
    if (!url) return undefined
    const credential = server?.credentialId ? this.resolveCredential(server.credentialId) : undefined
    const headers = Object.fromEntries(Object.entries(server?.headers ?? {}).map(([key, value]) => [key, String(value)]))
    const timeoutMs = this.emitter.settings.timeoutMs ?? (server?.timeoutSeconds ?? 20) * 1000
    return { url, auth: credential ?? this.emitter.settings.auth, headers, timeoutMs, backoffPlan: server?.backoffPlan }
  }

  #serverMessages(call: FakeCall): Set<string> {
    const assistant = call.assistantId ? this.resolveAssistant(call.assistantId) : undefined
    const inline = isObject(call.assistant) ? (call.assistant as { serverMessages?: string[] }) : undefined
    return new Set(call.assistantOverrides?.serverMessages ?? inline?.serverMessages ?? assistant?.serverMessages ?? DEFAULT_SERVER_MESSAGES)
  }

  /** Builds a call's script on first use, from the scenario of its customer's number. */
  #script(entry: Entry): Step[] {
    if (entry.steps) return entry.steps
    const call = entry.record
    // A WebSocket call has no script: the transport module drives it.
    if (call.type === 'vapi.websocketCall') return (entry.steps = [])
    const scenario: Scenario = entry.blocked ? { name: 'start-error' } : this.scenarioFor(call.customer?.number)
    // Scaled durations: each interval of the script divided by timeScale.
    const scale = this.timeScale > 0 ? this.timeScale : 1
    const d = (ms: number) => Math.round(ms / scale)
    const scheduledAt = isObject(call.schedulePlan) ? Date.parse(String(call.schedulePlan.earliestAt)) : NaN
    const t0 = Math.max(Date.parse(call.createdAt), Number.isNaN(scheduledAt) ? 0 : scheduledAt)
    const variables = call.assistantOverrides?.variableValues ?? {}
    const firstName = str(variables.firstName, 'there')
    const steps: Step[] = []

    const message = (at: number, type: string, extra: Record<string, unknown>) => ({
      type,
      timestamp: at,
      call: structuredClone(call),
      customer: call.customer,
      ...extra,
    })
    const status = (at: number, next: CallStatus, change?: () => void) =>
      steps.push({
        at,
        label: `status-update:${next}`,
        run: () => {
          call.status = next
          call.updatedAt = iso(at)
          change?.()
          return [message(at, 'status-update', { status: next, ...(next === 'ended' ? { endedReason: call.endedReason } : {}) })]
        },
      })

    const utterances: Array<{ role: 'bot' | 'user'; text: string; start: number; end: number }> = []
    const log: ArtifactMessage[] = []
    const openAi: Array<{ role: string; content: string }> = []
    const speak = (startedAt: number, role: 'bot' | 'user', text: string, start: number, end: number) => {
      const turn = utterances.length
      utterances.push({ role, text, start, end })
      const apiRole = role === 'bot' ? 'assistant' : 'user'
      steps.push({
        at: start,
        label: `utterance:${role}`,
        run: () => {
          const item = { role: role === 'bot' ? this.botRole : 'user', message: text, time: start, endTime: end, secondsFromStart: (start - startedAt) / 1000, duration: end - start, ...(role === 'bot' ? { source: '' } : {}) }
          log.push(item)
          openAi.push({ role: apiRole, content: text })
          const words = text.split(' ')
          return [
            message(start, 'speech-update', { status: 'started', role: apiRole, turn }),
            message(start, 'transcript', { role: apiRole, transcriptType: 'partial', transcript: words.slice(0, Math.ceil(words.length / 2)).join(' ') }),
            message(end, 'transcript', { role: apiRole, transcriptType: 'final', transcript: text }),
            message(end, 'speech-update', { status: 'stopped', role: apiRole, turn }),
            message(end, 'conversation-update', { messages: structuredClone(log), messagesOpenAIFormatted: structuredClone(openAi) }),
          ]
        },
      })
    }

    const name = scenario.name
    const reasons: Record<ScenarioName, string | undefined> = {
      answered: 'customer-ended-call',
      'no-answer': 'customer-did-not-answer',
      busy: 'customer-busy',
      voicemail: 'voicemail',
      'start-error': 'call.start.error-subscription-concurrency-limit-reached',
      stuck: undefined,
    }
    const connected = name === 'answered' || name === 'voicemail' || name === 'stuck'
    const startedAt = connected ? t0 + d(6000) : undefined
    const talkSeconds = scenario.talkSeconds ?? (name === 'answered' && this.talkSeconds ? this.talkSeconds(call) : name === 'voicemail' ? 20 : 150)
    // Vapi ends a call at its maxDurationSeconds (600 unless set).
    const maxSeconds = call.assistantOverrides?.maxDurationSeconds ?? 600
    const capped = connected && talkSeconds >= maxSeconds
    const endedReason = scenario.endedReason ?? (capped && name !== 'stuck' ? 'exceeded-max-duration' : reasons[name])
    const talkMs = d(Math.min(talkSeconds, maxSeconds) * 1000)
    const endedAt = name === 'start-error' ? t0 + d(500) : startedAt !== undefined ? startedAt + talkMs : t0 + d(name === 'busy' ? 3000 : 31000)
    const report = name === 'answered' ? { ...defaultCoachingReport(variables), ...scenario.result } : undefined
    const sendReport = scenario.report ?? name !== 'start-error'

    entry.endEarly = (at, reason) => {
      call.status = 'ended'
      call.endedReason = reason
      call.endedAt = iso(at)
      call.updatedAt = iso(at)
      const started = call.startedAt ? Date.parse(call.startedAt) : undefined
      const durationMs = started !== undefined ? Math.max(0, at - started) : 0
      const cost = started !== undefined ? Math.round((durationMs / 60000) * 0.12 * 10000) / 10000 : 0
      const analysed = report && log.length >= 2 ? report : undefined
      call.cost = cost
      call.costs = cost > 0 ? [{ type: 'vapi', minutes: durationMs / 60000, cost }] : []
      call.artifact = {
        messages: structuredClone(log),
        messagesOpenAIFormatted: structuredClone(openAi),
        transcript: log.map((item) => `${item.role === 'user' ? 'User' : 'AI'}: ${item.message}`).join('\n'),
        ...(analysed ? { structuredOutputs: { [this.structuredOutputId]: { name: 'coaching_call_report', result: analysed } } } : {}),
        variableValues: variables,
      }
      call.analysis = analysed ? { summary: scenario.summary ?? String(analysed.summary ?? '') } : {}
      call.messages = structuredClone(log)
      const ended = message(at, 'status-update', { status: 'ended', endedReason: reason })
      if (!sendReport) return [ended]
      const endReport = message(at + d(4000), 'end-of-call-report', {
        endedReason: reason,
        ...(call.startedAt ? { startedAt: call.startedAt } : {}),
        endedAt: call.endedAt,
        durationSeconds: durationMs / 1000,
        durationMs,
        cost,
        costs: call.costs,
        artifact: call.artifact,
        analysis: call.analysis,
      })
      return [ended, endReport]
    }

    if (name !== 'start-error') {
      status(t0, 'queued')
      status(t0 + d(1000), 'ringing')
    }
    if (startedAt !== undefined) status(startedAt, 'in-progress', () => (call.startedAt = iso(startedAt)))
    if (name === 'stuck') return (entry.steps = steps)

    if (name === 'answered' && startedAt !== undefined && report) {
      const areas = (report.areasDiscussed ?? []).map((area) => areaTitle(area as LifeArea).toLowerCase())
      const lines: Array<['bot' | 'user', string]> = [
        ['bot', `Hi ${firstName}, this is your Momentum coach for your ${str(variables.callKind, 'daily check-in')}. How are you feeling today?`],
        ['user', `Pretty good, about a ${String(report.mood ?? 7)} out of 10. I want to talk about ${areas.join(' and ') || 'my goals'}.`],
        ...(report.commitmentsReviewed ?? []).flatMap((review): Array<['bot' | 'user', string]> => [
          ['bot', `Last time you said you would ${review.commitment.charAt(0).toLowerCase()}${review.commitment.slice(1)}. Did you?`],
          ['user', review.outcome === 'kept' ? 'Yes, I did it.' : 'No, not this time.'],
        ]),
        ['bot', 'Great. What is one thing you will do before we talk again?'],
        ['user', String((report.commitments ?? [])[0] ?? 'I will keep going.')],
        ['bot', `Sounds like a plan. Talk soon, ${firstName}!`],
      ]
      const slot = talkMs / (lines.length + 1)
      lines.forEach(([role, text], index) => {
        const start = startedAt + Math.round(slot * index + d(500))
        speak(startedAt, role, text, start, start + Math.round(Math.min(slot - d(500), d(4000))))
      })
    }
    const voicemailMessage = call.assistantOverrides?.voicemailMessage
    if (name === 'voicemail' && startedAt !== undefined && typeof voicemailMessage === 'string' && voicemailMessage) {
      speak(startedAt, 'bot', voicemailMessage, startedAt + d(2000), startedAt + d(6000))
    }

    const durationMs = startedAt !== undefined ? endedAt - startedAt : 0
    const cost = scenario.cost ?? (connected ? Math.round((durationMs / 60000) * 0.12 * 10000) / 10000 : 0)
    const artifact = (): FakeArtifact => {
      const structured = report ? { structuredOutputs: { [this.structuredOutputId]: { name: 'coaching_call_report', result: report } } } : {}
      return {
        messages: structuredClone(log),
        messagesOpenAIFormatted: structuredClone(openAi),
        ...(name === 'start-error' ? {} : { transcript: utterances.map((u) => `${u.role === 'bot' ? 'AI' : 'User'}: ${u.text}`).join('\n') }),
        ...structured,
        variableValues: variables,
      }
    }
    const analysis = () => (report ? { summary: scenario.summary ?? String(report.summary ?? '') } : {})
    const finish = () => {
      call.cost = cost
      call.costs = cost > 0 ? [{ type: 'vapi', minutes: durationMs / 60000, cost }] : []
      call.artifact = artifact()
      call.analysis = analysis()
      call.messages = structuredClone(log)
    }
    status(endedAt, 'ended', () => {
      if (endedReason !== undefined) call.endedReason = endedReason
      call.endedAt = iso(endedAt)
      if (!sendReport) finish()
    })
    if (sendReport) {
      const at = endedAt + d(4000)
      steps.push({
        at,
        label: 'end-of-call-report',
        run: () => {
          finish()
          call.updatedAt = iso(at)
          return [
            message(at, 'end-of-call-report', {
              endedReason: call.endedReason,
              ...(call.startedAt ? { startedAt: call.startedAt } : {}),
              endedAt: call.endedAt,
              durationSeconds: durationMs / 1000,
              durationMs,
              cost: call.cost,
              costs: call.costs,
              artifact: call.artifact,
              analysis: call.analysis,
            }),
          ]
        },
      })
    }
    return (entry.steps = steps)
  }

  // ---- routes --------------------------------------------------------------------------------

  #routes() {
    const app = this.#host.app
    app.post('/call', async (request, reply) => this.#create(request, reply))
    app.get('/call', async (request, reply) => {
      const query = (request.query ?? {}) as Record<string, string | undefined>
      const problems = listProblems(query)
      if (problems.length > 0) return reply.code(400).send(vapiError(400, problems))
      return this.#filter(query)
    })
    app.get('/call/:id', async (request, reply) => {
      const entry = this.#entries.get((request.params as { id: string }).id)
      if (!entry || entry.deleted) return reply.code(404).send(vapiError(404, 'Call not found'))
      return entry.record
    })
    app.delete('/call/:id', async (request, reply) => {
      const fault = this.#host.takeFault('DELETE /call')
      if (fault && (await this.#host.answerFault(reply, fault))) return reply
      const entry = this.#entries.get((request.params as { id: string }).id)
      if (!entry || entry.deleted) return reply.code(404).send(vapiError(404, 'Call not found'))
      return this.#delete(entry)
    })
  }

  #filter(query: Record<string, string | undefined>): FakeCall[] {
    const bound = (key: (typeof DATE_FILTERS)[number]) => (query[key] === undefined ? undefined : Date.parse(query[key]))
    const checks: Array<[(typeof DATE_FILTERS)[number], 'createdAt' | 'updatedAt', (a: number, b: number) => boolean]> = [
      ['createdAtGt', 'createdAt', (a, b) => a > b],
      ['createdAtLt', 'createdAt', (a, b) => a < b],
      ['createdAtGe', 'createdAt', (a, b) => a >= b],
      ['createdAtLe', 'createdAt', (a, b) => a <= b],
      ['updatedAtGt', 'updatedAt', (a, b) => a > b],
      ['updatedAtLt', 'updatedAt', (a, b) => a < b],
      ['updatedAtGe', 'updatedAt', (a, b) => a >= b],
      ['updatedAtLe', 'updatedAt', (a, b) => a <= b],
    ]
    const limit = query.limit === undefined ? 100 : Number(query.limit)
    return [...this.#entries.values()]
      .filter((entry) => !entry.deleted)
      .filter(({ record }) => (query.id === undefined || record.id === query.id) && (query.assistantId === undefined || record.assistantId === query.assistantId))
      .filter(({ record }) => query.phoneNumberId === undefined || record.phoneNumberId === query.phoneNumberId)
      .filter(({ record }) => checks.every(([key, field, test]) => bound(key) === undefined || test(Date.parse(record[field]), bound(key)!)))
      .sort((a, b) => Date.parse(b.record.createdAt) - Date.parse(a.record.createdAt) || b.seq - a.seq)
      .slice(0, limit)
      .map((entry) => entry.record)
  }

  async #create(request: FastifyRequest, reply: FastifyReply) {
    const host = this.#host
    const fault = host.takeFault('POST /call')
    const commit = fault !== undefined && 'commit' in fault && fault.commit === true
    if (fault && !commit && (await host.answerFault(reply, fault))) return reply
    const body = request.body
    if (!isObject(body)) return reply.code(400).send(vapiError(400, ['body must be a JSON object']))
    const problems = createCallProblems(body)
    // A call's server may reference a credential of the account only (the fake's choice, as for an
    // assistant's: Vapi's answer to a missing one is not documented).
    const server = isObject(body.assistantOverrides) && isObject(body.assistantOverrides.server) ? body.assistantOverrides.server : undefined
    if (server?.credentialId !== undefined && (typeof server.credentialId !== 'string' || !this.resolveCredential(server.credentialId))) {
      problems.push(`assistantOverrides.server.credentialId ${String(server.credentialId)} does not exist`)
    }
    if (problems.length > 0) return reply.code(400).send(vapiError(400, problems))

    const customers = Array.isArray(body.customers) ? (body.customers as FakeCustomer[]) : [body.customer as FakeCustomer | undefined]
    // With enforcement, a phone call dialled now finds every line taken: refused (it ends at once).
    const atLimit = () => this.enforceConcurrency && body.transport === undefined && body.schedulePlan === undefined && this.#active >= this.concurrencyLimit
    const created = customers.map((customer) => this.#add(body, customer, atLimit()))
    const blocked = created.some((call) => this.#entries.get(call.id)!.blocked)
    const limits = blocked ? { concurrencyBlocked: true, concurrencyLimit: this.concurrencyLimit, remainingConcurrentCalls: 0 } : this.#subscriptionLimits()
    const answer = Array.isArray(body.customers) ? { results: created, errors: [], subscriptionLimits: limits } : { ...created[0], subscriptionLimits: limits }
    const generation = this.#generation
    const pacing = this.pacing
    for (const call of created) {
      const entry = this.#entries.get(call.id)!
      if (call.type === 'vapi.websocketCall') this.onWebsocketCall(call)
      else if ((pacing === 'auto' || pacing === 'clock') && call.status !== 'scheduled') {
        // After the answer is on its way, like Vapi, which dials once the call is queued.
        const steps = this.#claim(entry, Infinity)
        void this.#enqueue(entry, async () => {
          await new Promise((resolve) => setImmediate(resolve))
          if (generation === this.#generation) await this.#runSteps(entry, steps, true, pacing === 'clock')
        })
      }
    }
    if (fault && commit) {
      await host.answerFault(reply, fault)
      return reply
    }
    return reply.code(201).send(answer)
  }

  #add(body: Record<string, unknown>, customer: FakeCustomer | undefined, blocked = false): FakeCall {
    const now = this.#host.now().toISOString()
    const id = randomUUID()
    const echoed = Object.fromEntries(Object.entries(body).filter(([key]) => key !== 'customers' && key !== 'customer'))
    const socketUrl = this.#host.url.replace(/^http/, 'ws')
    const callSocketBase = this.websocketBase ?? socketUrl
    const transport = isObject(body.transport) ? body.transport : undefined
    const audioFormat = isObject(transport?.audioFormat) ? transport.audioFormat : {}
    const kind = transport
      ? {
          type: 'vapi.websocketCall' as const,
          transport: {
            ...transport,
            provider: 'vapi.websocket' as const,
            audioFormat: { format: 'pcm_s16le' as const, container: 'raw' as const, sampleRate: 16000, ...audioFormat } as FakeAudioFormat,
            websocketCallUrl: `${callSocketBase}/${id}/transport`,
          },
        }
      : { type: 'outboundPhoneCall' as const, phoneCallProvider: 'twilio' as const, phoneCallTransport: 'pstn' as const, phoneCallProviderId: `CA${randomBytes(16).toString('hex')}` }
    const record: FakeCall = {
      ...echoed,
      id,
      orgId: ORG_ID,
      status: body.schedulePlan !== undefined ? 'scheduled' : 'queued',
      createdAt: now,
      updatedAt: now,
      cost: 0,
      costs: [],
      monitor: { listenUrl: `${socketUrl}/${id}/listen`, controlUrl: `${this.#host.url}/${id}/control` },
      ...kind,
      ...(customer !== undefined ? { customer: structuredClone(customer) } : {}),
    }
    const seq = this.#seq++
    let wake = () => {}
    const woken = new Promise<void>((resolve) => (wake = resolve))
    const entry: Entry = {
      seq,
      record,
      blocked,
      deleted: false,
      cancelled: false,
      wake,
      woken,
      steps: undefined,
      next: 0,
      lastAt: Date.parse(now),
      endEarly: undefined,
      random: seededRandom(this.emitter.settings.seed * 1_000_003 + seq),
      chain: Promise.resolve(),
    }
    this.#entries.set(id, entry)
    // The active count follows every change of the status, wherever it is made (a count over every
    // call on each create would make a burst of thousands of dials quadratic).
    // A refused call holds no line, whatever its status says.
    let status = record.status
    const holds = (value: CallStatus) => (!blocked && ACTIVE.has(value) ? 1 : 0)
    if (blocked) this.#refused += 1
    this.#active += holds(status)
    if (holds(status)) this.onLinesChange(this.#active, record)
    Object.defineProperty(record, 'status', {
      enumerable: true,
      configurable: true,
      get: () => status,
      set: (next: CallStatus) => {
        const change = holds(next) - holds(status)
        this.#active += change
        status = next
        if (change !== 0) this.onLinesChange(this.#active, record)
      },
    })
    const waiters = this.#created
    this.#created = []
    for (const resolve of waiters) resolve(record)
    return record
  }

  #subscriptionLimits() {
    const active = this.#active
    return { concurrencyBlocked: active > this.concurrencyLimit, concurrencyLimit: this.concurrencyLimit, remainingConcurrentCalls: Math.max(0, this.concurrencyLimit - active) }
  }

  /**
   * DELETE /call/:id: a call not yet ended ends (scheduled → 'scheduled-call-deleted', queued →
   * 'manually-canceled', ringing or in progress → 'call-deleted') with a status-update, then its data
   * is gone (GET answers 404). Answers the call as it was at deletion.
   */
  #delete(entry: Entry): FakeCall {
    const call = entry.record
    entry.cancelled = true
    entry.wake()
    if (call.status !== 'ended') {
      const at = Math.max(this.#host.now().getTime(), Date.parse(call.updatedAt))
      call.endedReason = call.status === 'scheduled' ? 'scheduled-call-deleted' : call.status === 'queued' ? 'manually-canceled' : 'call-deleted'
      call.status = 'ended'
      call.endedAt = iso(at)
      call.updatedAt = iso(at)
      const message = { type: 'status-update', timestamp: at, call: structuredClone(call), customer: call.customer, status: 'ended', endedReason: call.endedReason }
      const allowed = this.#serverMessages(call)
      if (allowed.has('status-update')) {
        const live = this.#isLive(entry, this.#generation)
        void this.#enqueue(entry, () => this.emitter.send(this.#target(call), [{ callId: call.id, message }], entry.random, live))
      }
    }
    this.onDeleted(call)
    entry.deleted = true
    return call
  }

  // ---- test control over HTTP (for a test in another process) ---------------------------------

  #controlRoutes() {
    const app = this.#host.app
    app.get('/__fake/calls', async () => ({ calls: this.list().map((call) => ({ ...call, deleted: this.isDeleted(call.id) })) }))
    app.get('/__fake/calls/:id', async (request, reply) => {
      const call = this.get((request.params as { id: string }).id)
      return call ? call : reply.code(404).send(vapiError(404, 'Call not found'))
    })
    app.post('/__fake/calls/:id/play', async (request, reply) => {
      const id = (request.params as { id: string }).id
      if (!this.get(id)) return reply.code(404).send(vapiError(404, 'Call not found'))
      await this.play(id)
      return { ok: true }
    })
    app.post('/__fake/advance', async () => ({ step: (await this.advance()) ?? null }))
    app.post('/__fake/calls/hold', async (request, reply) => {
      const { before } = (request.body ?? {}) as { before?: unknown }
      if (typeof before !== 'string' || !before) return reply.code(400).send(vapiError(400, ['before must be a step label such as status-update:ended']))
      this.#httpHold = this.holdBefore(before)
      return { ok: true }
    })
    app.post('/__fake/calls/hold/reached', async (request, reply) => {
      if (!this.#httpHold) return reply.code(404).send(vapiError(404, 'No hold set'))
      return { step: await this.#httpHold.reached }
    })
    app.post('/__fake/calls/hold/release', async () => {
      this.releaseHolds()
      return { ok: true }
    })
    app.post('/__fake/settled', async () => {
      await this.settled()
      return { ok: true }
    })
    app.get('/__fake/deliveries', async (request) => {
      const { callId } = (request.query ?? {}) as { callId?: string }
      return { deliveries: this.emitter.deliveries.filter((delivery) => callId === undefined || delivery.callId === callId) }
    })
    app.post('/__fake/scenarios', async (request, reply) => {
      const body = (request.body ?? {}) as { scenarios?: Record<string, ScenarioInput>; default?: ScenarioInput }
      const all = [...Object.values(body.scenarios ?? {}), ...(body.default ? [body.default] : [])]
      const unknown = all.map((input) => (typeof input === 'string' ? input : input?.name)).filter((name) => !SCENARIOS.includes(name as ScenarioName))
      if (unknown.length > 0) return reply.code(400).send(vapiError(400, unknown.map((name) => `unknown scenario ${String(name)}`)))
      this.setScenarios(body.scenarios ?? {})
      if (body.default) this.defaultScenario = body.default
      return { ok: true }
    })
    app.post('/__fake/webhooks', async (request) => {
      const body = (request.body ?? {}) as Partial<EmitterSettings> & { pacing?: Pacing; concurrencyLimit?: number; enforceConcurrency?: boolean; timeScale?: number }
      const { pacing, concurrencyLimit, enforceConcurrency, timeScale, ...settings } = body
      if (pacing === 'auto' || pacing === 'clock' || pacing === 'manual') this.pacing = pacing
      if (typeof concurrencyLimit === 'number') this.concurrencyLimit = concurrencyLimit
      if (typeof enforceConcurrency === 'boolean') this.enforceConcurrency = enforceConcurrency
      if (typeof timeScale === 'number' && timeScale > 0) this.timeScale = timeScale
      this.configureWebhooks(settings)
      return { ok: true, settings: this.emitter.settings, pacing: this.pacing }
    })
    app.get('/__fake/lines', async () => ({
      concurrencyLimit: this.concurrencyLimit,
      enforceConcurrency: this.enforceConcurrency,
      active: this.#active,
      refused: this.#refused,
    }))
    app.post('/__fake/webhooks/auth', async (request) => {
      this.setWebhookAuth((request.body ?? { mode: 'none' }) as WebhookAuth)
      return { ok: true }
    })
  }
}
