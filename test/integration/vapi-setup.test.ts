import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { VapiClient } from '@vapi-ai/server-sdk'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { LIFE_AREAS } from '#common/domain'
import { MEMORY_SUBJECTS } from '#common/memory'
import {
  CALL_REPORT_OUTPUT,
  COACH_ASSISTANT_NAME,
  COACH_FIRST_MESSAGE,
  COACH_PROMPT,
  COACH_VOICEMAIL_MESSAGE,
  DEFAULT_MAX_DURATION_SECONDS,
} from '#server/services/calls'
import { credentialName, report, setupVapi, type VapiSetupOptions } from '../../scripts/vapi-setup'
import { FakeVapi } from '../fakes/vapi'
import { vapiResources, type FakeVapiResources } from '../fakes/vapi-resources'

const execFileAsync = promisify(execFile)
const SECRET = 'a-long-random-webhook-secret-0123456789abcdef'
const options: VapiSetupOptions = { appUrl: 'https://coach.example.com', webhookSecret: SECRET, webhookAuth: 'secret' }

let fake: FakeVapi
let resources: FakeVapiResources
let client: VapiClient

/** The requests that could change the account (everything but GET). */
const writes = () => fake.requests.filter((request) => request.method !== 'GET').map((request) => ({ method: request.method, path: request.path, body: request.body }))

beforeAll(async () => {
  fake = await FakeVapi.start()
  resources = vapiResources(fake.app)
  client = new VapiClient({ token: fake.apiKey, baseUrl: fake.url, maxRetries: 0 })
})

beforeEach(() => {
  fake.reset()
  resources.clear()
})

afterEach(() => {
  // Every request the script made carried the private key: the fake answers 401 otherwise.
  expect(fake.requests.every((request) => request.headers.authorization === `Bearer ${fake.apiKey}`)).toBe(true)
})

afterAll(async () => {
  await fake?.close()
})

describe('npm run vapi:setup', () => {
  it('creates the call report, the webhook credential and the coaching assistant; a second run changes nothing', async () => {
    const phone = resources.addPhoneNumber('+12025001111', 'Coaching line')
    const first = await setupVapi(client, options)
    expect(first.structuredOutput).toMatchObject({ created: true, updated: false })
    expect(first.credential).toMatchObject({ created: true, updated: false, name: credentialName('secret', SECRET), unused: [] })
    expect(first.assistant).toMatchObject({ created: true, updated: false })
    expect(first.phoneNumbers).toEqual([{ id: phone.id, number: '+12025001111', name: 'Coaching line' }])
    expect(first.webhookUrl).toBe('https://coach.example.com/api/webhooks/vapi')
    expect([resources.structuredOutputs.size, resources.credentials.size, resources.assistants.size]).toEqual([1, 1, 1])

    const output = resources.structuredOutputs.get(first.structuredOutput.id)!
    expect(output).toMatchObject({ name: CALL_REPORT_OUTPUT, type: 'ai', schema: { type: 'object' } })
    const properties = (output.schema as { properties: Record<string, Record<string, unknown>> }).properties
    expect(Object.keys(properties)).toEqual(['areasDiscussed', 'summary', 'mood', 'energy', 'commitments', 'commitmentsReviewed', 'factsLearned', 'factsChanged'])
    // What the coach's memory keeps (docs/decisions/083): each fact with its subject and whether the person said it.
    expect(properties.factsLearned!.items).toMatchObject({ type: 'object', required: ['statement', 'subject', 'stated'], properties: { subject: { type: 'string', enum: [...MEMORY_SUBJECTS] } } })
    expect(properties.factsChanged!.items).toMatchObject({ type: 'object', required: ['previous', 'statement', 'subject', 'stated'] })
    expect(properties.areasDiscussed!.items).toEqual({ type: 'string', enum: [...LIFE_AREAS] })
    // The next call's review of the open commitments it was given: by number and words, kept or missed.
    expect(properties.commitmentsReviewed!.items).toMatchObject({ type: 'object', required: ['commitment', 'outcome'], properties: { outcome: { type: 'string', enum: ['kept', 'missed'] } } })

    // Vapi sends `X-Vapi-Secret: <secret>`: a bearer credential with that header and no prefix.
    expect(resources.credentials.get(first.credential.id)).toMatchObject({
      provider: 'webhook',
      name: credentialName('secret', SECRET),
      authenticationPlan: { type: 'bearer', token: SECRET, headerName: 'X-Vapi-Secret', bearerPrefixEnabled: false },
    })

    const assistant = resources.assistants.get(first.assistant.id)!
    expect(assistant).toMatchObject({
      name: COACH_ASSISTANT_NAME,
      firstMessage: COACH_FIRST_MESSAGE,
      firstMessageMode: 'assistant-speaks-first',
      voicemailDetection: { provider: 'vapi' },
      voicemailMessage: COACH_VOICEMAIL_MESSAGE,
      maxDurationSeconds: DEFAULT_MAX_DURATION_SECONDS,
      artifactPlan: { structuredOutputIds: [first.structuredOutput.id] },
      model: { provider: 'openai', messages: [{ role: 'system', content: COACH_PROMPT }], tools: [{ type: 'endCall' }] },
    })
    expect(assistant.server).toEqual({ url: 'https://coach.example.com/api/webhooks/vapi', credentialId: first.credential.id, timeoutSeconds: 20 })
    expect(assistant.serverMessages).toEqual(['status-update', 'transcript[transcriptType="final"]', 'end-of-call-report'])

    const writesBefore = writes().length
    const again = await setupVapi(client, options)
    expect(writes()).toHaveLength(writesBefore)
    expect(again.structuredOutput).toEqual({ id: first.structuredOutput.id, created: false, updated: false })
    expect(again.credential).toMatchObject({ id: first.credential.id, created: false, updated: false })
    expect(again.assistant).toEqual({ id: first.assistant.id, created: false, updated: false, changed: [] })
    expect([resources.structuredOutputs.size, resources.credentials.size, resources.assistants.size]).toEqual([1, 1, 1])
  })

  it('writes back only what differs: an older prompt, extra server messages, a changed schema', async () => {
    const first = await setupVapi(client, options)
    const assistant = resources.assistants.get(first.assistant.id)!
    assistant.model = { provider: 'openai', model: 'gpt-4.1', messages: [{ role: 'system', content: 'An older prompt.' }] }
    assistant.serverMessages = ['status-update', 'end-of-call-report', 'conversation-update']
    const output = resources.structuredOutputs.get(first.structuredOutput.id)!
    const schema = output.schema as { properties: Record<string, unknown> }
    output.schema = { ...schema, properties: { ...schema.properties, extra: { type: 'string' } } }
    fake.reset()

    const fixed = await setupVapi(client, options)
    expect(fixed.assistant).toEqual({ id: first.assistant.id, created: false, updated: true, changed: ['model', 'serverMessages'] })
    expect(fixed.structuredOutput).toEqual({ id: first.structuredOutput.id, created: false, updated: true })
    expect(writes().map((write) => `${write.method} ${write.path}`)).toEqual([
      `PATCH /structured-output/${first.structuredOutput.id}`,
      `PATCH /assistant/${first.assistant.id}`,
    ])
    expect(Object.keys(writes()[1]!.body as object)).toEqual(['model', 'serverMessages'])
    expect(resources.assistants.get(first.assistant.id)).toMatchObject({
      model: { messages: [{ role: 'system', content: COACH_PROMPT }] },
      serverMessages: ['status-update', 'transcript[transcriptType="final"]', 'end-of-call-report'],
    })
    expect(Object.keys((resources.structuredOutputs.get(first.structuredOutput.id)!.schema as { properties: object }).properties)).not.toContain('extra')

    fake.reset()
    const settled = await setupVapi(client, options)
    expect(writes()).toEqual([])
    expect(settled.assistant.updated).toBe(false)
  })

  it('switches to an HMAC credential (or a new secret) by name, points the assistant at it and reports the old one', async () => {
    const first = await setupVapi(client, options)
    const hmac = await setupVapi(client, { ...options, webhookAuth: 'hmac' })
    expect(hmac.credential).toMatchObject({ created: true, name: credentialName('hmac', SECRET), unused: [{ id: first.credential.id, name: credentialName('secret', SECRET) }] })
    expect(resources.credentials.get(hmac.credential.id)!.authenticationPlan).toEqual({
      type: 'hmac',
      secretKey: SECRET,
      algorithm: 'sha256',
      signatureHeader: 'x-signature',
      timestampHeader: 'x-timestamp',
      includeTimestamp: true,
      payloadFormat: '{timestamp}.{body}',
      signatureEncoding: 'hex',
    })
    expect(hmac.assistant).toMatchObject({ id: first.assistant.id, updated: true, changed: ['server'] })
    expect((resources.assistants.get(first.assistant.id)!.server as { credentialId: string }).credentialId).toBe(hmac.credential.id)

    const rotated = await setupVapi(client, { ...options, webhookAuth: 'hmac', webhookSecret: `${SECRET}-rotated` })
    expect(rotated.credential.created).toBe(true)
    expect(rotated.credential.unused.map((credential) => credential.id).sort()).toEqual([first.credential.id, hmac.credential.id].sort())
    expect(resources.credentials.size).toBe(3)
    expect(report(rotated, options).join('\n')).toContain('No longer used')
  })

  it('keeps the assistant named in VAPI_ASSISTANT_ID when several carry the name, and never touches another assistant', async () => {
    const first = await setupVapi(client, options)
    const chat = await client.assistants.create({ name: 'Chat coach made by hand', firstMessage: 'Hello' })
    const twin = await client.assistants.create({ name: COACH_ASSISTANT_NAME, firstMessage: 'A copy' })
    fake.reset()
    const preferred = await setupVapi(client, { ...options, assistantId: twin.id })
    expect(preferred.assistant).toMatchObject({ id: twin.id, updated: true })
    expect(writes().filter((write) => write.path.startsWith('/assistant')).map((write) => write.path)).toEqual([`/assistant/${twin.id}`])
    expect(resources.assistants.get(chat.id)).toMatchObject({ name: 'Chat coach made by hand', firstMessage: 'Hello' })

    const oldest = await setupVapi(client, options)
    expect(oldest.assistant.id).toBe(first.assistant.id)
  })

  it('refuses what Vapi refuses: the removed inline server secret, an unknown structured output', async () => {
    const refusal = await fake.app.inject({
      method: 'POST',
      url: '/assistant',
      headers: { authorization: `Bearer ${fake.apiKey}` },
      payload: { name: 'x', server: { url: 'https://coach.example.com/api/webhooks/vapi', secret: 's' }, artifactPlan: { structuredOutputIds: ['nope'] } },
    })
    expect(refusal.statusCode).toBe(400)
    expect(refusal.json()).toEqual({
      message: ['property server.secret should not exist', 'artifactPlan.structuredOutputIds: structured output nope does not exist'],
      error: 'Bad Request',
      statusCode: 400,
    })
    const unauthenticated = await fake.app.inject({ method: 'GET', url: '/assistant' })
    expect(unauthenticated.statusCode).toBe(401)
    fake.reset()
  })

  it('tells the operator which ids to set, how to get a phone number, and when Vapi cannot reach APP_URL', async () => {
    const none = await setupVapi(client, { ...options, appUrl: 'http://localhost:3000' })
    const noneText = report(none, { ...options, appUrl: 'http://localhost:3000' }).join('\n')
    expect(noneText).toContain(`VAPI_ASSISTANT_ID=${none.assistant.id}`)
    expect(noneText).toMatch(/VAPI_PHONE_NUMBER_ID: the account has no phone number yet\. Import one in the Vapi dashboard/)
    expect(noneText).toContain('Warning: Vapi cannot reach localhost')

    const a = resources.addPhoneNumber('+12025001111')
    const b = resources.addPhoneNumber('+12025002222')
    const several = report(await setupVapi(client, options), options).join('\n')
    expect(several).toContain('the account has several numbers')
    expect(several).toContain(`${a.id}  +12025001111`)
    expect(several).toContain(`${b.id}  +12025002222`)
    expect(several).not.toContain('Warning')
    const chosen = report(await setupVapi(client, options), { ...options, phoneNumberId: b.id }).join('\n')
    expect(chosen).toContain(`VAPI_PHONE_NUMBER_ID=${b.id}   (already set: +12025002222)`)
  })

  const run = (env: Record<string, string>) =>
    execFileAsync(process.execPath, ['--import', 'tsx', 'scripts/vapi-setup.ts'], {
      env: { ...process.env, APP_URL: 'https://coach.example.com', VAPI_API_KEY: fake.apiKey, VAPI_API_URL: fake.url, VAPI_WEBHOOK_SECRET: SECRET, ...env },
    })

  it('runs as a command: prints the ids to put in the environment', async () => {
    const phone = resources.addPhoneNumber('+12025003333')
    const { stdout } = await run({})
    const assistant = [...resources.assistants.values()][0]!
    expect(stdout).toContain(`Assistant "${COACH_ASSISTANT_NAME}": created ${assistant.id}`)
    expect(stdout).toContain(`VAPI_ASSISTANT_ID=${assistant.id}`)
    expect(stdout).toContain(`VAPI_PHONE_NUMBER_ID=${phone.id}   (+12025003333)`)
    expect(stdout).toContain('VAPI_WEBHOOK_AUTH=secret')
    expect(stdout).toContain('Webhook: https://coach.example.com/api/webhooks/vapi')
    expect(stdout).not.toContain(SECRET)

    const again = await run({ VAPI_ASSISTANT_ID: assistant.id, VAPI_PHONE_NUMBER_ID: phone.id })
    expect(again.stdout).toContain(`Assistant "${COACH_ASSISTANT_NAME}": ${assistant.id} (already set up)`)
    expect(resources.assistants.size).toBe(1)

    await expect(run({ VAPI_API_KEY: 'wrong-key' })).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('vapi:setup failed (HTTP 401)') })
    fake.reset()
  })

  it('refuses to run without a webhook secret, or with one shorter than 32 characters', async () => {
    await expect(run({ VAPI_WEBHOOK_SECRET: '' })).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('VAPI_WEBHOOK_SECRET is not set') })
    await expect(run({ VAPI_WEBHOOK_SECRET: 'too-short-a-secret' })).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('VAPI_WEBHOOK_SECRET must be at least 32 characters') })
    expect(resources.credentials.size).toBe(0)
  })
})
