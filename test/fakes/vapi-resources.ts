/**
 * The fake Vapi's account resources, the ones `npm run vapi:setup` reads and writes: assistants
 * (`/assistant`), structured outputs (`/structured-output`), webhook credentials (`/credential`)
 * and phone numbers (`/phone-number`), each with create, list, get and update. Registered on the
 * fake's Fastify app (test/fakes/vapi.ts), so its Bearer check and request recording apply.
 *
 * Wire formats follow Vapi's OpenAPI document (VapiAI/docs, fern/apis/api/openapi.json) and, for
 * `/credential` (absent from that document), its SIP guides and the `CreateWebhookCredentialDTO`
 * schema. The fake's own choices, where Vapi's behaviour is not documented:
 * - Unknown properties are refused ("property X should not exist") at the top level and in the
 *   nested objects the script sends (server, voicemailDetection, artifactPlan, authenticationPlan).
 * - An assistant's `server.credentialId` and `artifactPlan.structuredOutputIds` must name existing
 *   resources (400 otherwise), so a setup that writes them in the wrong order fails here.
 * - Create fills `voice` and `transcriber` defaults the body left out, as Vapi does with its own
 *   defaults (the values here are the fake's), so a caller must compare only what it set.
 * - PATCH replaces the top-level fields it names and keeps the others.
 * - A credential is never read back with its secret (token, secretKey, clientSecret).
 * - `GET /structured-output?name=` matches the whole name.
 * - Lists are newest first; `/assistant`, `/credential` and `/phone-number` answer an array,
 *   `/structured-output` a page `{ results, metadata }`.
 */
import { randomUUID } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { VAPI_SIGNATURE_HEADER, VAPI_TIMESTAMP_HEADER } from '#common/webhooks'
import type { WebhookAuth } from './vapi-webhooks'

type Resource = Record<string, unknown> & { id: string; createdAt: string; updatedAt: string }

export type FakeVapiResources = {
  assistants: Map<string, Resource>
  structuredOutputs: Map<string, Resource>
  /** As created, secrets included (the API never answers them). */
  credentials: Map<string, Resource>
  phoneNumbers: Map<string, Resource>
  /** Adds a phone number as if imported in the dashboard; returns it. */
  addPhoneNumber(number: string, name?: string): Resource
  /** Forgets every resource. */
  clear(): void
}

const ORG_ID = 'org-fake-0001'

const SERVER_MESSAGES = new Set([
  'assistant.started', 'assistant.speechStarted', 'conversation-update', 'end-of-call-report', 'function-call', 'hang',
  'language-changed', 'language-change-detected', 'model-output', 'phone-call-control', 'speech-update', 'status-update',
  'transcript', 'transcript[transcriptType="final"]', 'tool-calls', 'transfer-destination-request', 'handoff-destination-request',
  'transfer-update', 'user-interrupted', 'voice-input', 'chat.created', 'chat.deleted', 'session.created', 'session.updated',
  'session.deleted', 'call.deleted', 'call.delete.failed', 'call.artifact.upload',
])

const ASSISTANT_FIELDS = new Set([
  'transcriber', 'model', 'voice', 'firstMessage', 'firstMessageInterruptionsEnabled', 'firstMessageMode', 'voicemailDetection',
  'clientMessages', 'serverMessages', 'maxDurationSeconds', 'backgroundSound', 'modelOutputInMessagesEnabled',
  'transportConfigurations', 'observabilityPlan', 'credentials', 'hooks', 'name', 'voicemailMessage', 'endCallMessage',
  'endCallPhrases', 'compliancePlan', 'metadata', 'backgroundSpeechDenoisingPlan', 'analysisPlan', 'artifactPlan',
  'startSpeakingPlan', 'stopSpeakingPlan', 'monitorPlan', 'credentialIds', 'server', 'keypadInputPlan',
])
const SERVER_FIELDS = new Set(['url', 'timeoutSeconds', 'credentialId', 'staticIpAddressesEnabled', 'encryptedPaths', 'headers', 'backoffPlan'])
const VAPI_VOICEMAIL_FIELDS = new Set(['provider', 'type', 'beepMaxAwaitSeconds', 'backoffPlan'])
const ARTIFACT_PLAN_FIELDS = new Set([
  'recordingEnabled', 'recordingFormat', 'recordingUseCustomStorageEnabled', 'videoRecordingEnabled', 'fullMessageHistoryEnabled',
  'pcapEnabled', 'pcapS3PathPrefix', 'pcapUseCustomStorageEnabled', 'loggingEnabled', 'loggingUseCustomStorageEnabled',
  'transcriptPlan', 'recordingPath', 'structuredOutputIds', 'structuredOutputs', 'scorecardIds', 'scorecards', 'loggingPath',
])
const STRUCTURED_OUTPUT_FIELDS = new Set(['type', 'regex', 'model', 'compliancePlan', 'conditions', 'name', 'schema', 'description', 'assistantIds', 'workflowIds'])
const SCHEMA_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object'])
const CREDENTIAL_FIELDS = new Set(['provider', 'authenticationPlan', 'name'])
const AUTH_PLAN_FIELDS: Record<string, { fields: Set<string>; required: string[]; secret: string }> = {
  bearer: { fields: new Set(['type', 'token', 'headerName', 'bearerPrefixEnabled']), required: ['token'], secret: 'token' },
  hmac: {
    fields: new Set(['type', 'secretKey', 'algorithm', 'signatureHeader', 'timestampHeader', 'signaturePrefix', 'includeTimestamp', 'payloadFormat', 'messageIdHeader', 'signatureEncoding', 'secretIsBase64']),
    required: ['secretKey', 'algorithm'],
    secret: 'secretKey',
  },
  oauth2: { fields: new Set(['type', 'url', 'clientId', 'clientSecret', 'scope']), required: ['url', 'clientId', 'clientSecret'], secret: 'clientSecret' },
}
const PHONE_NUMBER_FIELDS = new Set([
  'fallbackDestination', 'hooks', 'provider', 'smsEnabled', 'number', 'twilioAccountSid', 'twilioAuthToken', 'twilioApiKey',
  'twilioApiSecret', 'numberDesiredAreaCode', 'sipUri', 'authentication', 'credentialId', 'numberE164CheckEnabled', 'name',
  'assistantId', 'workflowId', 'squadId', 'server',
])
const PHONE_PROVIDERS = new Set(['twilio', 'vonage', 'vapi', 'telnyx', 'byo-phone-number'])

const REASONS: Record<number, string> = { 400: 'Bad Request', 404: 'Not Found' }
const errorBody = (status: number, message: string | string[]) => ({ message, error: REASONS[status] ?? 'Error', statusCode: status })

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value)

function unknownFields(value: Record<string, unknown>, allowed: Set<string>, prefix = ''): string[] {
  return Object.keys(value)
    .filter((key) => !allowed.has(key))
    .map((key) => `property ${prefix}${key} should not exist`)
}

function numberIn(problems: string[], value: unknown, name: string, min: number, max: number) {
  if (value === undefined) return
  if (typeof value !== 'number' || !Number.isFinite(value)) problems.push(`${name} must be a number`)
  else if (value < min) problems.push(`${name} must not be less than ${min}`)
  else if (value > max) problems.push(`${name} must not be greater than ${max}`)
}

function nameOf(problems: string[], value: unknown, required: boolean, prefix = '') {
  if (value === undefined) {
    if (required) problems.push(`${prefix}name should not be empty`)
    return
  }
  if (typeof value !== 'string' || value.length < 1) problems.push(`${prefix}name must be a non-empty string`)
  else if (value.length > 40) problems.push(`${prefix}name must be shorter than or equal to 40 characters`)
}

/** Fastify routes for the four resources, their state, and a handle to reach it from tests. */
export function registerVapiResources(app: FastifyInstance): FakeVapiResources {
  const state: FakeVapiResources = {
    assistants: new Map(),
    structuredOutputs: new Map(),
    credentials: new Map(),
    phoneNumbers: new Map(),
    addPhoneNumber(number, name) {
      const phone = stamp({ provider: 'byo-phone-number', number, name: name ?? number, status: 'active' })
      state.phoneNumbers.set(phone.id, phone)
      return phone
    },
    clear() {
      state.assistants.clear()
      state.structuredOutputs.clear()
      state.credentials.clear()
      state.phoneNumbers.clear()
    },
  }
  registered.set(app, state)

  function stamp(fields: Record<string, unknown>): Resource {
    const now = new Date().toISOString()
    return { ...fields, id: randomUUID(), orgId: ORG_ID, createdAt: now, updatedAt: now }
  }

  /** Applies a PATCH: the named top-level fields replace the stored ones. */
  function patch(resource: Resource, fields: Record<string, unknown>): Resource {
    Object.assign(resource, fields, { updatedAt: new Date(Math.max(Date.now(), Date.parse(resource.updatedAt) + 1)).toISOString() })
    return resource
  }

  const newestFirst = (resources: Iterable<Resource>) => [...resources].sort((a, b) => b.createdAt.localeCompare(a.createdAt))

  const limitOf = (request: FastifyRequest, fallback = 100) => {
    const limit = Number((request.query as { limit?: string }).limit ?? fallback)
    return Number.isFinite(limit) && limit >= 0 ? Math.min(limit, 1000) : fallback
  }

  function bodyOf(request: FastifyRequest, reply: FastifyReply): Record<string, unknown> | undefined {
    if (isObject(request.body)) return request.body
    reply.code(400).send(errorBody(400, ['body must be a JSON object']))
    return undefined
  }

  function found(map: Map<string, Resource>, request: FastifyRequest, reply: FastifyReply, what: string): Resource | undefined {
    const id = (request.params as { id: string }).id
    const resource = map.get(id)
    if (!resource) reply.code(404).send(errorBody(404, `${what} with id ${id} not found`))
    return resource
  }

  // --- assistants ---------------------------------------------------------------------------

  function assistantProblems(body: Record<string, unknown>): string[] {
    const problems = unknownFields(body, ASSISTANT_FIELDS)
    nameOf(problems, body.name, false)
    if (body.firstMessage !== undefined && typeof body.firstMessage !== 'string') problems.push('firstMessage must be a string')
    if (body.firstMessageMode !== undefined && !['assistant-speaks-first', 'assistant-speaks-first-with-model-generated-message', 'assistant-waits-for-user'].includes(String(body.firstMessageMode))) {
      problems.push('firstMessageMode must be one of the following values: assistant-speaks-first, assistant-speaks-first-with-model-generated-message, assistant-waits-for-user')
    }
    numberIn(problems, body.maxDurationSeconds, 'maxDurationSeconds', 10, 43200)
    if (body.voicemailMessage !== undefined && (typeof body.voicemailMessage !== 'string' || body.voicemailMessage.length > 1000)) {
      problems.push('voicemailMessage must be a string shorter than or equal to 1000 characters')
    }
    if (body.serverMessages !== undefined) {
      if (!Array.isArray(body.serverMessages)) problems.push('serverMessages must be an array')
      else for (const message of body.serverMessages) if (!SERVER_MESSAGES.has(String(message))) problems.push(`serverMessages has an invalid value: ${String(message)}`)
    }
    if (body.voicemailDetection !== undefined && body.voicemailDetection !== 'off') {
      const detection = body.voicemailDetection
      if (!isObject(detection)) problems.push('voicemailDetection must be "off" or an object')
      else if (!['vapi', 'google', 'openai', 'twilio'].includes(String(detection.provider))) problems.push('voicemailDetection.provider must be one of: vapi, google, openai, twilio')
      else if (detection.provider === 'vapi') {
        problems.push(...unknownFields(detection, VAPI_VOICEMAIL_FIELDS, 'voicemailDetection.'))
        numberIn(problems, detection.beepMaxAwaitSeconds, 'voicemailDetection.beepMaxAwaitSeconds', 0, 30)
        if (detection.type !== undefined && !['audio', 'transcript'].includes(String(detection.type))) problems.push('voicemailDetection.type must be one of: audio, transcript')
      }
    }
    if (body.server !== undefined) {
      const server = body.server
      if (!isObject(server)) problems.push('server must be an object')
      else {
        problems.push(...unknownFields(server, SERVER_FIELDS, 'server.'))
        if (typeof server.url !== 'string' || !/^https?:\/\/\S+$/.test(server.url)) problems.push('server.url must be an http(s) URL')
        numberIn(problems, server.timeoutSeconds, 'server.timeoutSeconds', 1, 300)
        if (server.credentialId !== undefined && !state.credentials.has(String(server.credentialId))) problems.push(`server.credentialId ${String(server.credentialId)} does not exist`)
        if (server.headers !== undefined && (!isObject(server.headers) || Object.values(server.headers).some((value) => typeof value !== 'string'))) {
          problems.push('server.headers must be an object of strings')
        }
      }
    }
    if (body.artifactPlan !== undefined) {
      const plan = body.artifactPlan
      if (!isObject(plan)) problems.push('artifactPlan must be an object')
      else {
        problems.push(...unknownFields(plan, ARTIFACT_PLAN_FIELDS, 'artifactPlan.'))
        if (plan.structuredOutputIds !== undefined) {
          if (!Array.isArray(plan.structuredOutputIds)) problems.push('artifactPlan.structuredOutputIds must be an array')
          else for (const id of plan.structuredOutputIds) if (!state.structuredOutputs.has(String(id))) problems.push(`artifactPlan.structuredOutputIds: structured output ${String(id)} does not exist`)
        }
      }
    }
    if (body.model !== undefined) {
      const model = body.model
      if (!isObject(model) || typeof model.provider !== 'string' || typeof model.model !== 'string') problems.push('model must be an object with provider and model')
      else if (model.messages !== undefined && (!Array.isArray(model.messages) || model.messages.some((message) => !isObject(message) || typeof message.role !== 'string'))) {
        problems.push('model.messages must be an array of { role, content }')
      }
    }
    if (body.metadata !== undefined && !isObject(body.metadata)) problems.push('metadata must be an object')
    return problems
  }

  app.post('/assistant', async (request, reply) => {
    const body = bodyOf(request, reply)
    if (!body) return reply
    const problems = assistantProblems(body)
    if (problems.length > 0) return reply.code(400).send(errorBody(400, problems))
    const assistant = stamp({
      voice: { provider: 'vapi', voiceId: 'Elliot' },
      transcriber: { provider: 'deepgram', model: 'nova-3', language: 'en' },
      ...body,
    })
    state.assistants.set(assistant.id, assistant)
    return reply.code(201).send(assistant)
  })
  app.get('/assistant', async (request) => newestFirst(state.assistants.values()).slice(0, limitOf(request)))
  app.get('/assistant/:id', async (request, reply) => found(state.assistants, request, reply, 'Assistant') ?? reply)
  app.patch('/assistant/:id', async (request, reply) => {
    const assistant = found(state.assistants, request, reply, 'Assistant')
    if (!assistant) return reply
    const body = bodyOf(request, reply)
    if (!body) return reply
    const problems = assistantProblems(body)
    if (problems.length > 0) return reply.code(400).send(errorBody(400, problems))
    return patch(assistant, body)
  })

  // --- structured outputs -------------------------------------------------------------------

  function schemaProblems(schema: unknown, path: string): string[] {
    if (!isObject(schema)) return [`${path} must be an object`]
    if (!SCHEMA_TYPES.has(String(schema.type))) return [`${path}.type must be one of the following values: ${[...SCHEMA_TYPES].join(', ')}`]
    const problems: string[] = []
    if (schema.type === 'array' && schema.items !== undefined) problems.push(...schemaProblems(schema.items, `${path}.items`))
    if (schema.type === 'object' && schema.properties !== undefined) {
      if (!isObject(schema.properties)) problems.push(`${path}.properties must be an object`)
      else for (const [key, property] of Object.entries(schema.properties)) problems.push(...schemaProblems(property, `${path}.properties.${key}`))
    }
    return problems
  }

  function structuredOutputProblems(body: Record<string, unknown>, creating: boolean): string[] {
    const problems = unknownFields(body, STRUCTURED_OUTPUT_FIELDS)
    nameOf(problems, body.name, creating)
    if (body.type !== undefined && !['ai', 'regex'].includes(String(body.type))) problems.push('type must be one of the following values: ai, regex')
    if (body.schema === undefined) {
      if (creating) problems.push('schema should not be empty')
    } else problems.push(...schemaProblems(body.schema, 'schema'))
    if (body.description !== undefined && typeof body.description !== 'string') problems.push('description must be a string')
    return problems
  }

  app.post('/structured-output', async (request, reply) => {
    const body = bodyOf(request, reply)
    if (!body) return reply
    const problems = structuredOutputProblems(body, true)
    if (problems.length > 0) return reply.code(400).send(errorBody(400, problems))
    const output = stamp({ type: 'ai', assistantIds: [], workflowIds: [], ...body })
    state.structuredOutputs.set(output.id, output)
    return reply.code(201).send(output)
  })
  app.get('/structured-output', async (request) => {
    const query = request.query as { id?: string; name?: string; page?: string }
    const matching = newestFirst(state.structuredOutputs.values()).filter(
      (output) => (query.id === undefined || output.id === query.id) && (query.name === undefined || output.name === query.name),
    )
    const limit = limitOf(request)
    const page = Math.max(1, Number(query.page ?? 1) || 1)
    return {
      results: matching.slice((page - 1) * limit, page * limit),
      metadata: { itemsPerPage: limit, totalItems: matching.length, currentPage: page, totalPages: Math.max(1, Math.ceil(matching.length / Math.max(limit, 1))) },
    }
  })
  app.get('/structured-output/:id', async (request, reply) => found(state.structuredOutputs, request, reply, 'Structured output') ?? reply)
  app.patch('/structured-output/:id', async (request, reply) => {
    const output = found(state.structuredOutputs, request, reply, 'Structured output')
    if (!output) return reply
    const body = bodyOf(request, reply)
    if (!body) return reply
    const problems = structuredOutputProblems(body, false)
    const changesType = isObject(body.schema) && isObject(output.schema) && body.schema.type !== output.schema.type
    if (changesType && (request.query as { schemaOverride?: string }).schemaOverride !== 'true') {
      problems.push('Changing the schema type requires schemaOverride=true')
    }
    if (problems.length > 0) return reply.code(400).send(errorBody(400, problems))
    return patch(output, body)
  })

  // --- credentials --------------------------------------------------------------------------

  function credentialProblems(body: Record<string, unknown>, creating: boolean): string[] {
    const problems = unknownFields(body, CREDENTIAL_FIELDS)
    if (creating || body.provider !== undefined) {
      if (body.provider !== 'webhook') problems.push('provider must be "webhook" (the only credential provider this fake models)')
    }
    nameOf(problems, body.name, false)
    if (body.authenticationPlan === undefined) {
      if (creating) problems.push('authenticationPlan should not be empty')
      return problems
    }
    const plan = body.authenticationPlan
    const kind = isObject(plan) ? AUTH_PLAN_FIELDS[String(plan.type)] : undefined
    if (!isObject(plan) || !kind) return [...problems, 'authenticationPlan.type must be one of the following values: oauth2, hmac, bearer']
    problems.push(...unknownFields(plan, kind.fields, 'authenticationPlan.'))
    for (const field of kind.required) if (typeof plan[field] !== 'string' || plan[field] === '') problems.push(`authenticationPlan.${field} should not be empty`)
    if (plan.type === 'hmac') {
      if (plan.algorithm !== undefined && !['sha256', 'sha512', 'sha1'].includes(String(plan.algorithm))) problems.push('authenticationPlan.algorithm must be one of: sha256, sha512, sha1')
      if (plan.signatureEncoding !== undefined && !['hex', 'base64'].includes(String(plan.signatureEncoding))) problems.push('authenticationPlan.signatureEncoding must be one of: hex, base64')
    }
    return problems
  }

  /** A credential as the API answers it: without its secret. */
  function shown(credential: Resource): Record<string, unknown> {
    const plan = credential.authenticationPlan as Record<string, unknown>
    const secret = AUTH_PLAN_FIELDS[String(plan.type)]?.secret
    const { [secret ?? '']: _hidden, ...visible } = plan
    return { ...credential, authenticationPlan: visible }
  }

  app.post('/credential', async (request, reply) => {
    const body = bodyOf(request, reply)
    if (!body) return reply
    const problems = credentialProblems(body, true)
    if (problems.length > 0) return reply.code(400).send(errorBody(400, problems))
    const credential = stamp(structuredClone(body))
    state.credentials.set(credential.id, credential)
    return reply.code(201).send(shown(credential))
  })
  app.get('/credential', async (request) => newestFirst(state.credentials.values()).slice(0, limitOf(request)).map(shown))
  app.get('/credential/:id', async (request, reply) => {
    const credential = found(state.credentials, request, reply, 'Credential')
    return credential ? shown(credential) : reply
  })
  app.patch('/credential/:id', async (request, reply) => {
    const credential = found(state.credentials, request, reply, 'Credential')
    if (!credential) return reply
    const body = bodyOf(request, reply)
    if (!body) return reply
    const problems = credentialProblems(body, false)
    if (problems.length > 0) return reply.code(400).send(errorBody(400, problems))
    return shown(patch(credential, structuredClone(body)))
  })

  // --- phone numbers ------------------------------------------------------------------------

  function phoneNumberProblems(body: Record<string, unknown>, creating: boolean): string[] {
    const problems = unknownFields(body, PHONE_NUMBER_FIELDS)
    if (creating && !PHONE_PROVIDERS.has(String(body.provider))) problems.push(`provider must be one of the following values: ${[...PHONE_PROVIDERS].join(', ')}`)
    if (!creating && body.provider !== undefined) problems.push('property provider should not exist')
    if (body.number !== undefined && (typeof body.number !== 'string' || !/^\+[1-9]\d{6,14}$/.test(body.number))) problems.push('number must be a valid phone number in E.164')
    if (creating && body.provider !== 'vapi' && body.number === undefined) problems.push('number should not be empty')
    nameOf(problems, body.name, false)
    return problems
  }

  app.post('/phone-number', async (request, reply) => {
    const body = bodyOf(request, reply)
    if (!body) return reply
    const problems = phoneNumberProblems(body, true)
    if (problems.length > 0) return reply.code(400).send(errorBody(400, problems))
    const phone = stamp({ status: 'active', ...body })
    state.phoneNumbers.set(phone.id, phone)
    return reply.code(201).send(phone)
  })
  app.get('/phone-number', async (request) => newestFirst(state.phoneNumbers.values()).slice(0, limitOf(request)))
  app.get('/phone-number/:id', async (request, reply) => found(state.phoneNumbers, request, reply, 'Phone number') ?? reply)
  app.patch('/phone-number/:id', async (request, reply) => {
    const phone = found(state.phoneNumbers, request, reply, 'Phone number')
    if (!phone) return reply
    const body = bodyOf(request, reply)
    if (!body) return reply
    const problems = phoneNumberProblems(body, false)
    if (problems.length > 0) return reply.code(400).send(errorBody(400, problems))
    return patch(phone, body)
  })

  return state
}

/**
 * How Vapi authenticates a webhook to a server that references this credential (`credentialId`),
 * from its authentication plan with Vapi's defaults (brief §4): bearer sends `Authorization: Bearer
 * <token>` unless the plan names another header or turns the prefix off; HMAC signs
 * `{timestamp}.{body}` (the fake's timestamp in seconds). Undefined for no credential, or a plan
 * the fake does not send (OAuth2).
 */
export function webhookAuthOf(credential: Record<string, unknown> | undefined): WebhookAuth | undefined {
  const plan = credential?.authenticationPlan
  if (!isObject(plan)) return undefined
  if (plan.type === 'bearer' && typeof plan.token === 'string') {
    return {
      mode: 'bearer',
      token: plan.token,
      headerName: typeof plan.headerName === 'string' ? plan.headerName : 'Authorization',
      bearerPrefixEnabled: plan.bearerPrefixEnabled !== false,
    }
  }
  if (plan.type === 'hmac' && typeof plan.secretKey === 'string') {
    return {
      mode: 'hmac',
      secretKey: plan.secretKey,
      algorithm: (plan.algorithm as 'sha256' | 'sha512' | 'sha1' | undefined) ?? 'sha256',
      signatureHeader: typeof plan.signatureHeader === 'string' ? plan.signatureHeader : VAPI_SIGNATURE_HEADER,
      timestampHeader: typeof plan.timestampHeader === 'string' ? plan.timestampHeader : VAPI_TIMESTAMP_HEADER,
      includeTimestamp: plan.includeTimestamp !== false,
      signatureEncoding: plan.signatureEncoding === 'base64' ? 'base64' : 'hex',
      ...(typeof plan.signaturePrefix === 'string' ? { signaturePrefix: plan.signaturePrefix } : {}),
    }
  }
  return undefined
}

const registered = new WeakMap<FastifyInstance, FakeVapiResources>()

/** The resources of a fake registered on `app` (e.g. `vapiResources(fake.app)`). */
export function vapiResources(app: FastifyInstance): FakeVapiResources {
  const state = registered.get(app)
  if (!state) throw new Error('registerVapiResources was not called on this app')
  return state
}
