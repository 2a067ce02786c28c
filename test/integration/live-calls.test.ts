/**
 * Watching a phone call live (issue 14): a call placed through the official SDK against the Vapi
 * fake, its webhooks posted to the listening app, and `ws` clients on `GET /api/voice` as the
 * person's dashboards (`watch-calls`, `end-phone-call`). Embedded mode (the in-process bus, jobs
 * run when the test moves its clock), and two servers sharing Redis (the webhook lands on one, the
 * dashboard is on the other, a BullMQ worker applies the statuses). Every frame a dashboard gets is
 * checked against the protocol and scanned for anything of Vapi's.
 */
import { asc, eq, isNull } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { Redis } from 'ioredis'
import { pino } from 'pino'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { VoiceServerMessage } from '#common/voice'
import { coachingCallEvents, coachingCalls, profiles, vapiWebhookEvents } from '#server/db/schema'
import { FakeVapi } from '../fakes/vapi'
import { buildTestApp } from '../helpers/app'
import { fakeClock } from '../helpers/clock'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { freePort } from '../helpers/process'
import { createTestRedis } from '../helpers/redis'
import { manualTimers } from '../helpers/timers'
import { signedInUser, type SignedIn } from '../helpers/users'
import { VoiceClient } from '../helpers/voice-client'
import { createWebhookCredential } from '../helpers/vapi-credential'
import { startWorker } from '../../worker/worker'

const SECRET = 'whsec-live-calls-0123456789abcdef0123'

let database: TestDatabase
let fake: FakeVapi
let clock: ReturnType<typeof fakeClock>
let timers: ReturnType<typeof manualTimers>
/** Every dashboard socket of the test, scanned after it. */
let clients: VoiceClient[]

beforeAll(async () => {
  database = await createTestDatabase()
})

afterAll(async () => {
  await database?.destroy()
})

beforeEach(async () => {
  clock = fakeClock(new Date('2026-06-15T14:00:00Z'))
  timers = manualTimers(clock)
  fake = await FakeVapi.start({ clock })
  await createWebhookCredential(fake, SECRET)
  clients = []
})

afterEach(async () => {
  fake.calls.releaseHolds()
  for (const client of clients) if (!client.closed) await client.close()
  await fake.close()
  // Nothing of Vapi's reached a dashboard: not the key, not its address, no call URL, no Vapi call id.
  const vapiIds = fake.calls.list().map((call) => call.id)
  const secrets = [fake.apiKey, new URL(fake.url).host, '/control', '/listen', 'controlUrl', 'listenUrl', 'monitor', 'vapi', ...vapiIds]
  for (const client of clients) {
    for (const frame of client.frames) {
      const text = frame.kind === 'json' ? frame.raw : frame.data.toString('latin1')
      for (const secret of secrets) expect(text.toLowerCase(), `a frame holds ${secret}`).not.toContain(secret.toLowerCase())
    }
  }
})

function vapiEnv(appUrl: string): Record<string, string> {
  return { APP_URL: appUrl, VAPI_API_KEY: fake.apiKey, VAPI_API_URL: fake.url, VAPI_ASSISTANT_ID: 'asst-coach', VAPI_PHONE_NUMBER_ID: 'pn-coach', VAPI_WEBHOOK_SECRET: SECRET }
}

/** A paid person who may be called (onboarded, with a phone number), signed in on `app`. */
async function callablePerson(app: FastifyInstance): Promise<SignedIn> {
  const person = await signedInUser(app, { paid: 'basic', fullName: 'Avery Brooks' })
  await database.db.update(profiles).set({ onboardingCompleted: true }).where(eq(profiles.id, person.user.id))
  return person
}

/** A dashboard: a socket on `app` that sent watch-calls. */
async function dashboard(app: FastifyInstance, person: SignedIn): Promise<VoiceClient> {
  const port = (app.server.address() as { port: number }).port
  const client = await VoiceClient.open(`ws://127.0.0.1:${port}/api/voice`, { cookie: person.cookie, origin: app.config.appOrigin })
  clients.push(client)
  await client.next('hello')
  client.send({ type: 'watch-calls' })
  return client
}

type PhoneCall = Extract<VoiceServerMessage, { type: 'phone-call' }>
type PhoneTranscript = Extract<VoiceServerMessage, { type: 'phone-transcript' }>
const phoneCalls = (client: VoiceClient) => client.messages.filter((m): m is PhoneCall => m.type === 'phone-call')
const transcripts = (client: VoiceClient) => client.messages.filter((m): m is PhoneTranscript => m.type === 'phone-transcript')
const livePhoneMessages = (client: VoiceClient) => client.messages.filter((m) => m.type === 'phone-call' || m.type === 'phone-transcript')

/** The fake's answered call, as the person hears it (its script). */
const SPOKEN = [
  ['assistant', /^Hi Avery, this is your Momentum coach/],
  ['user', /^Pretty good, about a \d+ out of 10\./],
  ['assistant', /^Great\. What is one thing you will do before we talk again\?$/],
  ['user', /./],
  ['assistant', /^Sounds like a plan\. Talk soon, Avery!$/],
] as const

function expectSpoken(lines: PhoneTranscript[], callId: string): void {
  expect(lines).toHaveLength(SPOKEN.length)
  lines.forEach((line, index) => {
    expect(line.callId).toBe(callId)
    expect(line.role).toBe(SPOKEN[index]![0])
    expect(line.text).toMatch(SPOKEN[index]![1])
  })
}

describe('embedded (one server, the in-process bus)', () => {
  let app: FastifyInstance

  beforeEach(async () => {
    const port = await freePort()
    app = await buildTestApp({ database, clock, timers: timers.timers, env: vapiEnv(`http://127.0.0.1:${port}`) })
    await app.listen({ port, host: '127.0.0.1' })
  })

  afterEach(async () => {
    await app.close()
  })

  /** Runs the jobs due now (the webhooks' vapi-event jobs) until every stored message is applied. */
  async function applyWebhooks(): Promise<void> {
    for (let round = 0; round < 50; round++) {
      timers.advanceTo(clock.now())
      await app.jobRunner!.drain()
      const pending = await database.db.select({ id: vapiWebhookEvents.id }).from(vapiWebhookEvents).where(isNull(vapiWebhookEvents.processedAt))
      if (pending.length === 0) return
    }
    throw new Error('the webhooks were not applied in 50 rounds')
  }

  /** "Call me now" for the person; the fake plays the call until it is held before its end. */
  async function placeHeldCall(person: SignedIn): Promise<{ callId: string; vapiCallId: string }> {
    const hold = fake.calls.holdBefore('status-update:ended')
    const response = await app.inject({ method: 'POST', url: '/api/calls/test', headers: person.headers })
    expect(response.statusCode, response.body).toBe(202)
    const { callId } = response.json() as { callId: string }
    // The place-call job dials; the fake answers, then plays the call up to its end and waits there.
    timers.advanceTo(clock.now())
    await app.jobRunner!.drain()
    const held = await hold.reached
    return { callId, vapiCallId: held.callId }
  }

  it('shows a dashboard the call as it happens: the transcript at once, the status once applied, then the end', async () => {
    const person = await callablePerson(app)
    const watching = await dashboard(app, person)
    const { callId } = await placeHeldCall(person)

    // Every final line was published when its webhook was acknowledged, before any job ran: the
    // statuses (stored, applied by jobs) are not out yet.
    await sync(watching)
    expectSpoken(transcripts(watching), callId)
    expect(phoneCalls(watching)).toEqual([])

    await applyWebhooks()
    await watching.next('phone-call', (m) => m.status === 'in-progress')
    // queued was recorded by the dialler itself (no move to tell); then ringing and in progress.
    // The two webhooks' jobs run side by side (the queue's concurrency): when in progress is applied
    // first, ringing arrives late, moves nothing and is not told. Only forward moves are told.
    const told = phoneCalls(watching)
    expect([
      [
        { type: 'phone-call', callId, status: 'ringing', endedReason: null },
        { type: 'phone-call', callId, status: 'in-progress', endedReason: null },
      ],
      [{ type: 'phone-call', callId, status: 'in-progress', endedReason: null }],
    ]).toContainEqual(told)

    // The coach hangs up: the end is applied and told.
    fake.calls.releaseHolds()
    await fake.settled()
    await applyWebhooks()
    const ended = await watching.next('phone-call', (m) => m.status === 'ended')
    expect(ended).toEqual({ type: 'phone-call', callId, status: 'ended', endedReason: 'customer-ended-call' })
    // The end-of-call report (applied too) tells nothing more; the whole transcript is in the record.
    expect(phoneCalls(watching)).toHaveLength(told.length + 1)
    const [row] = await database.db.select().from(coachingCalls).where(eq(coachingCalls.id, callId))
    expect(row).toMatchObject({ completionStatus: 'completed' })
    expect(row!.transcript).toContain('Sounds like a plan')
    expect(watching.closed).toBeNull()
  })

  it('gives a dashboard opened mid-call the call as it is now, and only its own person’s calls', async () => {
    const person = await callablePerson(app)
    const other = await callablePerson(app)
    const othersDashboard = await dashboard(app, other)
    const { callId } = await placeHeldCall(person)
    await applyWebhooks()

    const late = await dashboard(app, person)
    expect(await late.next('phone-call')).toEqual({ type: 'phone-call', callId, status: 'in-progress', endedReason: null })
    // Nothing of someone else's call reached the other person's dashboard.
    await sync(othersDashboard)
    expect(livePhoneMessages(othersDashboard)).toEqual([])
    // A second dashboard of the same person, opened now: the same state, nothing earlier.
    const again = await dashboard(app, person)
    await again.next('phone-call')
    expect(livePhoneMessages(again)).toEqual([{ type: 'phone-call', callId, status: 'in-progress', endedReason: null }])
  })

  it('ends the call from the dashboard through Vapi’s call control; refuses anyone else’s call and a call that is over', async () => {
    const person = await callablePerson(app)
    const other = await callablePerson(app)
    const watching = await dashboard(app, person)
    const { callId, vapiCallId } = await placeHeldCall(person)
    await applyWebhooks()

    // Another person cannot end it (nor learn that it exists), nor can an id that is no call.
    const stranger = await dashboard(app, other)
    stranger.send({ type: 'end-phone-call', callId })
    expect(await stranger.next('error')).toEqual({ type: 'error', code: 'NOT_FOUND', message: 'This call could not be found.' })
    stranger.send({ type: 'end-phone-call', callId: 'not-a-call' })
    expect(await stranger.next('error', (m) => m.code === 'VALIDATION_FAILED')).toMatchObject({ message: expect.stringMatching(/^callId:/) })
    expect(fake.transport.controlMessages(vapiCallId)).toEqual([])

    // The person ends it: the fake's control URL hears end-call, the call ends, the webhooks tell.
    watching.send({ type: 'end-phone-call', callId })
    await fake.settled()
    expect(fake.transport.controlMessages(vapiCallId)).toEqual([{ type: 'end-call' }])
    await applyWebhooks()
    expect(await watching.next('phone-call', (m) => m.status === 'ended')).toEqual({ type: 'phone-call', callId, status: 'ended', endedReason: 'customer-ended-call' })
    const [row] = await database.db.select().from(coachingCalls).where(eq(coachingCalls.id, callId))
    expect(row).toMatchObject({ completionStatus: 'completed', endedReason: 'customer-ended-call' })
    const timeline = await database.db.select().from(coachingCallEvents).where(eq(coachingCallEvents.callId, callId)).orderBy(asc(coachingCallEvents.at), asc(coachingCallEvents.id))
    expect(timeline.map((event) => event.type)).toContain('end_requested')
    expect(errorsOf(watching)).toEqual([])

    // Over: a second end is refused, and Vapi is not asked again.
    watching.send({ type: 'end-phone-call', callId })
    expect(await watching.next('error')).toEqual({ type: 'error', code: 'CALL_NOT_LIVE', message: 'This call is not under way.' })
    expect(fake.transport.controlMessages(vapiCallId)).toEqual([{ type: 'end-call' }])
  })

  it('publishes final lines only, of live phone calls only, once each', async () => {
    const person = await callablePerson(app)
    const watching = await dashboard(app, person)
    // Every webhook comes twice: each line is still told once.
    fake.calls.configureWebhooks({ duplicates: 1 })
    const { callId, vapiCallId } = await placeHeldCall(person)
    await sync(watching)
    expectSpoken(transcripts(watching), callId)
    await applyWebhooks()

    const post = (message: Record<string, unknown>) =>
      app.inject({ method: 'POST', url: '/api/webhooks/vapi', headers: { 'x-vapi-secret': SECRET, 'content-type': 'application/json' }, payload: { message } })
    const call = { id: vapiCallId, assistantOverrides: { metadata: { callId } } }
    const line = { type: 'transcript', role: 'user', transcriptType: 'final', transcript: 'One more thing.', timestamp: 1_781_532_000_000, call }
    // A partial, an unknown role, an empty line: nothing.
    for (const message of [
      { ...line, transcriptType: 'partial' },
      { ...line, role: 'system' },
      { ...line, transcript: '   ' },
    ]) {
      const response = await post(message)
      expect(response.statusCode).toBe(200)
    }
    // A final line, twice (same instant): once. The bracketed type Vapi may use: once too.
    expect((await post(line)).statusCode).toBe(200)
    expect((await post(line)).statusCode).toBe(200)
    expect((await post({ ...line, type: 'transcript[transcriptType="final"]', transcript: 'And another.', timestamp: 1_781_532_001_000 })).statusCode).toBe(200)
    // A line claiming the call under another Vapi id: not this call's.
    expect((await post({ ...line, call: { id: 'another-vapi-call', assistantOverrides: { metadata: { callId } } }, timestamp: 1_781_532_002_000 })).statusCode).toBe(200)
    await sync(watching)
    expect(transcripts(watching).slice(SPOKEN.length).map((m) => m.text)).toEqual(['One more thing.', 'And another.'])
    // Transcript lines are not stored one by one.
    const stored = await database.db.select().from(vapiWebhookEvents).where(eq(vapiWebhookEvents.vapiCallId, vapiCallId))
    expect(stored.map((event) => event.type).filter((type) => type.startsWith('transcript'))).toEqual([])

    // Once the call is over, a late line is not told.
    fake.calls.releaseHolds()
    await fake.settled()
    await applyWebhooks()
    await watching.next('phone-call', (m) => m.status === 'ended')
    expect((await post({ ...line, transcript: 'Too late.', timestamp: 1_781_532_003_000 })).statusCode).toBe(200)
    await sync(watching)
    expect(transcripts(watching).map((m) => m.text)).not.toContain('Too late.')
  })
})

describe('two servers sharing Redis', () => {
  it('brings a call whose webhooks land on one server to a dashboard on the other, and ends it from there', async () => {
    const shared = await createTestRedis()
    const bullmqPrefix = `${shared.prefix}bull`
    const servers: FastifyInstance[] = []
    const workerConnection = new Redis(shared.url, { maxRetriesPerRequest: null })
    let worker: Awaited<ReturnType<typeof startWorker>> | undefined
    try {
      // Vapi's webhooks go to A (its APP_URL); the person's dashboard is on B.
      const portA = await freePort()
      for (const port of [portA, await freePort()]) {
        const server = await buildTestApp({ database, redis: shared.redis, redisPrefix: shared.prefix, bullmqPrefix, clock, env: vapiEnv(`http://127.0.0.1:${portA}`) })
        await server.listen({ port, host: '127.0.0.1' })
        servers.push(server)
      }
      const [a, b] = servers as [FastifyInstance, FastifyInstance]
      // A worker (as `npm run worker`) places the call and applies the stored statuses.
      worker = await startWorker({ services: a.services, connection: workerConnection, log: pino({ level: 'silent' }), prefix: bullmqPrefix })

      const person = await callablePerson(b)
      const watching = await dashboard(b, person)
      // Every webhook comes twice (each line is still told once: the key is in Redis).
      fake.calls.configureWebhooks({ duplicates: 1 })
      const hold = fake.calls.holdBefore('status-update:ended')
      const response = await a.inject({ method: 'POST', url: '/api/calls/test', headers: { cookie: person.cookie, origin: a.config.appOrigin } })
      expect(response.statusCode, response.body).toBe(202)
      const { callId } = response.json() as { callId: string }
      const { callId: vapiCallId } = await hold.reached

      await watching.next('phone-call', (m) => m.status === 'in-progress')
      await watching.next('phone-transcript', (m) => /^Sounds like a plan/.test(m.text))
      await sync(watching)
      expectSpoken(transcripts(watching), callId)
      // Only forward moves are told: ringing too, unless its job ran after in progress's.
      expect([['ringing', 'in-progress'], ['in-progress']]).toContainEqual(phoneCalls(watching).map((m) => m.status))
      // The webhooks all went to A.
      expect(fake.calls.emitter.deliveries.every((delivery) => delivery.url === `http://127.0.0.1:${portA}/api/webhooks/vapi`)).toBe(true)

      // Ended from B: B asks Vapi's control URL; the end comes back through A and the worker.
      watching.send({ type: 'end-phone-call', callId })
      const ended = await watching.next('phone-call', (m) => m.status === 'ended')
      expect(ended).toEqual({ type: 'phone-call', callId, status: 'ended', endedReason: 'customer-ended-call' })
      // Published after every line, on the same connection: no copy of a line came later.
      expectSpoken(transcripts(watching), callId)
      expect(fake.transport.controlMessages(vapiCallId)).toEqual([{ type: 'end-call' }])
      expect(errorsOf(watching)).toEqual([])
      // One channel per user under the servers' prefix; none left once the dashboard is gone.
      expect(await shared.redis.pubsub('NUMSUB', `${shared.prefix}live:${person.user.id}`)).toEqual([`${shared.prefix}live:${person.user.id}`, 1])
      await watching.close()
      await waitFor(async () => ((await shared.redis.pubsub('NUMSUB', `${shared.prefix}live:${person.user.id}`)) as [string, number])[1] === 0)
    } finally {
      await worker?.close()
      await workerConnection.quit()
      for (const server of servers) await server.close()
      await shared.destroy()
    }
  })
})

const errorsOf = (client: VoiceClient) => client.messages.filter((m) => m.type === 'error')

/**
 * Resolves once every frame the server sent this socket so far has arrived: a ping's pong comes
 * after them on the same connection.
 */
function sync(client: VoiceClient): Promise<void> {
  return new Promise((resolve) => {
    client.socket.once('pong', () => resolve())
    client.socket.ping()
  })
}

/** Polls a condition Redis settles on its own (an UNSUBSCRIBE's effect), by asking again, not by waiting a time. */
async function waitFor(condition: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 1000; i++) {
    if (await condition()) return
    await new Promise((resolve) => setImmediate(resolve))
  }
  throw new Error('the condition never held')
}
