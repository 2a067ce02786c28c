/**
 * The realtime voice gateway (`GET /api/voice`) with the real app listening on a port, the Vapi
 * fake's WebSocket transport behind it, and `ws` clients as the browser. Time is the test clock:
 * the gateway's caps (no audio, the call's length, the heartbeat, the session checks) fire when
 * the test moves it. Every frame a browser gets is checked against the protocol and scanned for
 * the Vapi key and URLs.
 */
import { mkdtempSync } from 'node:fs'
import http from 'node:http'
import net from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { and, asc, eq, isNull } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { AccountUsageResponseSchema } from '#common/usage'
import { VOICE_FRAME_BYTES, VOICE_MAX_BINARY_FRAME_BYTES, VOICE_MAX_TEXT_FRAME_BYTES, type VoiceServerMessage } from '#common/voice'
import { hashPassword } from '#server/auth/password'
import { createSession } from '#server/auth/session'
import { hashSecret } from '#server/auth/tokens'
import { coachingCallEvents, coachingCalls, conversations, emailTokens, sessions, subscribers, usageDays, usageVoiceCalls, users, vapiWebhookEvents } from '#server/db/schema'
import { CALL_VARIABLES, WEB_CALL_FIRST_MESSAGE } from '#server/services/calls'
import { redisSlots } from '#server/lib/slots'
import { redisLocks } from '#server/services/voice'
import { FakeVapi, type TransportStats } from '../fakes/vapi'
import { buildTestApp } from '../helpers/app'
import { fakeClock } from '../helpers/clock'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { freePort, spawnEntry } from '../helpers/process'
import { createTestRedis } from '../helpers/redis'
import { placesHolding } from '../helpers/person-data'
import { manualTimers } from '../helpers/timers'
import { signedInUser, type SignedIn } from '../helpers/users'
import { VoiceClient, type Refusal } from '../helpers/voice-client'
import { createWebhookCredential } from '../helpers/vapi-credential'

const SECRET = 'whsec-voice-gateway-0123456789abcdef0123'

let database: TestDatabase
let fake: FakeVapi
let app: FastifyInstance
let clock: ReturnType<typeof fakeClock>
let timers: ReturnType<typeof manualTimers>
let port: number
let url: string
/** Every browser socket and refused upgrade of the test, scanned after it. */
let clients: VoiceClient[]
let refusals: Refusal[]
let appClosed: boolean
/** The webhook credential `vapi:setup` would have made for SECRET, in the fake's account. */
let credentialId: string

beforeAll(async () => {
  database = await createTestDatabase()
})

afterAll(async () => {
  await database?.destroy()
})

beforeEach(async () => {
  clock = fakeClock(new Date('2026-06-15T14:00:00Z'))
  timers = manualTimers(clock)
  // The fake sends the assistant's frames at once (no wall-clock pacing); its own timers are real.
  fake = await FakeVapi.start({ clock, transport: { frameIntervalMs: 0 } })
  credentialId = await createWebhookCredential(fake, SECRET)
  port = await freePort()
  app = await buildTestApp({
    database,
    clock,
    timers: timers.timers,
    env: {
      APP_URL: `http://127.0.0.1:${port}`,
      VAPI_API_KEY: fake.apiKey,
      VAPI_API_URL: fake.url,
      VAPI_ASSISTANT_ID: 'asst-coach',
      VAPI_WEBHOOK_SECRET: SECRET,
    },
  })
  await app.listen({ port, host: '127.0.0.1' })
  // Time moves by jumps here: the heartbeat (a real browser answers pings in milliseconds) is
  // tested on its own.
  app.services.voice.settings.heartbeatMs = 24 * 3_600_000
  url = `ws://127.0.0.1:${port}/api/voice`
  clients = []
  refusals = []
  appClosed = false
})

afterEach(async () => {
  if (!appClosed) await app.close()
  await fake.close()
  // Nothing of Vapi's reached a browser: not the key, not the fake's address, no call URL.
  const fakeHost = new URL(fake.url).host
  const secrets = [fake.apiKey, fakeHost, '/transport', '/control', 'websocketCallUrl', 'listenUrl', 'controlUrl', 'vapi']
  for (const client of clients) {
    for (const frame of client.frames) {
      const text = frame.kind === 'json' ? frame.raw : frame.data.toString('latin1')
      for (const secret of secrets) expect(text.toLowerCase(), `a frame holds ${secret}`).not.toContain(secret.toLowerCase())
    }
    expect(client.closed?.reason ?? '').not.toMatch(/vapi|127\.0\.0\.1/i)
  }
  for (const refusal of refusals) for (const secret of secrets) expect(refusal.body.toLowerCase()).not.toContain(secret.toLowerCase())
})

// ---- helpers ---------------------------------------------------------------------------------

async function paidUser(plan: 'basic' | 'premium' | 'elite' = 'basic'): Promise<SignedIn> {
  return signedInUser(app, { paid: plan })
}

/** A member whose plan runs (past its free trial, which has a budget of its own), on the test clock. */
async function member(plan: 'basic' | 'premium' | 'elite'): Promise<SignedIn> {
  const who = await signedInUser(app)
  const now = clock.now()
  await database.db
    .insert(subscribers)
    .values({ userId: who.user.id, subscribed: true, tier: plan, status: 'active', source: 'testing', trialEnd: new Date(now.getTime() - 30 * 86_400_000), createdAt: now, updatedAt: now })
  return who
}

async function open(headers: Record<string, string>): Promise<VoiceClient> {
  const client = await VoiceClient.open(url, headers)
  clients.push(client)
  await client.next('hello')
  return client
}

async function refused(headers: Record<string, string>, path = url): Promise<Refusal> {
  const result = await VoiceClient.connect(path, headers)
  if (result instanceof VoiceClient) {
    clients.push(result)
    throw new Error('the upgrade was accepted')
  }
  refusals.push(result)
  // Every refusal closes its connection, and says so: a keep-alive client must not reuse it.
  expect(result.headers.connection).toBe('close')
  return result
}

type RawAnswer = { status: number; headers: Record<string, string>; body: string; closedByServer: Promise<void> }

/** Sends one request on a raw TCP connection, as a keep-alive client would, and reads its answer. */
function rawRequest(lines: string[]): Promise<RawAnswer> {
  const socket = net.connect({ port, host: '127.0.0.1' })
  const closedByServer = new Promise<void>((resolve) => socket.once('end', () => resolve()))
  socket.on('error', () => {})
  return new Promise((resolve, reject) => {
    let received = Buffer.alloc(0)
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk])
      const text = received.toString('latin1')
      const end = text.indexOf('\r\n\r\n')
      if (end < 0) return
      const [statusLine, ...headerLines] = text.slice(0, end).split('\r\n')
      const headers = Object.fromEntries(headerLines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]))
      const length = Number(headers['content-length'] ?? 0)
      if (received.length < end + 4 + length) return
      resolve({ status: Number(statusLine!.split(' ')[1]), headers, body: text.slice(end + 4, end + 4 + length), closedByServer })
    })
    socket.once('close', () => reject(new Error(`the connection closed before an answer: ${received.toString('latin1')}`)))
    socket.write(`${lines.join('\r\n')}\r\n\r\n`)
  })
}

/** Starts a voice call on a client; resolves with Vapi's call id once the browser hears `listening`. */
async function startCall(client: VoiceClient): Promise<string> {
  const connected = fake.transport.connected()
  const from = client.messages.length
  client.send({ type: 'start', v: 1 })
  await client.next('status', (m) => m.status === 'listening', from)
  return connected
}

/** Moves the test clock, firing the gateway's timers that come due. */
function advance(ms: number): void {
  timers.advanceTo(new Date(clock.now().getTime() + ms))
}

/** 20 ms of PCM16 audio: a loud square wave, or silence. */
const audioFrame = (loud: boolean) => {
  const frame = Buffer.alloc(VOICE_FRAME_BYTES)
  if (loud) for (let i = 0; i < frame.length / 2; i++) frame.writeInt16LE(i % 20 < 10 ? 6000 : -6000, i * 2)
  return frame
}

/** The user says something: 300 ms of speech, then 600 ms of silence, in real time on the test clock. */
function speak(client: VoiceClient): void {
  for (let i = 0; i < 15; i++) {
    client.sendRaw(audioFrame(true))
    advance(20)
  }
  for (let i = 0; i < 30; i++) {
    client.sendRaw(audioFrame(false))
    advance(20)
  }
}

/** Runs the webhooks the fake sent and the jobs they enqueued, until nothing is left. */
async function settleWebhooks(): Promise<void> {
  for (let round = 0; round < 50; round++) {
    await fake.settled()
    timers.advanceTo(clock.now())
    await app.jobRunner!.drain()
    const pending = await database.db.select({ id: vapiWebhookEvents.id }).from(vapiWebhookEvents).where(isNull(vapiWebhookEvents.processedAt))
    if (pending.length === 0) return
  }
}

const endCallsReceived = (stats: TransportStats | undefined) => (stats?.received ?? []).filter((entry) => (entry.message as { type?: string }).type === 'end-call')
const endedOf = (client: VoiceClient, from = 0) => client.next('ended', () => true, from)
const errorsOf = (client: VoiceClient) => client.messages.filter((m): m is Extract<VoiceServerMessage, { type: 'error' }> => m.type === 'error')
const callRows = (userId: string) => database.db.select().from(coachingCalls).where(eq(coachingCalls.userId, userId)).orderBy(asc(coachingCalls.callDate))

// ---- refusals --------------------------------------------------------------------------------

describe('GET /api/voice refuses before the upgrade, with the error JSON', () => {
  it('401 without a session, 403 when not paid, 403 from another origin or none', async () => {
    const origin = app.config.appOrigin
    const anonymous = await refused({ origin })
    expect(anonymous.status).toBe(401)
    expect(JSON.parse(anonymous.body)).toEqual({ error: { code: 'UNAUTHENTICATED', message: 'Please log in to continue.' } })
    expect(anonymous.headers['content-type']).toMatch(/^application\/json/)

    const unpaid = await signedInUser(app)
    const notPaid = await refused(unpaid.headers)
    expect(notPaid.status).toBe(403)
    expect(JSON.parse(notPaid.body).error.code).toBe('PAYMENT_REQUIRED')

    const paid = await paidUser()
    for (const headers of [{ ...paid.headers, origin: 'https://evil.example' }, { cookie: paid.cookie }, { ...paid.headers, origin: `http://localhost:${port}` }]) {
      const crossSite = await refused(headers)
      expect(crossSite.status).toBe(403)
      expect(JSON.parse(crossSite.body).error.code).toBe('FORBIDDEN')
    }
    // The origin is checked first: a cross-site page learns nothing of the session.
    expect((await refused({ origin: 'https://evil.example' })).status).toBe(403)

    // The same user, from the app's own origin, connects.
    const client = await open(paid.headers)
    expect(client.messages[0]).toEqual({ type: 'hello', v: 1 })
    // Nothing reached Vapi.
    expect(fake.requestsTo('POST', '/call')).toHaveLength(0)
  })

  it('only a GET of /api/voice upgrades: an upgrade to any other path, or by another method, is 404 and its socket is closed', async () => {
    for (const [method, path] of [['GET', '/api/plans'], ['GET', '/api/voice/config'], ['GET', '/nowhere'], ['POST', '/api/voice'], ['HEAD', '/api/voice']]) {
      const socket = net.connect({ port, host: '127.0.0.1' })
      let answer = ''
      socket.on('data', (chunk) => (answer += chunk.toString()))
      const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()))
      socket.write(`${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`)
      await closed
      expect(answer).toMatch(/^HTTP\/1\.1 404 /)
      expect(answer.toLowerCase()).toContain('connection: close')
      expect(answer).toContain('{"error":{"code":"NOT_FOUND","message":"Not found"}}')
    }
  })

  it('a plain GET (no upgrade) is 426, and closes its connection', async () => {
    const paid = await paidUser()
    const response = await fetch(`http://127.0.0.1:${port}/api/voice`, { headers: paid.headers })
    expect(response.status).toBe(426)
    expect(response.headers.get('connection')).toBe('close')
    expect(await response.json()).toMatchObject({ error: { code: 'UPGRADE_REQUIRED' } })
  })

  it('a refused upgrade says `Connection: close` and closes: a keep-alive client asks again on a new connection, and is answered', async () => {
    const paid = await paidUser()
    const unpaid = await signedInUser(app)
    app.services.voice.settings.connectionsPerIp = 1
    await open(paid.headers)
    const upgrade = (headers: Record<string, string>) => [
      'GET /api/voice HTTP/1.1',
      `Host: 127.0.0.1:${port}`,
      'Connection: keep-alive, Upgrade',
      'Upgrade: websocket',
      'Sec-WebSocket-Version: 13',
      'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
      ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    ]
    const cases: Array<[string, Record<string, string>, number]> = [
      ['no session', { Origin: app.config.appOrigin }, 401],
      ['not paid', { Origin: unpaid.headers.origin, Cookie: unpaid.cookie }, 403],
      ['another origin', { Origin: 'https://evil.example', Cookie: paid.cookie }, 403],
      ['too many sockets from the address', { Origin: paid.headers.origin, Cookie: paid.cookie }, 429],
    ]
    for (const [why, headers, status] of cases) {
      const answer = await rawRequest(upgrade(headers))
      expect(answer.status, why).toBe(status)
      expect(answer.headers.connection, why).toBe('close')
      expect(JSON.parse(answer.body).error.code, why).toBeDefined()
      await answer.closedByServer
    }
    // A keep-alive client (node:http's agent) follows the header: the next request goes on a new
    // connection and is answered, where a reused one would have been hung up on.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
    try {
      const get = (path: string, headers: Record<string, string>) =>
        new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
          http
            .get({ host: '127.0.0.1', port, path, headers, agent }, (response) => {
              response.resume()
              response.on('end', () => resolve({ status: response.statusCode ?? 0, connection: response.headers.connection }))
            })
            .on('error', reject)
        })
      expect(await get('/api/voice', { origin: app.config.appOrigin, cookie: paid.cookie })).toEqual({ status: 426, connection: 'close' })
      expect((await get('/api/health', {})).status).toBe(200)
    } finally {
      agent.destroy()
    }
  })

  it('limits the sockets open from one address (429), and connection attempts a minute (429)', async () => {
    app.services.voice.settings.connectionsPerIp = 2
    const paid = await paidUser()
    const first = await open(paid.headers)
    await open(paid.headers)
    const third = await refused(paid.headers)
    expect(third.status).toBe(429)
    expect(JSON.parse(third.body).error.code).toBe('RATE_LIMITED')
    // One closes: one more may open.
    await first.close()
    await open(paid.headers)
    // An upgrade that never completes gives its slots back (on the clock).
    const someone = (await paidUser()).user.id
    expect(await app.services.voice.admit('203.0.113.9', someone)).toEqual({ slot: expect.any(String) })
    app.services.voice.settings.connectionsPerIp = 1
    expect(await app.services.voice.admit('203.0.113.9', someone)).toEqual({ refused: 'network' })
    advance(app.services.voice.settings.upgradeMs)
    expect(await app.services.voice.admit('203.0.113.9', someone)).toEqual({ slot: expect.any(String) })

    app.services.voice.settings.connectionsPerIp = 100
    // 30 attempts a minute per address: the 4 above, then 26 more, then refused.
    for (let i = 0; i < 26; i++) (await open(paid.headers)).socket.close()
    const over = await refused(paid.headers)
    expect(over.status).toBe(429)
    expect(over.headers['retry-after']).toBeDefined()
  })

  it('counts an IPv6 client as its /64: the addresses of one network share its sockets', async () => {
    app.services.voice.settings.connectionsPerIp = 2
    const paid = await paidUser()
    const from = (address: string) => ({ ...paid.headers, 'x-forwarded-for': address })
    await open(from('2001:db8:1:2::a'))
    await open(from('2001:db8:1:2::b'))
    // Another address of the same /64 is the same client.
    const third = await refused(from('2001:db8:1:2:ffff:ffff:ffff:c'))
    expect(third.status).toBe(429)
    expect(JSON.parse(third.body)).toEqual({ error: { code: 'RATE_LIMITED', message: 'Too many voice connections from this address. Close one and try again.' } })
    // The next /64 is another client.
    await open(from('2001:db8:1:3::a'))
    // An IPv4-mapped address is its IPv4 address.
    await open(from('198.51.100.20'))
    await open(from('::ffff:198.51.100.20'))
    expect((await refused(from('198.51.100.20'))).status).toBe(429)
  })

  it("caps one person's sockets, whatever their addresses (429), and gives the slot back when one closes", async () => {
    app.services.voice.settings.connectionsPerUser = 2
    const person = await paidUser()
    const from = (who: SignedIn, address: string) => ({ ...who.headers, 'x-forwarded-for': address })
    const first = await open(from(person, '198.51.100.1'))
    await open(from(person, '198.51.100.2'))
    const third = await refused(from(person, '198.51.100.3'))
    expect(third.status).toBe(429)
    expect(third.headers['content-type']).toMatch(/^application\/json/)
    expect(JSON.parse(third.body)).toEqual({ error: { code: 'RATE_LIMITED', message: 'Too many voice connections are open for your account. Close a tab and try again.' } })
    // Someone else, from that very address, is not held back by it.
    await open(from(await paidUser(), '198.51.100.3'))
    // One closes: one more may open, from anywhere.
    await first.close()
    await expect.poll(async () => VoiceClient.connect(url, from(person, '198.51.100.4')).then((result) => {
      if (result instanceof VoiceClient) clients.push(result)
      return result instanceof VoiceClient
    })).toBe(true)
  })
})

// ---- a whole call ----------------------------------------------------------------------------

describe('a voice call', () => {
  it('greets, hears the user, answers by voice, takes typed text and mute, ends on `end`, and is saved once', async () => {
    const { user, headers } = await paidUser('premium')
    const client = await open(headers)
    client.send({ type: 'mute', muted: false })
    const callId = await startCall(client)
    expect(client.messages.map((m) => m.type).slice(0, 3)).toEqual(['hello', 'status', 'status'])
    expect(client.messages[1]).toEqual({ type: 'status', status: 'connecting' })

    // Vapi was asked once, with the WebSocket transport, our ids and the person's context.
    const [post] = fake.requestsTo('POST', '/call')
    type Overrides = { variableValues: Record<string, string>; firstMessage: string; maxDurationSeconds: number; serverMessages: string[]; server: unknown; metadata: unknown }
    const body = post!.body as { transport: unknown; assistantId: string; phoneNumberId?: string; assistantOverrides: Overrides }
    expect(body.transport).toEqual({ provider: 'vapi.websocket', audioFormat: { format: 'pcm_s16le', container: 'raw', sampleRate: 16000 } })
    expect(body.assistantId).toBe('asst-coach')
    expect(body.phoneNumberId).toBeUndefined()
    const overrides = body.assistantOverrides
    expect(Object.keys(overrides.variableValues).sort()).toEqual([...CALL_VARIABLES].sort())
    // The free trial's 10 voice minutes a day bound the call (docs/decisions/061).
    expect(overrides.variableValues).toMatchObject({ callKind: '', maxMinutes: '10', localDate: '2026-06-15', firstName: 'Test' })
    expect(overrides.firstMessage).toBe(WEB_CALL_FIRST_MESSAGE)
    expect(overrides.maxDurationSeconds).toBe(600)
    expect(overrides.serverMessages).toEqual(['status-update', 'end-of-call-report'])
    // The webhook by its credential: the secret never travels with a call.
    expect(overrides.server).toEqual({ url: `http://127.0.0.1:${port}/api/webhooks/vapi`, credentialId, timeoutSeconds: 20 })
    expect(JSON.stringify(post!.body)).not.toContain(SECRET)
    const [row] = await callRows(user.id)
    expect(row).toMatchObject({ slot: 'web', kind: 'web', vapiCallId: callId, localDate: null, maxDurationSeconds: 600 })
    expect(overrides.metadata).toMatchObject({ callId: row!.id, userId: user.id, kind: 'web' })
    expect(fake.transport.stats(callId)!.bearer).toBe(true)

    // The greeting: the assistant's transcript and audio.
    const greeting = await client.next('transcript', (m) => m.role === 'assistant' && m.final)
    expect(greeting.text).toBe("Hi Test, it's your AI coach from Momentum Coach. What would you like to work on today?")
    await fake.transport.idle(callId)
    await client.next('speech', (m) => m.role === 'assistant' && m.status === 'stopped')
    const greetingFrames = fake.transport.stats(callId)!.framesOut

    // The user speaks: their transcript, then the assistant's answer and its audio.
    speak(client)
    const said = await client.next('transcript', (m) => m.role === 'user' && m.final)
    expect(said.text).toBe('I want to work on my fitness this week.')
    const answer = await client.next('transcript', (m) => m.role === 'assistant' && m.final && m.text.startsWith('echo:'))
    expect(answer.text).toBe('echo:I want to work on my fitness this week.')
    await fake.transport.idle(callId)
    await client.next('speech', (m) => m.role === 'assistant' && m.status === 'stopped', client.messages.indexOf(answer))
    expect(client.messages).toContainEqual({ type: 'speech', role: 'user', status: 'started' })
    expect(client.messages).toContainEqual({ type: 'transcript', role: 'user', final: false, text: 'I want to work on' })
    const sentFrames = fake.transport.stats(callId)!.framesOut
    await client.untilAudio(sentFrames)
    expect(sentFrames).toBeGreaterThan(greetingFrames)

    // Typed into the call: Vapi gets it as a user message and answers by voice.
    const fromTyped = client.messages.length
    client.send({ type: 'text', text: 'Also my sleep' })
    await client.next('transcript', (m) => m.role === 'assistant' && m.final && m.text === 'echo:Also my sleep', fromTyped)
    expect(fake.transport.stats(callId)!.addMessages).toEqual([{ role: 'user', content: 'Also my sleep', triggerResponseEnabled: true }])
    await fake.transport.idle(callId)

    // Muted: Vapi is told, and no assistant audio reaches the browser.
    client.send({ type: 'mute', muted: true })
    await fake.transport.waitFor(callId, (stats) => stats.controls.includes('mute-assistant'))
    const audioBefore = client.audioFrames.length
    const fromMuted = client.messages.length
    client.send({ type: 'text', text: 'Quietly now' })
    await client.next('transcript', (m) => m.role === 'assistant' && m.final && m.text === 'echo:Quietly now', fromMuted)
    await fake.transport.idle(callId)
    client.send({ type: 'mute', muted: false })
    await fake.transport.waitFor(callId, (stats) => stats.controls.includes('unmute-assistant'))
    expect(client.audioFrames.length).toBe(audioBefore)

    // The user ends: Vapi is told `end-call`, then the browser hears `ended` with the conversation.
    client.send({ type: 'end' })
    const ended = await endedOf(client)
    expect(ended.reason).toBe('user-ended')
    expect(endCallsReceived(fake.transport.stats(callId))).toHaveLength(1)
    expect(await fake.transport.ended(callId)).toBe('customer-ended-call')
    expect(client.closed).toBeNull() // the socket stays for another call

    // Saved like a text conversation: finals only, each once, in order; titled by the first user line.
    const [conversation] = await database.db.select().from(conversations).where(eq(conversations.userId, user.id))
    expect(conversation!.id).toBe(ended.conversationId)
    expect(conversation!.title).toBe('I want to work on my fitness this week....')
    expect(conversation!.content.map((m) => [m.sender, m.text])).toEqual([
      ['ai', "Hi Test, it's your AI coach from Momentum Coach. What would you like to work on today?"],
      ['user', 'I want to work on my fitness this week.'],
      ['ai', 'echo:I want to work on my fitness this week.'],
      ['user', 'Also my sleep'],
      ['ai', 'echo:Also my sleep'],
      ['user', 'Quietly now'],
      ['ai', 'echo:Quietly now'],
    ])
    // What was said in the call counts as voice minutes, never as chat turns.
    expect(await database.db.select().from(usageDays).where(eq(usageDays.userId, user.id))).toEqual([])

    // The webhooks (not the socket) complete the call's row: a web call in the call history, never retried.
    await settleWebhooks()
    const [done] = await callRows(user.id)
    expect(done).toMatchObject({ completionStatus: 'completed', endedReason: 'customer-ended-call', slot: 'web', kind: 'web', retryAt: null })
    expect(done!.transcript).toContain('I want to work on my fitness this week.')
    expect(done!.startedAt).not.toBeNull()
    const timeline = (await database.db.select().from(coachingCallEvents).where(eq(coachingCallEvents.callId, done!.id))).map((event) => event.type)
    expect(timeline).toEqual(expect.arrayContaining(['scheduled', 'dialled', 'answered', 'ended', 'report']))
    expect(timeline).not.toContain('retry_scheduled')
    expect(timeline).not.toContain('not_retried')
    const recent = await app.inject({ method: 'GET', url: '/api/calls/recent', headers })
    expect(recent.json().calls).toEqual([expect.objectContaining({ id: done!.id, slot: 'web', kind: 'web', completionStatus: 'completed' })])
    const detail = await app.inject({ method: 'GET', url: `/api/calls/${done!.id}`, headers })
    expect(detail.json()).toMatchObject({ kind: 'web', slot: 'web', transcript: expect.stringContaining('fitness') })

    // Another call on the same socket.
    const second = await startCall(client)
    expect(second).not.toBe(callId)
    client.send({ type: 'end' })
    expect((await endedOf(client, client.messages.indexOf(ended) + 1)).reason).toBe('user-ended')
  })

  it('a call in which the user said nothing saves no conversation', async () => {
    const { user, headers } = await paidUser()
    const client = await open(headers)
    const callId = await startCall(client)
    await fake.transport.idle(callId)
    client.send({ type: 'end' })
    expect(await endedOf(client)).toEqual({ type: 'ended', reason: 'user-ended', conversationId: null })
    expect(await database.db.select().from(conversations).where(eq(conversations.userId, user.id))).toEqual([])
  })

  it('one live voice call per user: a second start, on this socket or another, is a protocol error', async () => {
    const { headers } = await paidUser()
    const first = await open(headers)
    const second = await open(headers)
    await startCall(first)
    first.send({ type: 'start', v: 1 })
    second.send({ type: 'start', v: 1 })
    expect(await first.next('error')).toMatchObject({ code: 'VOICE_SESSION_ACTIVE' })
    expect(await second.next('error')).toMatchObject({ code: 'VOICE_SESSION_ACTIVE', message: 'A voice call is already under way. End it before starting another.' })
    expect(fake.requestsTo('POST', '/call')).toHaveLength(1)
    // The lease outlives its own 90 s while the call lives (renewed), here 4 minutes on.
    app.services.voice.settings.noAudioMs = 3_600_000
    for (let i = 0; i < 8; i++) advance(30_000)
    const from = second.messages.length
    second.send({ type: 'start', v: 1 })
    expect(await second.next('error', () => true, from)).toMatchObject({ code: 'VOICE_SESSION_ACTIVE' })
    // Once it ends, the other socket may start one.
    first.send({ type: 'end' })
    await endedOf(first)
    await startCall(second)
    expect(fake.requestsTo('POST', '/call')).toHaveLength(2)
  })

  it('answers what it cannot do with protocol errors, and keeps the socket', async () => {
    const { headers } = await paidUser()
    const client = await open(headers)
    client.send({ type: 'end' })
    expect(await client.next('error')).toMatchObject({ code: 'VOICE_NOT_ACTIVE', message: 'Not currently in a call.' })
    client.send({ type: 'text', text: 'hello?' })
    client.send({ type: 'start', v: 2 })
    client.sendRaw('not json')
    client.send({ type: 'launch' })
    // Watching phone calls is served (test/integration/live-calls.test.ts); a call that is not theirs is not found.
    client.send({ type: 'watch-calls' })
    client.send({ type: 'end-phone-call', callId: '6c5b0a52-4f86-4a3c-9f4e-0a0d9c9a4c11' })
    await client.next('error', (m) => m.code === 'NOT_FOUND')
    expect(errorsOf(client).map((m) => m.code)).toEqual(['VOICE_NOT_ACTIVE', 'VOICE_NOT_ACTIVE', 'VALIDATION_FAILED', 'VALIDATION_FAILED', 'VALIDATION_FAILED', 'NOT_FOUND'])
    expect(client.closed).toBeNull()
  })

  it('without Vapi configured, `start` is VOICE_NOT_CONFIGURED (the socket still serves)', async () => {
    const bare = await buildTestApp({ database, clock, timers: timers.timers })
    try {
      await bare.listen({ port: 0, host: '127.0.0.1' })
      const { headers } = await signedInUser(bare, { paid: 'basic' })
      expect(bare.services.voice.configured).toBe(false)
      const client = await VoiceClient.open(`ws://127.0.0.1:${(bare.server.address() as { port: number }).port}/api/voice`, { ...headers, origin: bare.config.appOrigin })
      clients.push(client)
      client.send({ type: 'start', v: 1 })
      expect(await client.next('error')).toEqual({ type: 'error', code: 'VOICE_NOT_CONFIGURED', message: 'Voice assistant is not available. Please check your configuration.' })
      expect(client.closed).toBeNull()
    } finally {
      await bare.close()
    }
  })

  it("opens a call's socket only on Vapi's host: an answer naming another is VOICE_UNAVAILABLE, and the key never goes there", async () => {
    // Another host (here a listener of the test's own) that a Vapi answer names as the call's socket.
    const elsewhere: Array<{ url: string | undefined; authorization: string | undefined }> = []
    const foreign = http.createServer((_request, response) => response.writeHead(404).end())
    foreign.on('upgrade', (request: http.IncomingMessage, socket: net.Socket) => {
      elsewhere.push({ url: request.url, authorization: request.headers.authorization })
      socket.destroy()
    })
    await new Promise<void>((resolve) => foreign.listen(0, '127.0.0.1', resolve))
    try {
      fake.calls.websocketBase = `ws://127.0.0.1:${(foreign.address() as net.AddressInfo).port}`
      const { user, headers } = await paidUser()
      const client = await open(headers)
      client.send({ type: 'start', v: 1 })
      expect((await endedOf(client)).reason).toBe('upstream-error')
      expect(elsewhere).toEqual([])
      expect(errorsOf(client)).toEqual([{ type: 'error', code: 'VOICE_UNAVAILABLE', message: expect.any(String) }])
      expect(fake.transport.upgrades).toEqual([])
      const [row] = await callRows(user.id)
      expect(row).toMatchObject({ completionStatus: 'failed', endedReason: 'vapi-socket-elsewhere' })
    } finally {
      await new Promise<void>((resolve) => foreign.close(() => resolve()))
    }
  })

  it('Vapi refusing the call is an error and `ended` (upstream-error); the row records why', async () => {
    const { user, headers } = await paidUser()
    fake.inject('POST /call', { kind: 'status', status: 400, body: { message: ['assistant not found'], error: 'Bad Request', statusCode: 400 } })
    const client = await open(headers)
    client.send({ type: 'start', v: 1 })
    expect(await client.next('error')).toMatchObject({ code: 'VOICE_UNAVAILABLE' })
    expect(await endedOf(client)).toEqual({ type: 'ended', reason: 'upstream-error', conversationId: null })
    const [row] = await callRows(user.id)
    expect(row).toMatchObject({ completionStatus: 'failed', endedReason: 'vapi-refused-400', vapiCallId: null })
    expect(fake.requestsTo('POST', '/call')).toHaveLength(1) // never repeated
  })
})

// ---- caps --------------------------------------------------------------------------------------

describe('a voice call started from a conversation (docs/decisions/084)', () => {
  /** A conversation of the user's with two typed lines, created through the API. */
  async function typedConversation(headers: Record<string, string>): Promise<string> {
    const typed = (id: string, text: string, minute: number) => ({ id, text, sender: 'user', timestamp: new Date(Date.UTC(2026, 5, 15, 13, minute)).toISOString() })
    const response = await app.inject({ method: 'POST', url: '/api/conversations', headers, payload: { content: [typed('t1', 'Typed before the call', 0), typed('t2', 'And one more typed line', 1)] } })
    expect(response.statusCode, response.body).toBe(201)
    return (response.json() as { id: string }).id
  }

  it('writes its transcript into that conversation, after the typed lines, each spoken line marked; an archived one is reopened', async () => {
    const { user, headers } = await paidUser()
    const id = await typedConversation(headers)
    await database.db.update(conversations).set({ archivedAt: clock.now() }).where(eq(conversations.id, id))
    const client = await open(headers)
    const connected = fake.transport.connected()
    client.send({ type: 'start', v: 1, conversationId: id })
    await client.next('status', (m) => m.status === 'listening')
    const callId = await connected
    await client.next('transcript', (m) => m.role === 'assistant' && m.final)
    await fake.transport.idle(callId)
    speak(client)
    await client.next('transcript', (m) => m.role === 'assistant' && m.final && m.text.startsWith('echo:'))
    await fake.transport.idle(callId)
    const fromTyped = client.messages.length
    client.send({ type: 'text', text: 'Typed into the call' })
    await client.next('transcript', (m) => m.role === 'assistant' && m.final && m.text === 'echo:Typed into the call', fromTyped)
    await fake.transport.idle(callId)
    client.send({ type: 'end' })
    expect(await endedOf(client)).toEqual({ type: 'ended', reason: 'user-ended', conversationId: id })

    // One conversation: the typed lines kept first, the call's after them, spoken ones marked.
    const rows = await database.db.select().from(conversations).where(eq(conversations.userId, user.id))
    expect(rows.map((row) => row.id)).toEqual([id])
    expect(rows[0]!.content.map((m) => [m.sender, m.text, m.spoken ?? false])).toEqual([
      ['user', 'Typed before the call', false],
      ['user', 'And one more typed line', false],
      ['ai', "Hi Test, it's your AI coach from Momentum Coach. What would you like to work on today?", true],
      ['user', 'I want to work on my fitness this week.', true],
      ['ai', 'echo:I want to work on my fitness this week.', true],
      // Typed into the call: not spoken; the assistant answered by voice.
      ['user', 'Typed into the call', false],
      ['ai', 'echo:Typed into the call', true],
    ])
    // The title stays the text chat's; the call reopened it.
    expect(rows[0]!.title).toBe('Typed before the call...')
    expect(rows[0]!.archivedAt).toBeNull()
    // Read back through the API, the marks are there.
    const read = await app.inject({ method: 'GET', url: `/api/conversations/${id}`, headers })
    expect((read.json() as { content: { spoken?: boolean }[] }).content.map((m) => m.spoken === true)).toEqual([false, false, true, true, true, false, true])
  })

  it("refuses another user's conversation (or one that does not exist) as not found, before Vapi is asked; nothing is written", async () => {
    const owner = await paidUser()
    const theirs = await typedConversation(owner.headers)
    const { user, headers } = await paidUser()
    const client = await open(headers)
    for (const conversationId of [theirs, '6c5b0a52-4f86-4a3c-9f4e-0a0d9c9a4c11']) {
      const from = client.messages.length
      client.send({ type: 'start', v: 1, conversationId })
      expect(await client.next('error', () => true, from)).toEqual({ type: 'error', code: 'NOT_FOUND', message: 'Conversation not found' })
    }
    // No call began: no `connecting`, no `ended`, nothing at Vapi, no row, no conversation.
    expect(client.messages.filter((m) => m.type === 'status' || m.type === 'ended')).toEqual([])
    expect(fake.requestsTo('POST', '/call')).toHaveLength(0)
    expect(await callRows(user.id)).toEqual([])
    expect(await database.db.select().from(conversations).where(eq(conversations.userId, user.id))).toEqual([])
    const [kept] = await database.db.select().from(conversations).where(eq(conversations.id, theirs))
    expect(kept!.content.map((m) => m.text)).toEqual(['Typed before the call', 'And one more typed line'])
    // The socket still serves: a call of their own goes through.
    await startCall(client)
    client.send({ type: 'end' })
    expect((await endedOf(client)).reason).toBe('user-ended')
  })
})

describe('every coaching line busy (docs/decisions/069, 070)', () => {
  it("a start with no line free reaches the browser as VOICE_LINES_BUSY with its words: no `connecting`, no call at Vapi, no row; once a call ends and gives its line back, the next start goes through", async () => {
    // This app's account has 2 lines (the app's reserve is all of it but the one a phone call keeps).
    await app.close()
    app = await buildTestApp({
      database,
      clock,
      timers: timers.timers,
      env: { APP_URL: `http://127.0.0.1:${port}`, VAPI_API_KEY: fake.apiKey, VAPI_API_URL: fake.url, VAPI_ASSISTANT_ID: 'asst-coach', VAPI_WEBHOOK_SECRET: SECRET, VAPI_MAX_CONCURRENT_CALLS: '2' },
    })
    await app.listen({ port, host: '127.0.0.1' })
    app.services.voice.settings.heartbeatMs = 24 * 3_600_000
    const first = await open((await paidUser()).headers)
    const second = await open((await paidUser()).headers)
    await startCall(first)
    const secondCall = await startCall(second)

    const { user, headers } = await paidUser()
    const client = await open(headers)
    const from = client.messages.length
    client.send({ type: 'start', v: 1 })
    expect(await client.next('error', () => true, from)).toEqual({
      type: 'error',
      code: 'VOICE_LINES_BUSY',
      message: 'All our coaching lines are busy right now. Please try again in a few minutes.',
    })
    await client.roundTrip()
    expect(client.messages.slice(from).map((m) => m.type)).toEqual(['error'])
    expect(fake.requestsTo('POST', '/call')).toHaveLength(2)
    expect(await callRows(user.id)).toEqual([])
    expect(client.closed).toBeNull()

    // The second call ends: its final status gives the line back, and the same socket starts a call.
    second.send({ type: 'end' })
    await endedOf(second)
    await fake.transport.ended(secondCall)
    await settleWebhooks()
    await startCall(client)
    expect(fake.requestsTo('POST', '/call')).toHaveLength(3)
    expect(await callRows(user.id)).toMatchObject([{ slot: 'web', completionStatus: 'queued' }])
  })
})

describe('the caps', () => {
  it('a binary frame over 4 KB closes 1009, and Vapi is told to end the call', async () => {
    const { headers } = await paidUser()
    const client = await open(headers)
    const callId = await startCall(client)
    client.sendRaw(Buffer.alloc(VOICE_MAX_BINARY_FRAME_BYTES))
    client.sendRaw(Buffer.alloc(VOICE_MAX_BINARY_FRAME_BYTES + 2))
    expect((await client.whenClosed()).code).toBe(1009)
    await fake.transport.ended(callId)
    expect(endCallsReceived(fake.transport.stats(callId))).toHaveLength(1)
  })

  it('a text frame over 8 KB closes 1009', async () => {
    const { headers } = await paidUser()
    const client = await open(headers)
    client.sendRaw(JSON.stringify({ type: 'text', text: 'x'.repeat(VOICE_MAX_TEXT_FRAME_BYTES) }))
    expect((await client.whenClosed()).code).toBe(1009)
  })

  it('audio faster than 1.5x real time closes 1008; real time (and a little faster) never does', async () => {
    // Each second of the test clock: a batch of frames, handled before the clock moves on.
    const stream = async (client: VoiceClient, callId: string, framesPerSecond: number, seconds: number) => {
      let sent = fake.transport.stats(callId)!.framesIn
      for (let second = 0; second < seconds && !client.closed; second++) {
        for (let i = 0; i < framesPerSecond; i++) client.sendRaw(audioFrame(false))
        sent += framesPerSecond
        const relayed = fake.transport.waitFor(callId, (stats) => stats.framesIn >= sent)
        await Promise.race([relayed, client.whenClosed()])
        advance(1000)
      }
    }
    const { headers } = await paidUser()
    const steady = await open(headers)
    const steadyCall = await startCall(steady)
    // Ten seconds at real time (50 frames a second), then ten at 1.2x.
    await stream(steady, steadyCall, 50, 10)
    await stream(steady, steadyCall, 60, 10)
    expect(steady.closed).toBeNull()
    expect(fake.transport.stats(steadyCall)!.framesIn).toBe(1100)

    // 1.6x real time: closed once the burst allowance is spent.
    const { headers: other } = await paidUser()
    const hasty = await open(other)
    const hastyCall = await startCall(hasty)
    await stream(hasty, hastyCall, 80, 60)
    expect(await hasty.whenClosed()).toEqual({ code: 1008, reason: 'audio faster than real time' })
    await fake.transport.ended(hastyCall)
    expect(endCallsReceived(fake.transport.stats(hastyCall))).toHaveLength(1)
  })

  it('a flood of messages spends the budget and closes 1008', async () => {
    const { headers } = await paidUser()
    const client = await open(headers)
    for (let i = 0; i < 100 && !client.closed; i++) client.send({ type: 'mute', muted: i % 2 === 0 })
    const closed = await client.whenClosed()
    expect(closed).toEqual({ code: 1008, reason: 'message budget exceeded' })
  })

  it('no audio for 60 s ends the call (no-audio), on the test clock', async () => {
    const { headers } = await paidUser()
    const client = await open(headers)
    const callId = await startCall(client)
    advance(30_000)
    client.sendRaw(audioFrame(false))
    await fake.transport.waitFor(callId, (stats) => stats.framesIn >= 1)
    advance(59_000)
    expect(client.messages.some((m) => m.type === 'ended')).toBe(false)
    advance(1_000)
    expect(await endedOf(client)).toMatchObject({ reason: 'no-audio' })
    expect(endCallsReceived(fake.transport.stats(callId))).toHaveLength(1)
    expect(client.closed).toBeNull()
  })
})

// ---- the plan's budget (docs/decisions/061) ------------------------------------------------------

describe("the plan's budget", () => {
  /** Voice seconds the person already used on a local date (an earlier call in the app). */
  async function usedVoice(userId: string, localDate: string, seconds: number): Promise<void> {
    const [call] = await database.db.insert(coachingCalls).values({ userId, callDate: clock.now(), slot: 'web', kind: 'web', completionStatus: 'completed', callDuration: seconds }).returning()
    await database.db.insert(usageVoiceCalls).values({ callId: call!.id, userId, localDate, seconds, updatedAt: clock.now() })
  }

  /** What the gateway counted per call of the person's (seeded ones included), oldest first. */
  const counted = async (userId: string) =>
    (await database.db.select({ localDate: usageVoiceCalls.localDate, seconds: usageVoiceCalls.seconds, callDate: coachingCalls.callDate }).from(usageVoiceCalls).innerJoin(coachingCalls, eq(coachingCalls.id, usageVoiceCalls.callId)).where(eq(usageVoiceCalls.userId, userId)).orderBy(asc(coachingCalls.callDate), asc(usageVoiceCalls.updatedAt))).map(({ localDate, seconds }) => ({ localDate, seconds }))

  const askedFor = (index: number) => {
    const body = fake.requestsTo('POST', '/call')[index]!.body as { assistantOverrides: { maxDurationSeconds: number; variableValues: Record<string, string> } }
    return { seconds: body.assistantOverrides.maxDurationSeconds, maxMinutes: body.assistantOverrides.variableValues.maxMinutes }
  }

  /** A script keeping its call billable: a silent frame every 30 s (the no-audio cap never fires), for `ms`. */
  async function streamSilence(client: VoiceClient, ms: number): Promise<void> {
    for (let spent = 0; spent < ms; spent += 30_000) {
      client.sendRaw(audioFrame(false))
      await client.roundTrip()
      advance(Math.min(30_000, ms - spent))
    }
  }

  it("a call runs past the phone call's length (10 minutes on Premium), until the 30-minute ceiling (max-duration)", async () => {
    app.services.voice.settings.noAudioMs = 3_600_000
    const { user, headers } = await member('premium')
    const client = await open(headers)
    const callId = await startCall(client)
    expect(askedFor(0)).toEqual({ seconds: 1800, maxMinutes: '30' })
    advance(1_799_000)
    expect(client.messages.some((m) => m.type === 'ended')).toBe(false)
    advance(1_000)
    expect(await endedOf(client)).toMatchObject({ reason: 'max-duration' })
    expect(endCallsReceived(fake.transport.stats(callId))).toHaveLength(1)
    expect(await counted(user.id)).toEqual([{ localDate: '2026-06-15', seconds: 1800 }])
  })

  it("the month's minutes end a call (monthly-limit); the next start is refused before Vapi is asked, until the person's 1st", async () => {
    app.services.voice.settings.noAudioMs = 3_600_000
    const { user, headers } = await member('basic')
    // 58 of Basic's 60 minutes used earlier this month: 2 minutes left.
    await usedVoice(user.id, '2026-06-02', 58 * 60)
    const client = await open(headers)
    const callId = await startCall(client)
    expect(askedFor(0)).toEqual({ seconds: 120, maxMinutes: '2' })
    advance(119_000)
    expect(client.messages.some((m) => m.type === 'ended')).toBe(false)
    advance(1_000)
    expect(await endedOf(client)).toMatchObject({ reason: 'monthly-limit' })
    expect(endCallsReceived(fake.transport.stats(callId))).toHaveLength(1)
    expect(await counted(user.id)).toEqual([
      { localDate: '2026-06-02', seconds: 3480 },
      { localDate: '2026-06-15', seconds: 120 },
    ])

    // Nothing left: `start` is refused with the reason, no `connecting`, no call at Vapi, no row.
    const from = client.messages.length
    client.send({ type: 'start', v: 1 })
    expect(await client.next('error', () => true, from)).toEqual({
      type: 'error',
      code: 'USAGE_LIMIT_REACHED',
      message: "You've used this month's 60 voice minutes. They come back on July 1.",
    })
    await client.roundTrip()
    expect(client.messages.slice(from).map((m) => m.type)).toEqual(['error'])
    expect(fake.requestsTo('POST', '/call')).toHaveLength(1)
    expect(await callRows(user.id)).toHaveLength(2)
    expect(client.closed).toBeNull()

    // 1 July, midnight in New York: the month's minutes are back (signed in again: a session lasts a week idle).
    await client.close()
    timers.advanceTo(new Date('2026-07-01T04:00:00Z'))
    const session = await createSession(app.db, app.services.clock, user.id)
    const july = await open({ cookie: `session=${session.token}`, origin: app.config.appOrigin })
    await startCall(july)
    expect(askedFor(1).seconds).toBe(1800)
  })

  it('Vapi ending a call at the budget it was given is the budget’s end too', async () => {
    const { user, headers } = await member('basic')
    await usedVoice(user.id, '2026-06-01', 55 * 60)
    const client = await open(headers)
    const callId = await startCall(client)
    expect(askedFor(0).seconds).toBe(300)
    fake.transport.endCall(callId, 'exceeded-max-duration')
    expect(await endedOf(client)).toMatchObject({ reason: 'monthly-limit' })
  })

  it('the daily guard stops a script that streams silence call after call; the next local day it may call again', async () => {
    const { user, headers } = await member('premium')
    const client = await open(headers)
    // Each call is kept billable with silence: the first runs to the ceiling...
    await startCall(client)
    await streamSilence(client, 1_800_000)
    expect(await endedOf(client)).toMatchObject({ reason: 'max-duration' })
    // ...the second to what is left of Premium's 60 minutes a day...
    let from = client.messages.length
    await startCall(client)
    expect(askedFor(1).seconds).toBe(1800)
    await streamSilence(client, 1_800_000)
    expect(await endedOf(client, from)).toMatchObject({ reason: 'daily-limit' })
    // ...and the third is refused, though the month has 180 minutes left.
    from = client.messages.length
    client.send({ type: 'start', v: 1 })
    expect(await client.next('error', () => true, from)).toMatchObject({
      code: 'USAGE_LIMIT_REACHED',
      message: "You've used today's 60 voice minutes, the most in one day. You can talk again tomorrow.",
    })
    expect(fake.requestsTo('POST', '/call')).toHaveLength(2)
    expect(await counted(user.id)).toEqual([
      { localDate: '2026-06-15', seconds: 1800 },
      { localDate: '2026-06-15', seconds: 1800 },
    ])
    // The next day in New York.
    timers.advanceTo(new Date('2026-06-16T04:00:00Z'))
    await startCall(client)
    expect(askedFor(2).seconds).toBe(1800)
  })

  it('counted while the call lives (the account page shows it), at its end, and raised to the duration Vapi bills; never twice', async () => {
    const { user, headers } = await member('premium')
    fake.calls.configureWebhooks({ dropTypes: ['end-of-call-report'] })
    const usedToday = async () => AccountUsageResponseSchema.parse((await app.inject({ method: 'GET', url: '/api/account/usage', headers })).json()).today.voiceSeconds.used
    const client = await open(headers)
    const callId = await startCall(client)
    // Once Vapi has the call, its shortest length counts at once.
    await expect.poll(() => counted(user.id)).toEqual([{ localDate: '2026-06-15', seconds: 10 }])
    for (let i = 0; i < 3; i++) {
      client.sendRaw(audioFrame(false))
      await client.roundTrip()
      advance(30_000)
    }
    // A minute in, while it lives.
    await expect.poll(usedToday).toBe(60)
    client.send({ type: 'end' })
    await endedOf(client)
    expect(await counted(user.id)).toEqual([{ localDate: '2026-06-15', seconds: 90 }])
    await settleWebhooks()
    expect(await usedToday()).toBe(90)

    // Vapi's end-of-call report comes late, billing 125 s: the count rises to it, once.
    const dropped = fake.calls.emitter.deliveries.find((delivery) => delivery.type === 'end-of-call-report' && delivery.callId === callId)
    const report = JSON.parse(dropped!.body) as { message: Record<string, unknown> }
    report.message.durationSeconds = 125
    report.message.durationMs = 125_000
    for (let i = 0; i < 2; i++) {
      const posted = await app.inject({ method: 'POST', url: '/api/webhooks/vapi', headers: { 'content-type': 'application/json', 'x-vapi-secret': SECRET }, payload: report })
      expect(posted.statusCode).toBe(200)
      await settleWebhooks()
    }
    expect(await counted(user.id)).toEqual([{ localDate: '2026-06-15', seconds: 125 }])
    expect(await usedToday()).toBe(125)
    // What the gateway saved of the call (its conversation) never counts as chat turns.
    expect(await database.db.select().from(usageDays).where(eq(usageDays.userId, user.id))).toEqual([])
  })
})

// ---- ends ----------------------------------------------------------------------------------------

describe('the ends', () => {
  it('Vapi ends the call: the reason is relayed (assistant-ended, max-duration), then a dropped socket (upstream-error)', async () => {
    // A plan whose call the 30-minute ceiling bounds (a budget that bounds it is the budget's end).
    const { headers } = await member('premium')
    const client = await open(headers)
    let callId = await startCall(client)
    fake.transport.endCall(callId, 'assistant-said-end-call-phrase')
    expect(await endedOf(client)).toMatchObject({ reason: 'assistant-ended' })
    expect(endCallsReceived(fake.transport.stats(callId))).toHaveLength(0)

    let from = client.messages.length
    callId = await startCall(client)
    fake.transport.endCall(callId, 'exceeded-max-duration')
    expect(await endedOf(client, from)).toMatchObject({ reason: 'max-duration' })

    from = client.messages.length
    callId = await startCall(client)
    fake.transport.drop(callId)
    expect(await endedOf(client, from)).toMatchObject({ reason: 'upstream-error' })
    expect(client.closed).toBeNull()
  })

  it('the browser vanishes: Vapi gets end-call and the socket is closed', async () => {
    const { headers } = await paidUser()
    const client = await open(headers)
    const callId = await startCall(client)
    client.socket.terminate()
    expect(await fake.transport.ended(callId)).toBe('customer-ended-call')
    const stats = fake.transport.stats(callId)!
    expect(endCallsReceived(stats)).toHaveLength(1)
    expect(stats.endCallReceived).toBe('socket')
    expect(app.services.voice.metrics().connections).toBe(0)
  })

  it('the browser vanishes while Vapi is still creating the call: once created, it is ended', async () => {
    const { headers } = await paidUser()
    const client = await open(headers)
    fake.inject('POST /call', { kind: 'latency', ms: 300 })
    const connected = fake.transport.connected()
    client.send({ type: 'start', v: 1 })
    await client.next('status', (m) => m.status === 'connecting')
    client.socket.terminate()
    const callId = await connected
    expect(await fake.transport.ended(callId)).toBe('customer-ended-call')
    expect(endCallsReceived(fake.transport.stats(callId))).toHaveLength(1)
  })

  it('a sign-out ends the call (signed-out) and closes that session’s sockets, not another session’s', async () => {
    const { user, headers } = await paidUser()
    const client = await open(headers)
    const callId = await startCall(client)
    const other = await createSession(app.db, clock, user.id)
    const elsewhere = await open({ cookie: `session=${other.token}`, origin: headers.origin })
    const response = await fetch(`http://127.0.0.1:${port}/api/auth/logout`, { method: 'POST', headers })
    expect(response.status).toBe(204)
    expect(await endedOf(client)).toMatchObject({ reason: 'signed-out' })
    expect(await client.whenClosed()).toEqual({ code: 1000, reason: 'signed-out' })
    expect(endCallsReceived(fake.transport.stats(callId))).toHaveLength(1)
    // The other session's socket stays, and may call.
    await startCall(elsewhere)
    expect(elsewhere.closed).toBeNull()
  })

  it('a password reset closes every socket of the person', async () => {
    const { user, headers } = await paidUser()
    const first = await open(headers)
    const other = await createSession(app.db, clock, user.id)
    const second = await open({ cookie: `session=${other.token}`, origin: headers.origin })
    const callId = await startCall(first)
    const token = 'voicegatewayresetlinkaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'
    await database.db.insert(emailTokens).values({ userId: user.id, purpose: 'reset_password', tokenHash: hashSecret(token), expiresAt: new Date(clock.now().getTime() + 3_600_000), createdAt: clock.now() })
    const reset = await fetch(`http://127.0.0.1:${port}/api/auth/reset-password`, {
      method: 'POST',
      headers: { origin: headers.origin, 'content-type': 'application/json' },
      body: JSON.stringify({ token, password: 'copper-meadow-whistle', confirmPassword: 'copper-meadow-whistle' }),
    })
    expect(reset.status).toBe(200)
    expect(await first.whenClosed()).toEqual({ code: 1000, reason: 'signed-out' })
    expect(await second.whenClosed()).toEqual({ code: 1000, reason: 'signed-out' })
    expect(await endedOf(first)).toMatchObject({ reason: 'signed-out' })
    expect(endCallsReceived(fake.transport.stats(callId))).toHaveLength(1)
  })

  it('a password change on the account page closes the other sessions’ sockets, not this one’s', async () => {
    const { user, headers } = await paidUser()
    await database.db.update(users).set({ passwordHash: await hashPassword('amber-lantern-orchard-7') }).where(eq(users.id, user.id))
    const here = await open(headers)
    const other = await createSession(app.db, clock, user.id)
    const elsewhere = await open({ cookie: `session=${other.token}`, origin: headers.origin })
    const callId = await startCall(elsewhere)
    const changed = await fetch(`http://127.0.0.1:${port}/api/account/password`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ currentPassword: 'amber-lantern-orchard-7', newPassword: 'copper-meadow-whistle-9', confirmPassword: 'copper-meadow-whistle-9' }),
    })
    expect(changed.status).toBe(200)
    expect(await elsewhere.whenClosed()).toEqual({ code: 1000, reason: 'signed-out' })
    expect(await endedOf(elsewhere)).toMatchObject({ reason: 'signed-out' })
    expect(endCallsReceived(fake.transport.stats(callId))).toHaveLength(1)
    await startCall(here)
    expect(here.closed).toBeNull()
  })

  it('signing a session out on the account page closes its sockets', async () => {
    const { user, headers } = await paidUser()
    const other = await createSession(app.db, clock, user.id)
    const elsewhere = await open({ cookie: `session=${other.token}`, origin: headers.origin })
    const here = await open(headers)
    const response = await fetch(`http://127.0.0.1:${port}/api/account/sessions/${other.token.split('.')[0]}`, { method: 'DELETE', headers })
    expect(response.status).toBe(204)
    expect(await elsewhere.whenClosed()).toEqual({ code: 1000, reason: 'signed-out' })
    expect(here.closed).toBeNull()
  })

  it('deleting the account closes every socket of the person and ends the call; what Vapi sends of it afterwards is not kept', async () => {
    const { user, headers } = await paidUser()
    await database.db.update(users).set({ passwordHash: await hashPassword('copper-meadow-whistle') }).where(eq(users.id, user.id))
    const first = await open(headers)
    const other = await createSession(app.db, clock, user.id)
    const second = await open({ cookie: `session=${other.token}`, origin: headers.origin })
    const callId = await startCall(first)
    speak(first)
    const deleted = await fetch(`http://127.0.0.1:${port}/api/account/delete`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ password: 'copper-meadow-whistle', email: user.email }),
    })
    expect(deleted.status).toBe(204)
    expect(await first.whenClosed()).toEqual({ code: 1000, reason: 'signed-out' })
    expect(await second.whenClosed()).toEqual({ code: 1000, reason: 'signed-out' })
    expect(await endedOf(first)).toMatchObject({ reason: 'signed-out' })
    expect(endCallsReceived(fake.transport.stats(callId))).toHaveLength(1)
    await fake.transport.ended(callId)
    await settleWebhooks()
    // A report Vapi sends (again) after the deletion: applied to nothing, and not kept.
    const late = await fetch(`http://127.0.0.1:${port}/api/webhooks/vapi`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-vapi-secret': SECRET },
      body: JSON.stringify({
        message: { type: 'end-of-call-report', timestamp: clock.now().getTime(), endedReason: 'customer-ended-call', call: { id: callId, assistantOverrides: { metadata: { userId: user.id, kind: 'web' } } }, artifact: { transcript: 'User: late words' } },
      }),
    })
    expect(late.status).toBe(200)
    await settleWebhooks()
    expect(await placesHolding(database.db, [user.id, user.email])).toEqual([])
  })

  it('a session signed out elsewhere (another server) closes the socket at its next check', async () => {
    const { headers } = await paidUser()
    const client = await open(headers)
    const callId = await startCall(client)
    await database.db.delete(sessions).where(eq(sessions.id, headers.cookie.split('=')[1]!.split('.')[0]!))
    client.sendRaw(audioFrame(false))
    advance(30_000)
    client.sendRaw(audioFrame(false))
    advance(30_000)
    expect(await client.whenClosed()).toEqual({ code: 1000, reason: 'signed-out' })
    expect(endCallsReceived(fake.transport.stats(callId))).toHaveLength(1)
  })

  it('closing the app ends every call (server-restarting) and closes the sockets 1001', async () => {
    const a = await paidUser()
    const b = await paidUser()
    const first = await open(a.headers)
    const second = await open(b.headers)
    const idle = await open(b.headers)
    const firstCall = await startCall(first)
    const secondCall = await startCall(second)
    appClosed = true
    await app.close()
    for (const client of [first, second]) {
      expect(await endedOf(client)).toMatchObject({ reason: 'server-restarting' })
      expect((await client.whenClosed()).code).toBe(1001)
    }
    expect((await idle.whenClosed()).code).toBe(1001)
    for (const callId of [firstCall, secondCall]) expect(endCallsReceived(fake.transport.stats(callId))).toHaveLength(1)
  })

  it('stopping does not wait on a call Vapi has not answered for: the socket closes within the bound', async () => {
    const { user, headers } = await paidUser()
    const client = await open(headers)
    fake.inject('POST /call', { kind: 'hang' })
    client.send({ type: 'start', v: 1 })
    await client.next('status', (m) => m.status === 'connecting')
    const stopping = app.services.voice.shutdown()
    // The wait for the call is bounded on the clock (4 s): the test moves it past.
    advance(4_000)
    await stopping
    expect(await client.whenClosed()).toEqual({ code: 1001, reason: 'server-restarting' })
    // Vapi never answered: the row says it is still being dialled (the sweep settles such claims).
    const [row] = await callRows(user.id)
    expect(row).toMatchObject({ completionStatus: 'dialling', vapiCallId: null })
  })

  it('a browser that stops answering pings is gone: the call ends', async () => {
    app.services.voice.settings.heartbeatMs = 30_000
    app.services.voice.settings.noAudioMs = 3_600_000
    const { headers } = await paidUser()
    const client = await open(headers)
    const callId = await startCall(client)
    // The browser's socket stops reading (and so answering pings): one ping, then it is gone.
    client.socket.pause()
    advance(30_000)
    expect(fake.transport.stats(callId)!.state).toBe('open')
    advance(30_000)
    expect(await fake.transport.ended(callId)).toBe('customer-ended-call')
    expect(endCallsReceived(fake.transport.stats(callId))).toHaveLength(1)
  })

  it('a browser that answers pings (or sends audio) stays', async () => {
    app.services.voice.settings.heartbeatMs = 30_000
    const { headers } = await paidUser()
    const client = await open(headers)
    const callId = await startCall(client)
    for (let i = 0; i < 6; i++) {
      // Each step: audio from the browser, then 20 s on the clock (the heartbeat sees it alive).
      client.sendRaw(audioFrame(false))
      await fake.transport.waitFor(callId, (stats) => stats.framesIn >= i + 1)
      advance(20_000)
    }
    expect(fake.transport.stats(callId)!.state).toBe('open')
    expect(client.closed).toBeNull()
  })
})

// ---- backpressure --------------------------------------------------------------------------------

describe('backpressure', () => {
  it('a browser that is behind loses the OLDEST assistant audio, counted, and never an unbounded buffer', async () => {
    const { headers } = await paidUser()
    const client = await open(headers)
    // A greeting far longer than the sockets' buffers hold (6.4 MB of audio, sent at once).
    fake.transport.configureNext({ greetingFrames: 10_000 })
    const connected = fake.transport.connected()
    // The browser stops reading; what it sends still goes.
    client.socket.pause()
    client.send({ type: 'start', v: 1 })
    const callId = await connected
    await fake.transport.idle(callId)
    expect(fake.transport.stats(callId)!.framesOut).toBe(10_000)
    // The browser reads again. The assistant's `speech stopped` came after its last frame on
    // Vapi's socket: once it is here, the gateway has handled every frame.
    client.socket.resume()
    await client.next('speech', (m) => m.role === 'assistant' && m.status === 'stopped')
    const dropped = app.services.voice.metrics().droppedToBrowser
    expect(dropped).toBeGreaterThan(0)
    // Every frame not dropped arrives, the newest included: the dropped ones were the oldest waiting.
    await client.untilAudio(10_000 - dropped)
    expect(client.audioFrames.length).toBe(10_000 - dropped)
    client.send({ type: 'end' })
    await endedOf(client)
    expect(app.services.voice.metrics().droppedToBrowser).toBe(dropped)
  })
})

describe('backpressure toward Vapi', () => {
  it('Vapi stops reading while the browser streams: at most 0.5 s waits, the OLDEST frames are dropped (counted), and the call goes on after the stall', async () => {
    // Vapi echoes what it hears (each frame carries its number), so the browser sees what reached it.
    fake.transport.configureNext({ echo: true })
    const { headers } = await paidUser('elite')
    const client = await open(headers)
    const callId = await startCall(client)
    const settings = app.services.voice.settings
    const queueFrames = settings.audioQueueBytes / VOICE_FRAME_BYTES
    const droppedToVapi = () => app.services.voice.metrics().droppedToVapi
    let sent = 0
    const numbered = () => {
      const frame = Buffer.alloc(VOICE_FRAME_BYTES)
      frame.writeUInt32LE(sent++)
      return frame
    }
    /** One second of audio in real time: 50 frames, read by the gateway before the clock moves on. */
    const stream = async () => {
      for (let i = 0; i < 50; i++) client.sendRaw(numbered())
      await client.roundTrip()
      advance(1000)
    }

    expect(fake.transport.stallReading(callId)).toBe(true)
    // The browser keeps streaming in real time until the kernel's buffers toward Vapi are full and
    // the gateway has begun to drop: about 4 MB (2 minutes of audio) on loopback here; the elite
    // plan's 15-minute calls leave room for kernels that buffer far more.
    for (let second = 0; second < 850 && droppedToVapi() === 0; second++) await stream()
    expect(droppedToVapi()).toBeGreaterThan(0)
    expect(fake.transport.stats(callId)!.framesIn).toBe(0)
    // From now on nothing more is held: each frame the browser sends drops exactly one waiting frame.
    const before = droppedToVapi()
    for (let second = 0; second < 10; second++) await stream()
    expect(droppedToVapi() - before).toBe(500)
    expect(client.closed).toBeNull()

    // The stall ends: Vapi reads what waited. It got every frame up to where the gateway fell
    // behind, then only the newest half second: the frames dropped were the oldest waiting.
    const dropped = droppedToVapi()
    expect(fake.transport.resumeReading(callId)).toBe(true)
    await client.untilAudio(sent - dropped)
    const heard = client.audioFrames.map((frame) => frame.readUInt32LE(0))
    const kept = sent - dropped - queueFrames
    expect(heard).toEqual([...Array.from({ length: kept }, (_, i) => i), ...Array.from({ length: queueFrames }, (_, i) => sent - queueFrames + i)])
    await fake.transport.waitFor(callId, (stats) => stats.framesIn === sent - dropped)

    // The call goes on: another second of audio reaches Vapi whole, nothing more dropped.
    const resumedAt = sent
    await stream()
    await client.untilAudio(sent - dropped)
    expect(client.audioFrames.slice(-50).map((frame) => frame.readUInt32LE(0))).toEqual(Array.from({ length: 50 }, (_, i) => resumedAt + i))
    expect(droppedToVapi()).toBe(dropped)
    expect(app.services.voice.metrics().droppedToBrowser).toBe(0)

    client.send({ type: 'end' })
    expect(await endedOf(client)).toMatchObject({ reason: 'user-ended' })
    expect(endCallsReceived(fake.transport.stats(callId))).toHaveLength(1)
    // Counted once: the ended call's drops stay in the gateway's counter.
    expect(droppedToVapi()).toBe(dropped)
  })
})

describe('a web call that did not reach anyone', () => {
  it('a web call left live is never picked up by the retry ladder', async () => {
    const { user, headers } = await paidUser()
    const client = await open(headers)
    const callId = await startCall(client)
    fake.transport.endCall(callId, 'customer-busy')
    await endedOf(client)
    await settleWebhooks()
    const [row] = await callRows(user.id)
    expect(row).toMatchObject({ completionStatus: 'busy', retryAt: null })
    const events = await database.db.select().from(coachingCallEvents).where(and(eq(coachingCallEvents.callId, row!.id), eq(coachingCallEvents.type, 'not_retried')))
    expect(events.map((event) => event.detail)).toEqual([expect.objectContaining({ reason: 'not_a_daily_call' })])
  })
  it('one whose webhooks were all lost is finished by the sweep, though no phone number is configured (no phone calls)', async () => {
    expect(app.services.calls.configured).toBe(false)
    fake.calls.configureWebhooks({ dropRate: 1 })
    const { user, headers } = await paidUser()
    const client = await open(headers)
    const callId = await startCall(client)
    client.send({ type: 'end' })
    expect((await endedOf(client)).reason).toBe('user-ended')
    await settleWebhooks()
    const [left] = await callRows(user.id)
    expect(left).toMatchObject({ vapiCallId: callId, completionStatus: 'queued', endedAt: null })

    // Past its longest possible end (10 minutes), its ringing and the grace: the sweep asks Vapi.
    clock.set(new Date(clock.now().getTime() + 20 * 60_000))
    // (The database is shared by the file's tests: the sweep looks at their calls too.)
    await app.services.calls.sweep()
    const [row] = await callRows(user.id)
    expect(row).toMatchObject({ completionStatus: 'completed', endedReason: 'customer-ended-call', kind: 'web', retryAt: null })
    expect(fake.requestsTo('GET', `/call/${callId}`)).toHaveLength(1)
  })
})

describe('the server process', () => {
  it('on SIGTERM ends every voice call (server-restarting), tells Vapi, and exits 0 (close-with-grace exits 1 past its 10 s)', async () => {
    const serverPort = await freePort()
    const origin = `http://127.0.0.1:${serverPort}`
    const server = spawnEntry('server/index.ts', {
      PORT: String(serverPort),
      APP_URL: origin,
      DATA_DIR: mkdtempSync(join(tmpdir(), 'mc-voice-')),
      VAPI_API_KEY: fake.apiKey,
      VAPI_API_URL: fake.url,
      VAPI_ASSISTANT_ID: 'asst-coach',
    })
    try {
      await server.waitFor(/Momentum Coach is ready/)
      // A paid person, through the API: sign up, confirm the email (its link is logged), testing plan.
      const password = 'steady-maple-lantern-42'
      const signup = await fetch(`${origin}/api/auth/signup`, {
        method: 'POST',
        headers: { origin, 'content-type': 'application/json' },
        body: JSON.stringify({ fullName: 'Dana Reyes', email: 'dana@example.com', phoneNumber: '2025234567', password, confirmPassword: password, communicationConsent: true, termsAccepted: true }),
      })
      expect(signup.status).toBe(201)
      const cookie = signup.headers.getSetCookie()[0]!.split(';')[0]!
      await server.waitFor(/mode=confirm#token=/)
      const token = /mode=confirm#token=([A-Za-z0-9_-]+)/.exec(server.output())![1]!
      const headers = { origin, cookie, 'content-type': 'application/json' }
      expect((await fetch(`${origin}/api/auth/confirm-email`, { method: 'POST', headers, body: JSON.stringify({ token }) })).status).toBe(200)
      expect((await fetch(`${origin}/api/billing/testing-activation`, { method: 'POST', headers, body: JSON.stringify({ plan: 'basic' }) })).status).toBe(200)

      const client = await VoiceClient.open(`ws://127.0.0.1:${serverPort}/api/voice`, { origin, cookie })
      clients.push(client)
      const connected = fake.transport.connected()
      client.send({ type: 'start', v: 1 })
      await client.next('status', (m) => m.status === 'listening')
      const callId = await connected

      server.child.kill('SIGTERM')
      expect(await endedOf(client)).toMatchObject({ reason: 'server-restarting' })
      expect(await client.whenClosed()).toEqual({ code: 1001, reason: 'server-restarting' })
      expect(await fake.transport.ended(callId)).toBe('customer-ended-call')
      expect(endCallsReceived(fake.transport.stats(callId))).toHaveLength(1)
      expect((await server.exited).code).toBe(0)
      // The logs name calls by their ids only: never the key or the call's socket address.
      expect(server.output()).toContain(callId)
      expect(server.output()).not.toContain(fake.apiKey)
      expect(server.output()).not.toContain('/transport')
    } finally {
      if (server.child.exitCode === null) server.child.kill('SIGKILL')
    }
  })
})

describe('one voice call per person across servers (Redis)', () => {
  /** Two listening servers sharing one Redis (each pushed to `servers` as it starts, for the caller to close). */
  async function serversSharing(shared: Awaited<ReturnType<typeof createTestRedis>>, servers: FastifyInstance[]): Promise<[FastifyInstance, FastifyInstance]> {
    for (let i = 0; i < 2; i++) {
      const serverPort = await freePort()
      const server = await buildTestApp({
        database,
        redis: shared.redis,
        redisPrefix: shared.prefix,
        bullmqPrefix: `${shared.prefix}bull`,
        clock,
        timers: timers.timers,
        env: { APP_URL: `http://127.0.0.1:${serverPort}`, VAPI_API_KEY: fake.apiKey, VAPI_API_URL: fake.url, VAPI_ASSISTANT_ID: 'asst-coach' },
      })
      await server.listen({ port: serverPort, host: '127.0.0.1' })
      servers.push(server)
    }
    return servers as [FastifyInstance, FastifyInstance]
  }

  it('a second server sharing Redis refuses a second call of the same person', async () => {
    const shared = await createTestRedis()
    const servers: FastifyInstance[] = []
    try {
      const [a, b] = await serversSharing(shared, servers)
      const person = await signedInUser(a, { paid: 'basic' })
      const onA = await VoiceClient.open(`ws://127.0.0.1:${(a.server.address() as { port: number }).port}/api/voice`, { cookie: person.cookie, origin: a.config.appOrigin })
      const onB = await VoiceClient.open(`ws://127.0.0.1:${(b.server.address() as { port: number }).port}/api/voice`, { cookie: person.cookie, origin: b.config.appOrigin })
      clients.push(onA, onB)
      const connected = fake.transport.connected()
      onA.send({ type: 'start', v: 1 })
      await onA.next('status', (m) => m.status === 'listening')
      await connected
      onB.send({ type: 'start', v: 1 })
      expect(await onB.next('error')).toMatchObject({ code: 'VOICE_SESSION_ACTIVE' })
      onA.send({ type: 'end' })
      await onA.next('ended')
      onB.send({ type: 'start', v: 1 })
      await onB.next('status', (m) => m.status === 'listening')
      onB.send({ type: 'end' })
      await onB.next('ended')
    } finally {
      for (const server of servers) await server.close()
      await shared.destroy()
    }
  })

  it('a sign-out on one server closes that session’s sockets on the other at once, not another session’s', async () => {
    const shared = await createTestRedis()
    const servers: FastifyInstance[] = []
    try {
      const [a, b] = await serversSharing(shared, servers)
      const urlOf = (server: FastifyInstance) => `127.0.0.1:${(server.server.address() as { port: number }).port}`
      const person = await signedInUser(a, { paid: 'basic' })
      const other = await createSession(app.db, clock, person.user.id)
      const onB = await VoiceClient.open(`ws://${urlOf(b)}/api/voice`, { cookie: person.cookie, origin: b.config.appOrigin })
      const otherOnB = await VoiceClient.open(`ws://${urlOf(b)}/api/voice`, { cookie: `session=${other.token}`, origin: b.config.appOrigin })
      clients.push(onB, otherOnB)
      const connected = fake.transport.connected()
      onB.send({ type: 'start', v: 1 })
      await onB.next('status', (m) => m.status === 'listening')
      const callId = await connected

      // Signed out on server A; no clock moves, so B's once-a-minute session check plays no part.
      const response = await fetch(`http://${urlOf(a)}/api/auth/logout`, { method: 'POST', headers: { cookie: person.cookie, origin: a.config.appOrigin } })
      expect(response.status).toBe(204)
      expect(await endedOf(onB)).toMatchObject({ reason: 'signed-out' })
      expect(await onB.whenClosed()).toEqual({ code: 1000, reason: 'signed-out' })
      expect(endCallsReceived(fake.transport.stats(callId))).toHaveLength(1)
      expect(otherOnB.closed).toBeNull()
    } finally {
      for (const server of servers) await server.close()
      await shared.destroy()
    }
  })

  it('the sockets open from one address are counted across servers: one past the cap, on either, is 429', async () => {
    const shared = await createTestRedis()
    const servers: FastifyInstance[] = []
    try {
      const [a, b] = await serversSharing(shared, servers)
      for (const server of servers) server.services.voice.settings.connectionsPerIp = 3
      const person = await signedInUser(a, { paid: 'basic' })
      const urlOf = (server: FastifyInstance) => `ws://127.0.0.1:${(server.server.address() as { port: number }).port}/api/voice`
      const headersOn = (server: FastifyInstance) => ({ cookie: person.cookie, origin: server.config.appOrigin })
      const onA = await VoiceClient.open(urlOf(a), headersOn(a))
      const onB = [await VoiceClient.open(urlOf(b), headersOn(b)), await VoiceClient.open(urlOf(b), headersOn(b))]
      clients.push(onA, ...onB)
      for (const server of [a, b]) {
        const refusal = await VoiceClient.connect(urlOf(server), headersOn(server))
        if (refusal instanceof VoiceClient) throw new Error('a fourth socket from the address was accepted')
        refusals.push(refusal)
        expect(refusal.status).toBe(429)
      }
      // One closes on A: one more may open, on B.
      await onA.close()
      await expect.poll(async () => shared.redis.zcard(`${shared.prefix}voice:ip:127.0.0.1`)).toBe(2)
      clients.push(await VoiceClient.open(urlOf(b), headersOn(b)))
    } finally {
      for (const server of servers) await server.close()
      await shared.destroy()
    }
  })

  it("a person's sockets are counted across servers: one past the cap, on either, is 429; a dead server's slots lapse", async () => {
    const shared = await createTestRedis()
    const servers: FastifyInstance[] = []
    try {
      const [a, b] = await serversSharing(shared, servers)
      for (const server of servers) server.services.voice.settings.connectionsPerUser = 2
      const person = await signedInUser(a, { paid: 'basic' })
      const urlOf = (server: FastifyInstance) => `ws://127.0.0.1:${(server.server.address() as { port: number }).port}/api/voice`
      const headersOn = (server: FastifyInstance, address: string) => ({ cookie: person.cookie, origin: server.config.appOrigin, 'x-forwarded-for': address })
      clients.push(await VoiceClient.open(urlOf(a), headersOn(a, '198.51.100.11')), await VoiceClient.open(urlOf(b), headersOn(b, '198.51.100.12')))
      for (const server of [a, b]) {
        const refusal = await VoiceClient.connect(urlOf(server), headersOn(server, '198.51.100.13'))
        if (refusal instanceof VoiceClient) throw new Error("a third socket of the person's was accepted")
        refusals.push(refusal)
        expect(refusal.status).toBe(429)
        expect(JSON.parse(refusal.body).error.message).toBe('Too many voice connections are open for your account. Close a tab and try again.')
      }
      // A server that dies renews nothing: its sockets' slots lapse (here, made to), and the person may open more.
      const key = `${shared.prefix}voice:user:${person.user.id}`
      expect(await shared.redis.zcard(key)).toBe(2)
      for (const holder of await shared.redis.zrange(key, '0', '-1')) await shared.redis.zadd(key, 1, holder)
      clients.push(await VoiceClient.open(urlOf(b), headersOn(b, '198.51.100.13')))
    } finally {
      for (const server of servers) await server.close()
      await shared.destroy()
    }
  })

  it('a slot: taken up to the cap, kept by renewal (held again if it lapsed), freed by release or when it lapses', async () => {
    const shared = await createTestRedis()
    try {
      const slots = redisSlots(shared.redis, shared.prefix)
      expect(await slots.take('198.51.100.7', 's1', 2, 60_000)).toBe(true)
      expect(await slots.take('198.51.100.7', 's2', 2, 60_000)).toBe(true)
      expect(await slots.take('198.51.100.7', 's3', 2, 60_000)).toBe(false)
      // Another address has its own.
      expect(await slots.take('198.51.100.8', 's3', 2, 60_000)).toBe(true)
      await slots.release('198.51.100.7', 's1')
      expect(await slots.take('198.51.100.7', 's3', 2, 60_000)).toBe(true)
      // A slot that lapses (its server died: nobody renews it) frees its place.
      await shared.redis.zadd(`${shared.prefix}198.51.100.7`, 1, 's2')
      expect(await slots.take('198.51.100.7', 's4', 2, 60_000)).toBe(true)
      expect(await shared.redis.zrange(`${shared.prefix}198.51.100.7`, '0', '-1')).toEqual(['s3', 's4'])
      // Renewed after it lapsed, a slot counts again (its socket is open).
      await shared.redis.zrem(`${shared.prefix}198.51.100.7`, 's4')
      await slots.renew('198.51.100.7', 's4', 60_000)
      expect(await slots.take('198.51.100.7', 's5', 2, 60_000)).toBe(false)
      expect(await shared.redis.pttl(`${shared.prefix}198.51.100.7`)).toBeGreaterThan(50_000)
    } finally {
      await shared.destroy()
    }
  })

  it('the lease: held by one owner, renewed (taken again if it lapsed untaken), released by its owner only', async () => {
    const shared = await createTestRedis()
    try {
      const locks = redisLocks(shared.redis, shared.prefix)
      expect(await locks.acquire('u1', 'call-a', 60_000)).toBe(true)
      expect(await locks.acquire('u1', 'call-b', 60_000)).toBe(false)
      await locks.release('u1', 'call-b')
      expect(await locks.acquire('u1', 'call-b', 60_000)).toBe(false)
      await locks.renew('u1', 'call-a', 120_000)
      expect(await shared.redis.pttl(`${shared.prefix}u1`)).toBeGreaterThan(60_000)
      await shared.redis.del(`${shared.prefix}u1`)
      await locks.renew('u1', 'call-a', 60_000)
      expect(await shared.redis.get(`${shared.prefix}u1`)).toBe('call-a')
      await locks.release('u1', 'call-a')
      expect(await locks.acquire('u1', 'call-b', 60_000)).toBe(true)
    } finally {
      await shared.destroy()
    }
  })
})
