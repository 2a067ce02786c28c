import { createHmac, randomUUID } from 'node:crypto'
import type { IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Vapi, VapiClient, VapiError } from '@vapi-ai/server-sdk'
import Fastify, { type FastifyInstance } from 'fastify'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { isUuid } from '#common/uuid'
import { FakeVapi, type FakeCall } from '../fakes/vapi'
import { fakeClock } from '../helpers/clock'
import { createWebhookCredential } from '../helpers/vapi-credential'

/**
 * The Vapi fake's phone-call surface (test/fakes/vapi.ts, vapi-calls.ts, vapi-webhooks.ts), driven
 * through the official SDK the app uses, and its server messages caught by a small Fastify
 * receiver that keeps the raw bytes (to check signatures the way the app must).
 */

type Received = { headers: IncomingHttpHeaders; raw: string; message: { type: string; status?: string; [key: string]: unknown } }

/** A webhook receiver: records every body; `respond` picks the status (or 'hold': never answers). */
async function startReceiver() {
  const received: Received[] = []
  const held: Array<() => void> = []
  let respond: (message: Received['message']) => number | 'hold' = () => 200
  const app: FastifyInstance = Fastify({ logger: false, forceCloseConnections: true })
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => done(null, body))
  app.post('/webhooks/vapi', async (request, reply) => {
    const raw = request.body as string
    const message = (JSON.parse(raw) as { message: Received['message'] }).message
    received.push({ headers: request.headers, raw, message })
    const status = respond(message)
    if (status === 'hold') await new Promise<void>((resolve) => held.push(resolve))
    return reply.code(status === 'hold' ? 200 : status).send({ ok: true })
  })
  await app.listen({ port: 0, host: '127.0.0.1' })
  return {
    url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/webhooks/vapi`,
    received,
    respondWith(next: typeof respond) {
      respond = next
    },
    clear() {
      received.length = 0
      respond = () => 200
      for (const release of held.splice(0)) release()
    },
    close: () => app.close(),
  }
}

const START = new Date('2026-11-21T12:00:00.000Z')
const clock = fakeClock(START)
let fake: FakeVapi
let receiver: Awaited<ReturnType<typeof startReceiver>>
let client: VapiClient

beforeAll(async () => {
  receiver = await startReceiver()
  fake = await FakeVapi.start({ clock, webhookUrl: receiver.url })
  client = new VapiClient({ token: fake.apiKey, baseUrl: fake.url, maxRetries: 0 })
})

afterAll(async () => {
  await fake?.close()
  await receiver?.close()
})

afterEach(async () => {
  await fake.settled()
  fake.reset()
  receiver.clear()
  clock.set(START)
})

const NUMBER = '+12025230001'

/** A dial request shaped like the app's (issue 13 design). */
function dialBody(overrides: Record<string, unknown> = {}, assistantOverrides: Record<string, unknown> = {}): Vapi.CreateCallDto {
  return {
    assistantId: 'asst_test_coach',
    phoneNumberId: 'pn_test_line',
    customer: { number: NUMBER, name: 'Dana' },
    name: `mc ${randomUUID()}`,
    assistantOverrides: {
      variableValues: { firstName: 'Dana', focusAreas: 'Fitness & Health, Finance, Friends & Social Life', callKind: 'daily check-in', localDate: '2026-11-21' },
      maxDurationSeconds: 900,
      metadata: { callId: 'our-call-1', userId: 'user-1', slot: 'daily', localDate: '2026-11-21', attempt: 0 },
      server: { url: receiver.url, timeoutSeconds: 20 },
      serverMessages: ['status-update', 'end-of-call-report'],
      ...assistantOverrides,
    },
    ...overrides,
  } as Vapi.CreateCallDto
}

async function dial(overrides: Record<string, unknown> = {}, assistantOverrides: Record<string, unknown> = {}): Promise<Vapi.Call> {
  return (await client.calls.create(dialBody(overrides, assistantOverrides))) as Vapi.Call
}

/** GET /call/:id through the SDK, typed as the fake's record. */
const getCall = async (id: string) => (await client.calls.get({ id })) as unknown as FakeCall

async function failure(promise: Promise<unknown>): Promise<VapiError> {
  try {
    await promise
  } catch (error) {
    if (error instanceof VapiError) return error
    throw error
  }
  throw new Error('expected the SDK to throw')
}

const messagesOf = (error: VapiError) => (error.body as { message: string[] }).message

/** The types (status-updates as `status-update:<status>`) the receiver got, in order. */
const receivedTypes = () => receiver.received.map(({ message }) => (message.type === 'status-update' ? `status-update:${message.status}` : message.type))

describe('POST /call', () => {
  it('answers 201 with a queued outbound phone call that echoes the request', async () => {
    const body = dialBody()
    const { data, rawResponse } = await client.calls.create(body).withRawResponse()
    const call = data as Vapi.Call & { subscriptionLimits: unknown }
    expect(rawResponse.status).toBe(201)
    expect(isUuid(call.id)).toBe(true)
    expect(call).toMatchObject({
      orgId: expect.any(String),
      type: 'outboundPhoneCall',
      status: 'queued',
      createdAt: START.toISOString(),
      updatedAt: START.toISOString(),
      assistantId: body.assistantId,
      phoneNumberId: body.phoneNumberId,
      name: body.name,
      customer: body.customer,
      assistantOverrides: body.assistantOverrides,
      subscriptionLimits: { concurrencyBlocked: false, concurrencyLimit: 10, remainingConcurrentCalls: 9 },
    })
    const host = new URL(fake.url).host
    expect(call.monitor).toEqual({ listenUrl: `ws://${host}/${call.id}/listen`, controlUrl: `http://${host}/${call.id}/control` })
    expect(fake.requestsTo('POST', '/call')).toHaveLength(1)
  })

  it.each([
    ['an unknown top-level property', { callerId: 'x' }, {}, 'property callerId should not exist'],
    ['no assistant', { assistantId: undefined }, {}, 'Need Either `assistant`, `assistantId`'],
    ['two assistant sources', { squadId: 'squad_1' }, {}, 'Only one of `assistantId`'],
    ['a name over 40 characters', { name: 'x'.repeat(41) }, {}, 'name must be shorter than or equal to 40 characters'],
    ['no phone number', { phoneNumberId: undefined }, {}, 'Need Either `phoneNumberId` or `phoneNumber`.'],
    ['no customer', { customer: undefined }, {}, 'Need Either `customer`, `customerId` or `customers`.'],
    ['a number not in E.164', { customer: { number: '2025230001' } }, {}, 'customer.number must be a valid phone number in the E.164 format'],
    ['an unknown customer property', { customer: { number: NUMBER, phone: '1' } }, {}, 'customer.property phone should not exist'],
    ['maxDurationSeconds under 10', {}, { maxDurationSeconds: 5 }, 'assistantOverrides.maxDurationSeconds must not be less than 10'],
    ['maxDurationSeconds over 43200', {}, { maxDurationSeconds: 43201 }, 'assistantOverrides.maxDurationSeconds must not be greater than 43200'],
    ['an unknown server message type', {}, { serverMessages: ['status-update', 'call-ended'] }, 'assistantOverrides.each value in serverMessages must be one of'],
    ['a server URL that is not one', {}, { server: { url: 'not a url' } }, 'assistantOverrides.server.url must be a URL address'],
  ])('refuses %s with a 400 in Vapi’s shape', async (_case, overrides, assistantOverrides, expected) => {
    const error = await failure(client.calls.create(dialBody(overrides, assistantOverrides)))
    expect(error).toBeInstanceOf(Vapi.BadRequestError)
    expect(error.statusCode).toBe(400)
    expect(error.body).toMatchObject({ error: 'Bad Request', statusCode: 400, message: expect.any(Array) })
    expect(messagesOf(error).some((message) => message.includes(expected))).toBe(true)
    expect(fake.calls.list()).toEqual([])
  })

  it('accepts a number outside E.164 when numberE164CheckEnabled is false, and the boundary durations', async () => {
    await dial({ customer: { number: '2025230001', numberE164CheckEnabled: false } })
    await dial({}, { maxDurationSeconds: 10 })
    await dial({ name: 'x'.repeat(40) }, { maxDurationSeconds: 43200 })
    expect(fake.calls.list()).toHaveLength(3)
  })

  it('answers 401 without the API key', async () => {
    const stranger = new VapiClient({ token: 'not-the-key', baseUrl: fake.url, maxRetries: 0 })
    const error = await failure(stranger.calls.create(dialBody()))
    expect(error.statusCode).toBe(401)
    expect(error.body).toMatchObject({ error: 'Unauthorized', statusCode: 401 })
    expect(fake.calls.list()).toEqual([])
  })

  it('makes one call per entry of customers[] and answers the batch shape', async () => {
    const numbers = ['+12025230011', '+12025230012']
    const batch = (await client.calls.create(dialBody({ customer: undefined, customers: numbers.map((number) => ({ number })) }))) as Vapi.CallBatchResponse
    expect(batch.errors).toEqual([])
    expect(batch.subscriptionLimits).toMatchObject({ concurrencyLimit: 10, remainingConcurrentCalls: 8 })
    expect(batch.results.map((call) => call.customer?.number)).toEqual(numbers)
    expect(new Set(batch.results.map((call) => call.id)).size).toBe(2)
    expect(fake.calls.list()).toHaveLength(2)
  })

  it('refuses a phone number with the WebSocket transport (test/integration/vapi-fake-transport.test.ts covers the rest)', async () => {
    const error = await failure(client.calls.create(dialBody({ transport: { provider: 'vapi.websocket' } })))
    expect(error.statusCode).toBe(400)
    expect(messagesOf(error)).toContain('phoneNumberId should not be provided with transport.provider vapi.websocket')
    expect(fake.calls.list()).toEqual([])
  })
})

describe('GET /call, GET /call/:id, DELETE /call/:id', () => {
  it('lists newest first, with the limit and the id, assistant, phone number and date filters', async () => {
    fake.calls.pacing = 'manual'
    const first = await dial({ assistantId: 'asst_a', phoneNumberId: 'pn_1' })
    clock.advance(60_000)
    const second = await dial({ assistantId: 'asst_b', phoneNumberId: 'pn_1' })
    clock.advance(60_000)
    const third = await dial({ assistantId: 'asst_a', phoneNumberId: 'pn_2' })
    const ids = (calls: Vapi.Call[]) => calls.map((call) => call.id)

    expect(ids(await client.calls.list())).toEqual([third.id, second.id, first.id])
    expect(ids(await client.calls.list({ limit: 2 }))).toEqual([third.id, second.id])
    expect(ids(await client.calls.list({ assistantId: 'asst_a' }))).toEqual([third.id, first.id])
    expect(ids(await client.calls.list({ phoneNumberId: 'pn_1' }))).toEqual([second.id, first.id])
    expect(ids(await client.calls.list({ id: second.id }))).toEqual([second.id])
    expect(ids(await client.calls.list({ createdAtGt: first.createdAt }))).toEqual([third.id, second.id])
    expect(ids(await client.calls.list({ createdAtGe: first.createdAt }))).toEqual([third.id, second.id, first.id])
    expect(ids(await client.calls.list({ createdAtLt: third.createdAt }))).toEqual([second.id, first.id])
    expect(ids(await client.calls.list({ createdAtLe: second.createdAt, createdAtGe: second.createdAt }))).toEqual([second.id])

    // The first call rings: its updatedAt moves to that scripted instant.
    await fake.advance()
    const ringing = await fake.advance()
    expect(ringing).toEqual({ callId: first.id, label: 'status-update:ringing', at: new Date(START.getTime() + 1000).toISOString() })
    expect(ids(await client.calls.list({ updatedAtGt: first.createdAt, updatedAtLt: second.createdAt }))).toEqual([first.id])
    expect(ids(await client.calls.list({ updatedAtLe: first.createdAt }))).toEqual([])

    await fake.calls.playAll()
    expect((await client.calls.list()).map((call) => call.status)).toEqual(['ended', 'ended', 'ended'])
  })

  it('refuses an unknown filter and a bad limit or date in Vapi’s shape', async () => {
    const get = (query: string) => fetch(`${fake.url}/call?${query}`, { headers: { authorization: `Bearer ${fake.apiKey}` } })
    for (const [query, message] of [
      ['customerNumber=%2B1555', 'property customerNumber should not exist'],
      ['limit=abc', 'limit must be a number conforming to the specified constraints'],
      ['createdAtGt=yesterday', 'createdAtGt must be a valid ISO 8601 date string'],
    ] as const) {
      const response = await get(query)
      expect(response.status).toBe(400)
      expect(await response.json()).toEqual({ message: [message], error: 'Bad Request', statusCode: 400 })
    }
  })

  it('answers 404 in Vapi’s shape for an unknown call', async () => {
    const error = await failure(client.calls.get({ id: randomUUID() }))
    expect(error.statusCode).toBe(404)
    expect(error.body).toEqual({ message: 'Call not found', error: 'Not Found', statusCode: 404 })
  })

  it('moves the record with the scenario, step by step in manual pacing', async () => {
    fake.calls.pacing = 'manual'
    const created = await dial()
    const current = () => getCall(created.id)
    const statuses: string[] = []
    for (let step = await fake.advance(); step; step = await fake.advance()) statuses.push(`${step.label}=${(await current()).status}`)
    expect(statuses).toEqual([
      'status-update:queued=queued',
      'status-update:ringing=ringing',
      'status-update:in-progress=in-progress',
      'utterance:bot=in-progress',
      'utterance:user=in-progress',
      'utterance:bot=in-progress',
      'utterance:user=in-progress',
      'utterance:bot=in-progress',
      'status-update:ended=ended',
      'end-of-call-report=ended',
    ])
    const final = await current()
    expect(final).toMatchObject({
      status: 'ended',
      endedReason: 'customer-ended-call',
      startedAt: new Date(START.getTime() + 6000).toISOString(),
      endedAt: new Date(START.getTime() + 6000 + 150_000).toISOString(),
      cost: 0.3,
      analysis: { summary: expect.stringContaining('Dana') },
    })
    const outputs = Object.values(final.artifact?.structuredOutputs ?? {})
    expect(outputs).toEqual([{ name: 'coaching_call_report', result: expect.objectContaining({ areasDiscussed: ['fitness', 'finance', 'friends'] }) }])
    expect(final.artifact?.messages.map((message) => message.role)).toEqual(['bot', 'user', 'bot', 'user', 'bot'])
    expect(final.artifact?.transcript).toMatch(/^AI: Hi Dana,.*\nUser: /s)
  })

  it('keeps the record at ended without artifact until the report (Vapi’s record lags at teardown)', async () => {
    fake.calls.pacing = 'manual'
    const created = await dial()
    let step = await fake.advance()
    while (step && step.label !== 'status-update:ended') step = await fake.advance()
    const ended = await getCall(created.id)
    expect(ended).toMatchObject({ status: 'ended', endedReason: 'customer-ended-call', cost: 0 })
    expect(ended.artifact).toBeUndefined()
  })

  it('deletes a queued call: it ends manually-canceled with a status-update, then answers 404', async () => {
    fake.calls.pacing = 'manual'
    const created = await dial()
    const deleted = (await client.calls.delete({ id: created.id })) as unknown as FakeCall
    expect(deleted).toMatchObject({ id: created.id, status: 'ended', endedReason: 'manually-canceled' })
    await fake.settled()
    expect(receiver.received.map(({ message }) => [message.type, message.status, message.endedReason])).toEqual([['status-update', 'ended', 'manually-canceled']])
    expect((await failure(client.calls.get({ id: created.id }))).statusCode).toBe(404)
    expect(await client.calls.list()).toEqual([])
    expect(await fake.advance()).toBeUndefined()
    expect(fake.calls.get(created.id)?.endedReason).toBe('manually-canceled')
  })

  it('keeps a scheduled call scheduled until played, and deleting it ends it scheduled-call-deleted', async () => {
    const earliestAt = new Date(START.getTime() + 3_600_000).toISOString()
    const scheduled = await dial({ schedulePlan: { earliestAt } })
    expect(scheduled.status).toBe('scheduled')
    await fake.settled()
    expect(receiver.received).toEqual([])
    const deleted = (await client.calls.delete({ id: scheduled.id })) as unknown as FakeCall
    expect(deleted).toMatchObject({ status: 'ended', endedReason: 'scheduled-call-deleted' })

    const later = await dial({ schedulePlan: { earliestAt } })
    await fake.play(later.id)
    const played = await getCall(later.id)
    expect(played).toMatchObject({ status: 'ended', startedAt: new Date(Date.parse(earliestAt) + 6000).toISOString() })
  })
})

describe('faults on POST /call', () => {
  it('plays a status sequence: 503, then 201', async () => {
    fake.injectSequence('POST /call', [503, 201])
    const error = await failure(dial())
    expect(error.statusCode).toBe(503)
    expect(error.body).toMatchObject({ statusCode: 503, error: 'Service Unavailable' })
    expect(fake.calls.list()).toEqual([])
    const call = await dial()
    expect(fake.calls.list().map((c) => c.id)).toEqual([call.id])
  })

  it('answers 429 with Retry-After', async () => {
    fake.inject('POST /call', { kind: 'status', status: 429, retryAfterSeconds: 7 })
    const error = await failure(dial())
    expect(error.statusCode).toBe(429)
    expect(error.rawResponse?.headers.get('retry-after')).toBe('7')
  })

  it('commit: creates the call (and plays it) but answers 500, so the list finds what the client never saw', async () => {
    fake.inject('POST /call', { kind: 'status', status: 500, commit: true })
    const body = dialBody()
    const error = await failure(client.calls.create(body))
    expect(error).toBeInstanceOf(Vapi.InternalServerError)
    const found = await client.calls.list({ createdAtGe: START.toISOString(), assistantId: 'asst_test_coach' })
    expect(found.map((call) => call.name)).toEqual([body.name])
    await fake.settled()
    expect(receivedTypes().at(-1)).toBe('end-of-call-report')
    expect(receiver.received.every(({ message }) => (message.call as { id: string }).id === found[0]!.id)).toBe(true)
  })

  it('commit with a dropped connection: a network error for the client, a call at Vapi', async () => {
    fake.inject('POST /call', { kind: 'drop', commit: true })
    const error = await failure(dial())
    expect(error.statusCode).toBeUndefined()
    expect(fake.calls.list()).toHaveLength(1)
  })

  it('commit with a hang: the client gives up, the call exists', async () => {
    fake.inject('POST /call', { kind: 'hang', commit: true })
    const controller = new AbortController()
    const created = fake.calls.nextCreated()
    const attempt = failure(client.calls.create(dialBody(), { abortSignal: controller.signal }))
    const call = await created
    controller.abort()
    expect((await attempt).statusCode).toBeUndefined()
    expect(fake.calls.list().map((c) => c.id)).toEqual([call.id])
  })
})

describe('the webhook emitter', () => {
  it('plays the answered scenario to the call’s server URL with X-Vapi-Secret', async () => {
    fake.calls.setWebhookAuth({ mode: 'secret', secret: 'shh' })
    const call = await dial()
    await fake.settled()
    expect(receivedTypes()).toEqual(['status-update:queued', 'status-update:ringing', 'status-update:in-progress', 'status-update:ended', 'end-of-call-report'])
    expect(receiver.received.every(({ headers }) => headers['x-vapi-secret'] === 'shh')).toBe(true)
    expect(fake.calls.messages(call.id)).toEqual(receiver.received.map(({ message }) => message))

    const ended = receiver.received[3]!.message
    expect(ended).toMatchObject({ endedReason: 'customer-ended-call', call: { id: call.id, status: 'ended', assistantOverrides: { metadata: { callId: 'our-call-1' } } } })
    const report = receiver.received[4]!.message as unknown as Vapi.ServerMessageEndOfCallReport & { durationSeconds: number; durationMs: number }
    expect(report).toMatchObject({
      endedReason: 'customer-ended-call',
      startedAt: new Date(START.getTime() + 6000).toISOString(),
      endedAt: new Date(START.getTime() + 156_000).toISOString(),
      durationSeconds: 150,
      durationMs: 150_000,
      cost: 0.3,
      timestamp: START.getTime() + 160_000,
      analysis: { summary: 'Dana talked about Fitness, Finance, Friends and committed to one step before the next call.' },
    })
    const outputs = Object.values(report.artifact.structuredOutputs ?? {}) as Array<{ name: string; result: Record<string, unknown> }>
    expect(outputs.find((output) => output.name === 'coaching_call_report')?.result).toEqual({
      areasDiscussed: ['fitness', 'finance', 'friends'],
      summary: 'Dana talked about Fitness, Finance, Friends and committed to one step before the next call.',
      mood: 7,
      energy: 6,
      commitments: ['Take one small step on Fitness today'],
      commitmentsReviewed: [],
    })
    expect(report.artifact.transcript).toContain('User: Take one small step on Fitness today')
    // A sweep that GETs the call sees what the report said.
    const record = await getCall(call.id)
    expect(record).toMatchObject({ status: 'ended', endedReason: 'customer-ended-call', analysis: report.analysis, artifact: report.artifact, cost: 0.3 })
  })

  it.each(['seconds', 'ms'] as const)('signs with HMAC-SHA256 over `${timestamp}.${rawBody}` (timestamp in %s)', async (unit) => {
    clock.set(new Date('2026-11-21T12:34:56.789Z'))
    fake.calls.setWebhookAuth({ mode: 'hmac', secretKey: 'hmac-secret', timestampUnit: unit })
    await dial()
    await fake.settled()
    expect(receiver.received.length).toBe(5)
    for (const { headers, raw } of receiver.received) {
      const timestamp = String(headers['x-timestamp'])
      expect(timestamp).toBe(unit === 'seconds' ? '1795264496' : '1795264496789')
      expect(headers['x-signature']).toBe(createHmac('sha256', 'hmac-secret').update(`${timestamp}.${raw}`).digest('hex'))
    }
  })

  it('sends Authorization: Bearer, the static server.headers, and a credential resolved from credentialId', async () => {
    fake.calls.setWebhookAuth({ mode: 'bearer', token: 'tok-1' })
    await dial({}, { server: { url: receiver.url, headers: { 'x-extra': 'static' } } })
    await fake.settled()
    expect(receiver.received[0]!.headers).toMatchObject({ authorization: 'Bearer tok-1', 'x-extra': 'static' })

    // A credential of the account (as vapi:setup creates it): its header, as Vapi sends it.
    receiver.clear()
    const secret = 'from-credential-0123456789abcdef0123'
    const bearer = await createWebhookCredential(fake, secret)
    await dial({}, { server: { url: receiver.url, credentialId: bearer } })
    await fake.settled()
    expect(receiver.received[0]!.headers['x-vapi-secret']).toBe(secret)
    expect(receiver.received[0]!.headers.authorization).toBeUndefined()
    // An HMAC credential signs each delivery with its key.
    receiver.clear()
    const hmac = await createWebhookCredential(fake, secret, 'hmac')
    await dial({}, { server: { url: receiver.url, credentialId: hmac } })
    await fake.settled()
    for (const { headers, raw } of receiver.received) {
      expect(headers['x-signature']).toBe(createHmac('sha256', secret).update(`${String(headers['x-timestamp'])}.${raw}`).digest('hex'))
    }
    // A credential the account does not have: 400, and no call.
    const before = fake.calls.list().length
    const refused = await failure(dial({}, { server: { url: receiver.url, credentialId: 'cred_nowhere' } }))
    expect(refused.statusCode).toBe(400)
    expect(refused.body).toMatchObject({ message: ['assistantOverrides.server.credentialId cred_nowhere does not exist'] })
    expect(fake.calls.list()).toHaveLength(before)
  })

  it('sends the default server messages when the call sets none, and only final transcripts on request', async () => {
    await dial({}, { serverMessages: undefined })
    await fake.settled()
    const types = new Set(receiver.received.map(({ message }) => message.type))
    expect([...types].sort()).toEqual(['conversation-update', 'end-of-call-report', 'speech-update', 'status-update'])

    receiver.clear()
    await dial({}, { serverMessages: ['status-update', 'transcript[transcriptType="final"]'] })
    await fake.settled()
    const transcripts = receiver.received.filter(({ message }) => message.type === 'transcript')
    expect(transcripts).toHaveLength(5)
    expect(transcripts.every(({ message }) => message.transcriptType === 'final')).toBe(true)
    expect(transcripts.map(({ message }) => message.role)).toEqual(['assistant', 'user', 'assistant', 'user', 'assistant'])
  })

  it('uses the fake’s default URL when the call names no server', async () => {
    await dial({}, { server: undefined })
    await fake.settled()
    expect(receiver.received).toHaveLength(5)
  })

  it.each([
    ['no-answer', 'customer-did-not-answer', ['status-update:queued', 'status-update:ringing', 'status-update:ended', 'end-of-call-report']],
    ['busy', 'customer-busy', ['status-update:queued', 'status-update:ringing', 'status-update:ended', 'end-of-call-report']],
    ['voicemail', 'voicemail', ['status-update:queued', 'status-update:ringing', 'status-update:in-progress', 'status-update:ended', 'end-of-call-report']],
    ['start-error', 'call.start.error-subscription-concurrency-limit-reached', ['status-update:ended']],
  ] as const)('plays %s for the number it is set on', async (scenario, endedReason, types) => {
    fake.calls.setScenario('+12025230099', scenario)
    const call = await dial({ customer: { number: '+12025230099' } })
    await fake.settled()
    expect(receivedTypes()).toEqual(types)
    expect(receiver.received.find(({ message }) => message.status === 'ended')?.message.endedReason).toBe(endedReason)
    const record = await getCall(call.id)
    expect(record).toMatchObject({ status: 'ended', endedReason })
    expect(record.analysis?.summary).toBeUndefined()
    expect(record.artifact?.structuredOutputs).toBeUndefined()
  })

  it('leaves a stuck call in progress forever', async () => {
    fake.calls.setScenario(NUMBER, 'stuck')
    const call = await dial()
    await fake.settled()
    expect(receivedTypes()).toEqual(['status-update:queued', 'status-update:ringing', 'status-update:in-progress'])
    expect(await fake.advance()).toBeUndefined()
    expect((await getCall(call.id)).status).toBe('in-progress')
  })

  it('leaves the voicemail message as the only utterance', async () => {
    fake.calls.setScenario(NUMBER, 'voicemail')
    const call = await dial({}, { voicemailMessage: 'Hi Dana, your coach here. Talk tomorrow!' })
    await fake.settled()
    const record = await getCall(call.id)
    expect(record.artifact?.transcript).toBe('AI: Hi Dana, your coach here. Talk tomorrow!')
  })

  it('takes the structured output, summary and ended reason set for a number', async () => {
    fake.calls.setScenario(NUMBER, { name: 'answered', endedReason: 'assistant-ended-call', result: { areasDiscussed: ['faith'], mood: 3 }, summary: 'Short.' })
    const call = await dial()
    await fake.settled()
    const record = await getCall(call.id)
    expect(record.endedReason).toBe('assistant-ended-call')
    expect(record.analysis).toEqual({ summary: 'Short.' })
    expect(Object.values(record.artifact?.structuredOutputs ?? {})[0]?.result).toMatchObject({ areasDiscussed: ['faith'], mood: 3, energy: 6 })
  })

  it('duplicates every delivery N times', async () => {
    fake.calls.configureWebhooks({ duplicates: 2 })
    await dial()
    await fake.settled()
    expect(receivedTypes()).toEqual(
      ['status-update:queued', 'status-update:ringing', 'status-update:in-progress', 'status-update:ended', 'end-of-call-report'].flatMap((type) => [type, type, type]),
    )
    expect(fake.calls.emitter.deliveries.map((delivery) => delivery.copy)).toEqual([0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2])
    const reports = receiver.received.filter(({ message }) => message.type === 'end-of-call-report')
    expect(new Set(reports.map(({ raw }) => raw)).size).toBe(1)
  })

  it('reverses a call’s stream (the report before the statuses), with the record already final', async () => {
    fake.calls.configureWebhooks({ order: 'reverse' })
    await dial()
    await fake.settled()
    expect(receivedTypes()).toEqual(['end-of-call-report', 'status-update:ended', 'status-update:in-progress', 'status-update:ringing', 'status-update:queued'])
  })

  it('shuffles and drops deterministically for a seed', async () => {
    const run = async (settings: Parameters<typeof fake.calls.configureWebhooks>[0]) => {
      fake.reset()
      receiver.clear()
      fake.calls.configureWebhooks(settings)
      await dial()
      await fake.settled()
      return {
        received: receivedTypes(),
        dropped: fake.calls.emitter.deliveries.filter((delivery) => delivery.outcome === 'dropped').map((delivery) => `${delivery.type}:${delivery.status ?? ''}`),
      }
    }
    const timeline = ['status-update:queued', 'status-update:ringing', 'status-update:in-progress', 'status-update:ended', 'end-of-call-report']
    const shuffled = await run({ order: 'shuffle', seed: 7 })
    expect(shuffled.received).not.toEqual(timeline)
    expect([...shuffled.received].sort()).toEqual([...timeline].sort())
    expect(await run({ order: 'shuffle', seed: 7 })).toEqual(shuffled)

    const dropped = await run({ dropRate: 0.5, seed: 3 })
    expect(dropped.dropped.length).toBeGreaterThan(0)
    expect(dropped.received.length + dropped.dropped.length).toBe(5)
    expect(await run({ dropRate: 0.5, seed: 3 })).toEqual(dropped)
  })

  it('drops chosen types, while GET still shows the final state', async () => {
    fake.calls.configureWebhooks({ dropTypes: ['end-of-call-report', 'status-update:ended'] })
    const call = await dial()
    await fake.settled()
    expect(receivedTypes()).toEqual(['status-update:queued', 'status-update:ringing', 'status-update:in-progress'])
    const record = await getCall(call.id)
    expect(record).toMatchObject({ status: 'ended', endedReason: 'customer-ended-call', analysis: { summary: expect.any(String) } })
    expect(Object.keys(record.artifact?.structuredOutputs ?? {})).toHaveLength(1)
  })

  it('records failed and slow deliveries, and retries per server.backoffPlan', async () => {
    fake.calls.configureWebhooks({ timeoutMs: 50 })
    receiver.respondWith((message) => (message.status === 'ringing' ? 500 : message.status === 'in-progress' ? 'hold' : 200))
    const call = await dial()
    await fake.settled()
    const outcomes = fake.calls.emitter.deliveries.map((delivery) => [delivery.status ?? delivery.type, delivery.outcome, delivery.httpStatus])
    expect(outcomes).toEqual([
      ['queued', 'delivered', 200],
      ['ringing', 'failed', 500],
      ['in-progress', 'timeout', undefined],
      ['ended', 'delivered', 200],
      ['end-of-call-report', 'delivered', 200],
    ])
    expect(fake.calls.emitter.deliveries.every((delivery) => delivery.callId === call.id && typeof delivery.latencyMs === 'number')).toBe(true)

    fake.reset()
    receiver.clear()
    let failures = 2
    receiver.respondWith((message) => (message.type === 'end-of-call-report' && failures-- > 0 ? 503 : 200))
    await dial({}, { server: { url: receiver.url, backoffPlan: { type: 'fixed', maxRetries: 3, baseDelaySeconds: 1 } } })
    await fake.settled()
    const reports = fake.calls.emitter.deliveries.filter((delivery) => delivery.type === 'end-of-call-report')
    expect(reports.map((delivery) => [delivery.attempt, delivery.outcome])).toEqual([
      [1, 'failed'],
      [2, 'failed'],
      [3, 'delivered'],
    ])
  })
})

describe('the /__fake control API (for another process)', () => {
  const control = async (method: 'GET' | 'POST', path: string, body?: unknown) => {
    const response = await fetch(`${fake.url}/__fake/${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    expect(response.status, path).toBe(200)
    return (await response.json()) as Record<string, unknown>
  }

  it('sets scenarios, auth, knobs and pacing; reads calls and deliveries; plays; resets', async () => {
    await control('POST', 'scenarios', { scenarios: { '+12025230077': 'busy' } })
    await control('POST', 'webhooks/auth', { mode: 'secret', secret: 'over-http' })
    await control('POST', 'webhooks', { pacing: 'manual', duplicates: 1 })
    await control('POST', 'faults', { route: 'POST /call', sequence: [503, 201] })

    expect((await failure(dial())).statusCode).toBe(503)
    const call = await dial({ customer: { number: '+12025230077' } })
    expect(await control('POST', 'advance')).toEqual({ step: { callId: call.id, label: 'status-update:queued', at: START.toISOString() } })
    expect(((await control('GET', `calls/${call.id}`)) as { status: string }).status).toBe('queued')
    await control('POST', `calls/${call.id}/play`)
    await control('POST', 'settled')

    const { calls } = (await control('GET', 'calls')) as { calls: Array<FakeCall & { deleted: boolean }> }
    expect(calls.map((c) => [c.id, c.status, c.endedReason, c.deleted])).toEqual([[call.id, 'ended', 'customer-busy', false]])
    const { deliveries } = (await control('GET', `deliveries?callId=${call.id}`)) as { deliveries: Array<{ type: string; copy: number; headers: Record<string, string> }> }
    expect(deliveries).toHaveLength(8)
    expect(deliveries.every((delivery) => delivery.headers['X-Vapi-Secret'] === 'over-http')).toBe(true)

    const refused = await fetch(`${fake.url}/__fake/scenarios`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ default: 'ghost' }) })
    expect(refused.status).toBe(400)

    await control('POST', 'reset')
    expect(await control('GET', 'calls')).toEqual({ calls: [] })
    expect(await control('GET', 'deliveries')).toEqual({ deliveries: [] })
    expect(fake.calls.pacing).toBe('auto')
    expect(fake.calls.scenarioFor('+12025230077')).toEqual({ name: 'answered' })
  })
})
