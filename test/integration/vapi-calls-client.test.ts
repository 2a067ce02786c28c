import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { VapiCallsClient, type DialRequest } from '#server/integrations/vapi-calls'
import { createVapiApi, type VapiApi } from '#server/integrations/vapi-client'
import { credentialName } from '#server/services/calls'
import { FakeVapi } from '../fakes/vapi'
import { vapiResources } from '../fakes/vapi-resources'
import { fakeClock } from '../helpers/clock'
import { createWebhookCredential } from '../helpers/vapi-credential'

/**
 * The app's client of Vapi's calls (server/integrations/vapi-calls.ts): the official SDK over the
 * one Vapi client's connection pool and light fetch (vapi-client.ts), against the Vapi fake. Every
 * kind of answer must sort into what the dialler acts on: placed, refused (retryable or not), or
 * unknown (reconcile).
 */

const START = new Date('2026-11-21T12:00:00.000Z')
const SECRET = 'calls-client-webhook-secret-0123456789abcdef'
let fake: FakeVapi
let api: VapiApi
let client: VapiCallsClient
let credentialId: string

beforeAll(async () => {
  fake = await FakeVapi.start({ clock: fakeClock(START), pacing: 'manual' })
  api = createVapiApi({ apiKey: fake.apiKey, apiUrl: fake.url })
  client = new VapiCallsClient(api, { assistantId: 'asst_client', phoneNumberIds: ['pn_client'] })
  credentialId = await createWebhookCredential(fake, SECRET)
})

afterAll(async () => {
  await api?.close()
  await fake?.close()
})

beforeEach(() => fake.reset())

const dial = (callId = randomUUID()): DialRequest => ({
  callId,
  phoneNumberId: 'pn_client',
  customerNumber: '+12025001234',
  customerName: 'Dana',
  variableValues: { firstName: 'Dana', goalsSummary: 'Run a 5k' },
  maxDurationSeconds: 300,
  metadata: { callId, userId: randomUUID(), slot: 'daily', localDate: '2026-11-21', attempt: 0 },
  server: { url: 'http://127.0.0.1:9/api/webhooks/vapi', credentialId },
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

  it("names the webhook's credential by id, and finds that id by the credential's name (the oldest of that name; null when there is none)", async () => {
    const request = dial()
    await client.dial(request)
    expect((fake.requestsTo('POST', '/call')[0]!.body as { assistantOverrides: { server: unknown } }).assistantOverrides.server).toEqual({ url: 'http://127.0.0.1:9/api/webhooks/vapi', credentialId, timeoutSeconds: 20 })
    expect(await client.findWebhookCredential(credentialName('secret', SECRET))).toBe(credentialId)
    // Another secret's, or the other mode's, is not it.
    await createWebhookCredential(fake, `${SECRET}-rotated`)
    await createWebhookCredential(fake, SECRET, 'hmac')
    expect(await client.findWebhookCredential(credentialName('secret', SECRET))).toBe(credentialId)
    expect(await client.findWebhookCredential(credentialName('secret', 'never-set-up-0123456789abcdef0123'))).toBeNull()
    // Vapi refusing to answer is an error, not "none".
    const refusedApi = createVapiApi({ apiKey: 'not-the-key', apiUrl: fake.url })
    const refused = new VapiCallsClient(refusedApi, { assistantId: 'asst_client' })
    await expect(refused.findWebhookCredential(credentialName('secret', SECRET))).rejects.toThrow()
    await refusedApi.close()
    expect(vapiResources(fake.app).credentials.size).toBe(3)
  })

  it('asks once per dial: the SDK never repeats a POST /call', async () => {
    fake.inject('POST /call', { kind: 'status', status: 500 })
    await client.dial(dial())
    expect(fake.requestsTo('POST', '/call')).toHaveLength(1)
  })
})
