import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { VapiCallsClient, type DialRequest } from '#server/integrations/vapi-calls'
import { FakeVapi } from '../fakes/vapi'
import { fakeClock } from '../helpers/clock'

/**
 * The app's client of Vapi's calls (server/integrations/vapi-calls.ts): the official SDK over its
 * own connection pool and light fetch, against the Vapi fake. Every kind of answer must sort into
 * what the dialler acts on: placed, refused (retryable or not), or unknown (reconcile).
 */

const START = new Date('2026-11-21T12:00:00.000Z')
let fake: FakeVapi
let client: VapiCallsClient

beforeAll(async () => {
  fake = await FakeVapi.start({ clock: fakeClock(START), pacing: 'manual' })
  client = new VapiCallsClient({ apiKey: fake.apiKey, assistantId: 'asst_client', phoneNumberId: 'pn_client', apiUrl: fake.url })
})

afterAll(async () => {
  await client?.close()
  await fake?.close()
})

beforeEach(() => fake.reset())

const dial = (callId = randomUUID()): DialRequest => ({
  callId,
  customerNumber: '+12025001234',
  customerName: 'Dana',
  variableValues: { firstName: 'Dana', goalsSummary: 'Run a 5k' },
  maxDurationSeconds: 300,
  metadata: { callId, userId: randomUUID(), slot: 'daily', localDate: '2026-11-21', attempt: 0 },
  server: { url: 'http://127.0.0.1:9/api/webhooks/vapi', headers: { 'X-Vapi-Secret': 'secret' } },
  serverMessages: ['status-update', 'end-of-call-report'],
})

describe('the Vapi calls client', () => {
  it('places a call once, with our name and metadata, and reads it back', async () => {
    const request = dial()
    const outcome = await client.dial(request)
    expect(outcome).toMatchObject({ kind: 'placed', status: 'queued' })
    const [call] = fake.calls.list()
    expect(call).toMatchObject({ name: `mc ${request.callId}`, assistantId: 'asst_client', phoneNumberId: 'pn_client' })
    expect(call!.assistantOverrides?.metadata).toMatchObject({ callId: request.callId })
    expect(fake.requestsTo('POST', '/call')[0]!.headers.authorization).toBe(`Bearer ${fake.apiKey}`)
    const found = await client.findPlaced(request.callId, new Date(START.getTime() - 60_000), new Date(START.getTime() + 60_000))
    expect(found?.id).toBe(outcome.kind === 'placed' ? outcome.vapiCallId : '')
  })

  it('sorts refusals: 429 waits (with Retry-After), 400 does not', async () => {
    fake.inject('POST /call', { kind: 'status', status: 429, retryAfterSeconds: 7 })
    expect(await client.dial(dial())).toMatchObject({ kind: 'refused', status: 429, retryable: true, retryAfterMs: 7000 })
    fake.inject('POST /call', { kind: 'status', status: 400, body: { message: ['assistantId must be a UUID'], error: 'Bad Request', statusCode: 400 } })
    expect(await client.dial(dial())).toMatchObject({ kind: 'refused', status: 400, retryable: false, message: 'assistantId must be a UUID' })
    expect(fake.calls.list()).toHaveLength(0)
  })

  it('calls a 5xx or a dropped connection unknown, and the list finds a call that was made all the same', async () => {
    fake.inject('POST /call', { kind: 'status', status: 503, commit: true })
    const first = dial()
    expect(await client.dial(first)).toMatchObject({ kind: 'unknown', status: 503 })
    fake.inject('POST /call', { kind: 'drop', commit: true })
    const second = dial()
    expect(await client.dial(second)).toMatchObject({ kind: 'unknown', status: undefined })
    const window = [new Date(START.getTime() - 60_000), new Date(START.getTime() + 60_000)] as const
    expect((await client.findPlaced(first.callId, ...window))?.name).toBe(`mc ${first.callId}`)
    expect((await client.findPlaced(second.callId, ...window))?.name).toBe(`mc ${second.callId}`)
    expect(await client.findPlaced(randomUUID(), ...window)).toBeNull()
  })

  it('asks once per dial: the SDK never repeats a POST /call', async () => {
    fake.inject('POST /call', { kind: 'status', status: 500 })
    await client.dial(dial())
    expect(fake.requestsTo('POST', '/call')).toHaveLength(1)
  })
})
