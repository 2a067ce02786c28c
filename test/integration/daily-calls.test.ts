/**
 * The daily calls' whole loop in the embedded mode, on a test clock: the tick enqueues, the
 * dialler places through the official SDK against the Vapi fake, the fake plays its scenario and
 * posts its webhooks to the listening app, the job applies them; retries, the sweep and faults.
 */
import { createHmac } from 'node:crypto'
import { connect } from 'node:net'
import { and, eq } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { beforeEach, describe, expect, it } from 'vitest'
import { coachSessions, coachingCallEvents, coachingCalls, memoryEpisodes, memoryFacts, profiles, subscribers, vapiWebhookEvents } from '#server/db/schema'
import { UNAUTHENTIC_PER_MINUTE } from '#server/routes/webhooks-vapi'
import type { FakeVapi } from '../fakes/vapi'
import { vapiResources } from '../fakes/vapi-resources'
import { buildTestApp } from '../helpers/app'
import type { fakeClock } from '../helpers/clock'
import type { TestDatabase } from '../helpers/db'
import { insertUser, setConsent } from '../helpers/factories'
import type { manualTimers } from '../helpers/timers'
import { signedInUser } from '../helpers/users'
import { createWebhookCredential } from '../helpers/vapi-credential'
import { CALLS_WEBHOOK_SECRET, useCallsHarness } from '../helpers/calls-harness'

const SECRET = CALLS_WEBHOOK_SECRET
const at = (iso: string) => new Date(iso)

const h = useCallsHarness()
let database: TestDatabase
let fake: FakeVapi
let app: FastifyInstance
let clock: ReturnType<typeof fakeClock>
let timers: ReturnType<typeof manualTimers>
let port: number
let credentialId: string
let errorLogs: Array<Record<string, unknown>>

beforeEach(() => {
  ;({ database, fake, app, clock, timers, port, credentialId, errorLogs } = h)
})

const { settle, advanceTo, person, callsOf, timelineOf, dialsTo } = h

describe('a daily call', () => {
  it('is placed at the person’s local time, answered, and recorded with its report and timeline', async () => {
    const { user, phone } = await person({ time: '10:00' })
    await advanceTo(at('2026-06-15T13:59:59Z'))
    expect(dialsTo(phone)).toHaveLength(0)

    await advanceTo(at('2026-06-15T14:00:00Z'))
    const [dial] = dialsTo(phone)
    expect(dial).toBeDefined()
    // Placed through the SDK once, with the plan's limit, our call id and the person's context.
    expect(dial!.assistantId).toBe('asst-coach')
    expect(dial!.assistantOverrides?.maxDurationSeconds).toBe(300)
    // The status and the report keep the record; the final transcript lines go to an open dashboard.
    expect(dial!.assistantOverrides?.serverMessages).toEqual(['status-update', 'transcript[transcriptType="final"]', 'end-of-call-report'])
    // No 1-on-1 with a human coach yet: that variable is empty.
    expect(dial!.assistantOverrides?.variableValues).toMatchObject({ callKind: 'daily check-in', timezone: 'America/New_York', localDate: '2026-06-15', lastCoachSession: '' })
    const [call] = await callsOf(user.id)
    expect(dial!.assistantOverrides?.metadata).toMatchObject({ callId: call!.id, userId: user.id, slot: 'daily', localDate: '2026-06-15', attempt: 0 })
    expect(dial!.name).toBe(`mc ${call!.id}`)

    await advanceTo(at('2026-06-15T14:10:00Z'))
    const [done] = await callsOf(user.id)
    expect(done).toMatchObject({ completionStatus: 'completed', endedReason: 'customer-ended-call', vapiCallId: dial!.id, slot: 'daily', localDate: '2026-06-15', attempt: 0 })
    expect(done!.callDuration).toBeGreaterThan(0)
    expect(done!.summary).toEqual(expect.any(String))
    expect(done!.areasDiscussed.length).toBeGreaterThan(0)
    expect(done!.transcript).toEqual(expect.any(String))
    expect(await timelineOf(done!.id)).toEqual(['scheduled', 'dialled', 'queued', 'ringing', 'answered', 'ended', 'report'])
    // Exactly one dial, one call, one record.
    expect(dialsTo(phone)).toHaveLength(1)
    expect(await callsOf(user.id)).toHaveLength(1)
  })

  it("carries the last 1-on-1 with the human coach, as the coach wrote it up, into the call's variables (docs/decisions/082)", async () => {
    const { user, phone } = await person({ time: '10:00', plan: 'elite' })
    const session = (startsAt: string, summary: string, commitments: string[]) => ({
      memberUserId: user.id,
      kind: 'monthly' as const,
      status: 'completed' as const,
      startsAt: at(startsAt),
      endsAt: new Date(at(startsAt).getTime() + 45 * 60_000),
      blockedUntil: new Date(at(startsAt).getTime() + 45 * 60_000),
      memberTimeZone: 'America/New_York',
      month: startsAt.slice(0, 7),
      counts: true,
      summary,
      commitments,
      createdAt: at(startsAt),
      updatedAt: at(startsAt),
    })
    // The later one is the last (late on 12 June in New York is 13 June in UTC).
    await database.db.insert(coachSessions).values([session('2026-05-20T15:00:00Z', 'Set up the budget.', []), session('2026-06-13T01:00:00Z', 'Planned the half marathon.', ['Run 3 times', 'Sleep by 11'])])
    await advanceTo(at('2026-06-15T13:59:59Z'))
    await advanceTo(at('2026-06-15T14:00:00Z'))
    expect(dialsTo(phone)[0]!.assistantOverrides?.variableValues).toMatchObject({ lastCoachSession: 'June 12: Planned the half marathon. Agreed: Run 3 times; Sleep by 11.' })
  })

  it('carries the coach brief (docs/decisions/083): what a chat taught is in the call, and what the call learned joins the memory with its report', async () => {
    const { user, phone } = await person({
      time: '10:00',
      scenario: {
        name: 'answered',
        result: {
          factsLearned: [{ statement: 'Is training for a 10k in April', subject: 'fitness', stated: true }],
          factsChanged: [{ previous: 'Her daughter starts school on Monday', statement: 'Her daughter starts school on Wednesday', subject: 'family', stated: true }],
        },
      },
    })
    await h.app.services.memory.record({
      userId: user.id,
      channel: 'chat',
      sourceId: '6c0e7c1e-31c4-4a39-9c8e-0d3b5b0f2d11',
      key: '6c0e7c1e-31c4-4a39-9c8e-0d3b5b0f2d11:m1',
      occurredAt: '2026-06-14T20:00:00Z',
      summary: 'They talked about the week ahead.',
      learned: [{ statement: 'Her daughter starts school on Monday', subject: 'family', stated: true }],
      changed: [],
    })
    await advanceTo(at('2026-06-15T13:59:59Z'))
    await advanceTo(at('2026-06-15T14:00:00Z'))
    const brief = String(dialsTo(phone)[0]!.assistantOverrides?.variableValues?.coachBrief)
    expect(brief).toContain('Her daughter starts school on Monday')
    expect(brief).toContain('They talked about the week ahead.')
    await advanceTo(at('2026-06-15T14:10:00Z'))
    const [call] = await callsOf(user.id)
    expect(call!.completionStatus).toBe('completed')
    const facts = await h.database.db.select().from(memoryFacts).where(eq(memoryFacts.userId, user.id))
    const current = facts.filter((fact) => fact.validTo === null).map((fact) => [fact.statement, fact.sourceChannel, fact.sourceId])
    expect(current.sort()).toEqual([
      ['Her daughter starts school on Wednesday', 'call', call!.id],
      ['Is training for a 10k in April', 'call', call!.id],
    ])
    const [episode] = await h.database.db.select().from(memoryEpisodes).where(and(eq(memoryEpisodes.userId, user.id), eq(memoryEpisodes.channel, 'call')))
    expect(episode).toMatchObject({ sourceId: call!.id, summary: call!.summary })
  })

  it('gives Premium two calls a day (the evening check-in at 7:00 PM by default) and a goal session first in the month', async () => {
    const { user, phone } = await person({ plan: 'premium', time: '10:00' })
    await advanceTo(at('2026-06-15T23:30:00Z'))
    const dials = dialsTo(phone)
    expect(dials.map((dial) => dial.assistantOverrides?.metadata?.slot)).toEqual(['daily', 'evening'])
    // 7:00 PM EDT = 23:00 UTC.
    expect(dials[1]!.createdAt).toBe('2026-06-15T23:00:00.000Z')
    // The month's first call is the 30-minute goal session; the evening one is an ordinary 10.
    expect(dials.map((dial) => dial.assistantOverrides?.maxDurationSeconds)).toEqual([1800, 600])
    expect((await callsOf(user.id)).map((call) => call.kind)).toEqual(['goal_session', 'check_in'])
  })

  it("owes Premium the month's goal session until one is completed: a missed one's retry and the next day's call are goal sessions", async () => {
    const { user, phone } = await person({ plan: 'premium', time: '10:00', scenario: 'no-answer' })
    // The 10:00 goal session rings out, and so does its retry 10 minutes later; the second retry
    // (30 minutes after that) is answered.
    await advanceTo(at('2026-06-15T14:30:00Z'))
    fake.calls.setScenario(phone, 'answered')
    await advanceTo(at('2026-06-16T14:30:00Z'))
    const daily = (await callsOf(user.id)).filter((call) => call.slot === 'daily')
    expect(daily.map((call) => [call.localDate, call.attempt, call.kind, call.completionStatus, call.maxDurationSeconds])).toEqual([
      ['2026-06-15', 0, 'goal_session', 'no_answer', 1800],
      ['2026-06-15', 1, 'goal_session', 'no_answer', 1800],
      ['2026-06-15', 2, 'goal_session', 'completed', 1800],
      // Held: the next day's call is an ordinary 10 minutes.
      ['2026-06-16', 0, 'check_in', 'completed', 600],
    ])
  })

  it('is checked again just before dialling: a person who stopped paying in between is skipped, with why', async () => {
    const { user, phone } = await person({ time: '10:00' })
    await advanceTo(at('2026-06-15T13:58:00Z')) // the tick has enqueued the 10:00 call
    await database.db.update(subscribers).set({ subscribed: false }).where(eq(subscribers.userId, user.id))
    await advanceTo(at('2026-06-15T14:05:00Z'))
    expect(dialsTo(phone)).toHaveLength(0)
    const [call] = await callsOf(user.id)
    expect(call).toMatchObject({ completionStatus: 'skipped', skipReason: 'payment' })
  })

  it('is not scheduled for a person without consent, with calls paused, or without onboarding', async () => {
    const noConsent = await person({ time: '10:00' })
    await setConsent(database.db, noConsent.user.id, 'calls', false, clock.now())
    const paused = await person({ time: '10:00' })
    await database.db.update(profiles).set({ callsPausedUntil: '2026-06-16' }).where(eq(profiles.id, paused.user.id))
    const notOnboarded = await person({ time: '10:00' })
    await database.db.update(profiles).set({ onboardingCompleted: false }).where(eq(profiles.id, notOnboarded.user.id))
    await advanceTo(at('2026-06-15T14:05:00Z'))
    for (const who of [noConsent, paused, notOnboarded]) expect(dialsTo(who.phone)).toHaveLength(0)
    // The pause ends: the next day's call goes out.
    await advanceTo(at('2026-06-16T14:05:00Z'))
    expect(dialsTo(paused.phone)).toHaveLength(1)
    expect(dialsTo(noConsent.phone)).toHaveLength(0)
  })
})

describe('the retry ladder', () => {
  it('retries a call that was not answered after 10 then 30 minutes, at most twice, and records each', async () => {
    const { user, phone } = await person({ time: '10:00', scenario: 'no-answer' })
    await advanceTo(at('2026-06-15T15:00:00Z'))
    const dials = dialsTo(phone)
    expect(dials).toHaveLength(3)
    const calls = await callsOf(user.id)
    expect(calls.map((call) => [call.attempt, call.completionStatus])).toEqual([
      [0, 'no_answer'],
      [1, 'no_answer'],
      [2, 'no_answer'],
    ])
    // Each retry 10, then 30 minutes after the previous call ended.
    expect(calls[1]!.callDate.getTime() - calls[0]!.endedAt!.getTime()).toBe(10 * 60_000)
    expect(calls[2]!.callDate.getTime() - calls[1]!.endedAt!.getTime()).toBe(30 * 60_000)
    expect(await timelineOf(calls[0]!.id)).toContain('retry_scheduled')
    expect(await timelineOf(calls[2]!.id)).toContain('not_retried')
  })

  it('never places a retry outside 8 AM–9 PM local', async () => {
    const { user, phone } = await person({ time: '20:55', scenario: 'busy' })
    await advanceTo(at('2026-06-16T02:00:00Z'))
    expect(dialsTo(phone)).toHaveLength(1)
    const [call] = await callsOf(user.id)
    expect(call!.completionStatus).toBe('busy')
    const [event] = await database.db.select().from(coachingCallEvents).where(and(eq(coachingCallEvents.callId, call!.id), eq(coachingCallEvents.type, 'not_retried')))
    expect(event!.detail).toMatchObject({ reason: 'outside_allowed_hours' })
  })
})

describe("the webhook's credential", () => {
  const serverOf = (dial: { body: unknown } | undefined) => (dial?.body as { assistantOverrides: { server?: unknown } }).assistantOverrides.server

  it("a call names the credential vapi:setup made, never the secret: Vapi's call does not hold it, and its webhooks come with the credential's header", async () => {
    const { user } = await person({ time: '10:00' })
    await advanceTo(at('2026-06-15T14:10:00Z'))
    const [dial] = fake.requestsTo('POST', '/call')
    expect(serverOf(dial)).toEqual({ url: `http://127.0.0.1:${port}/api/webhooks/vapi`, credentialId, timeoutSeconds: 20 })
    expect(JSON.stringify(dial!.body)).not.toContain(SECRET)
    // What anyone who may read the account's calls sees.
    const listed = await fetch(`${fake.url}/call`, { headers: { authorization: `Bearer ${fake.apiKey}` } })
    expect(listed.status).toBe(200)
    expect(await listed.text()).not.toContain(SECRET)
    // Vapi sends the credential's header with every delivery, and the webhook accepts them.
    const deliveries = fake.calls.emitter.deliveries
    expect(deliveries.length).toBeGreaterThan(0)
    for (const delivery of deliveries) expect(delivery).toMatchObject({ outcome: 'delivered', headers: { 'X-Vapi-Secret': SECRET } })
    expect((await callsOf(user.id))[0]).toMatchObject({ completionStatus: 'completed', endedReason: 'customer-ended-call' })
    // The next day's call: the credential was found once, by its name.
    await advanceTo(at('2026-06-16T14:10:00Z'))
    const dials = fake.requestsTo('POST', '/call')
    expect(dials.length).toBeGreaterThanOrEqual(2)
    for (const each of dials) expect(serverOf(each)).toEqual({ url: `http://127.0.0.1:${port}/api/webhooks/vapi`, credentialId, timeoutSeconds: 20 })
    expect(fake.requestsTo('GET', '/credential')).toHaveLength(1)
  })

  it("without the credential (setup not run for this secret) a call names no server, the assistant's own serves it; the credential is looked for again a minute later", async () => {
    vapiResources(fake.app).credentials.clear()
    const first = await person({ time: '10:00' })
    const second = await person({ time: '10:05' })
    await advanceTo(at('2026-06-15T14:01:00Z'))
    const [dial] = fake.requestsTo('POST', '/call')
    expect(serverOf(dial)).toBeUndefined()
    expect(JSON.stringify(dial!.body)).not.toContain(SECRET)
    expect(fake.requestsTo('GET', '/credential')).toHaveLength(1)
    // Setup runs; the next call (more than a minute later) finds it.
    const created = await createWebhookCredential(fake, SECRET)
    await advanceTo(at('2026-06-15T14:06:00Z'))
    expect(serverOf(fake.requestsTo('POST', '/call')[1])).toEqual({ url: `http://127.0.0.1:${port}/api/webhooks/vapi`, credentialId: created, timeoutSeconds: 20 })
    expect(fake.requestsTo('GET', '/credential')).toHaveLength(2)
    // The second call's webhooks carry the credential's header; the first's went to the assistant's
    // own server (none in this fake), and the sweep finishes it.
    await advanceTo(at('2026-06-15T14:20:00Z'))
    expect((await callsOf(second.user.id))[0]).toMatchObject({ completionStatus: 'completed' })
    expect((await callsOf(first.user.id))[0]).toMatchObject({ completionStatus: 'completed' })
  })
})

describe('webhooks', () => {
  const post = (body: unknown, headers: Record<string, string> = { 'x-vapi-secret': SECRET }) =>
    app.inject({ method: 'POST', url: '/api/webhooks/vapi', headers: { 'content-type': 'application/json', ...headers }, payload: JSON.stringify(body) })

  it('answers 401 without the secret, with a wrong one, or with one of another length', async () => {
    const message = { message: { type: 'status-update', status: 'ringing', call: { id: 'x' } } }
    for (const headers of [{} as Record<string, string>, { 'x-vapi-secret': `${SECRET.slice(0, -1)}X` }, { 'x-vapi-secret': SECRET.slice(1) }]) {
      const response = await post(message, headers)
      expect(response.statusCode).toBe(401)
      expect(response.json()).toMatchObject({ error: { code: 'UNAUTHENTICATED' } })
    }
    expect((await post(message)).statusCode).toBe(200)
    expect((await post({ nothing: true })).statusCode).toBe(400)
  })

  it('in secret mode, refuses a forged delivery before reading its body: not for its size, and without waiting for it', async () => {
    /** A POST on a raw connection: the headers and `sent` of the body, then the answer (the rest is never sent). */
    const rawPost = (headers: Record<string, string>, sent: string) =>
      new Promise<{ status: number; head: string; closed: Promise<void> }>((resolve, reject) => {
        const socket = connect({ port, host: '127.0.0.1' })
        const closed = new Promise<void>((done) => socket.once('close', () => done()))
        let received = ''
        socket.on('error', () => {})
        socket.on('data', (chunk: Buffer) => {
          received += chunk.toString('latin1')
          const end = received.indexOf('\r\n\r\n')
          if (end >= 0) resolve({ status: Number(received.split(' ')[1]), head: received.slice(0, end).toLowerCase(), closed })
        })
        socket.once('close', () => reject(new Error('closed without an answer')))
        const lines = ['POST /api/webhooks/vapi HTTP/1.1', `Host: 127.0.0.1:${port}`, 'Content-Type: application/json', ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)]
        socket.write(`${lines.join('\r\n')}\r\n\r\n${sent}`)
      })
    // Declared past the body limit (5 MB): refused for its secret, not for its size.
    const huge = await rawPost({ 'X-Vapi-Secret': 'guess', 'Content-Length': String(6 * 1024 * 1024) }, '')
    expect(huge.status).toBe(401)
    expect(huge.head).toContain('connection: close')
    await huge.closed
    // Declared within the limit, and only its first bytes sent: answered at once, the connection closed.
    const partial = await rawPost({ 'X-Vapi-Secret': 'guess', 'Content-Length': String(4 * 1024 * 1024) }, `{"message":{"type":"status-update","pad":"${'x'.repeat(1024)}`)
    expect(partial.status).toBe(401)
    await partial.closed
    // Without the header at all: the same.
    expect((await rawPost({ 'Content-Length': String(4 * 1024 * 1024) }, '{')).status).toBe(401)
    // Vapi's own delivery (the secret) is read whole and answered as ever.
    const body = JSON.stringify({ message: { type: 'status-update', status: 'ringing', call: { id: 'not-ours' } } })
    expect((await rawPost({ 'X-Vapi-Secret': SECRET, 'Content-Length': String(Buffer.byteLength(body)), Connection: 'close' }, body)).status).toBe(200)
  })

  it('in HMAC mode, reads the body to check its signature, as before', async () => {
    const hmacApp = await buildTestApp({
      database,
      clock,
      env: { APP_URL: `http://127.0.0.1:${port}`, VAPI_API_KEY: fake.apiKey, VAPI_API_URL: fake.url, VAPI_ASSISTANT_ID: 'asst-coach', VAPI_WEBHOOK_SECRET: SECRET, VAPI_WEBHOOK_AUTH: 'hmac' },
    })
    try {
      const body = JSON.stringify({ message: { type: 'status-update', status: 'ringing', call: { id: 'not-ours' } } })
      const timestamp = String(Math.floor(clock.now().getTime() / 1000))
      const signed = (secret: string) => ({ 'x-timestamp': timestamp, 'x-signature': createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex') })
      const post = (headers: Record<string, string>) => hmacApp.inject({ method: 'POST', url: '/api/webhooks/vapi', headers: { 'content-type': 'application/json', ...headers }, payload: body })
      expect((await post(signed(SECRET))).statusCode).toBe(200)
      expect((await post(signed(`${SECRET}x`))).statusCode).toBe(401)
      // The secret in a header is not what this mode checks.
      expect((await post({ 'x-vapi-secret': SECRET })).statusCode).toBe(401)
    } finally {
      await hmacApp.close()
    }
  })

  it('never limits Vapi’s own deliveries, however many; limits those that fail authentication per address', async () => {
    const from = (remoteAddress: string, headers: Record<string, string>, n: number) =>
      app.inject({
        method: 'POST',
        url: '/api/webhooks/vapi',
        remoteAddress,
        headers: { 'content-type': 'application/json', ...headers },
        payload: JSON.stringify({ message: { type: 'transcript', transcriptType: 'final', role: 'user', transcript: `line ${n}`, timestamp: n, call: { id: 'not-ours' } } }),
      })
    const vapi = '198.51.100.7'
    for (let n = 0; n < UNAUTHENTIC_PER_MINUTE + 20; n++) expect((await from(vapi, { 'x-vapi-secret': SECRET }, n)).statusCode).toBe(200)
    const attacker = '203.0.113.9'
    for (let n = 0; n < UNAUTHENTIC_PER_MINUTE; n++) expect((await from(attacker, { 'x-vapi-secret': 'guess' }, n)).statusCode).toBe(401)
    const refused = await from(attacker, { 'x-vapi-secret': 'guess' }, 0)
    expect(refused.statusCode).toBe(429)
    expect(refused.json()).toMatchObject({ error: { code: 'RATE_LIMITED' } })
    // The same address with the secret is Vapi's delivery: still answered.
    expect((await from(attacker, { 'x-vapi-secret': SECRET }, 1)).statusCode).toBe(200)
    expect((await from(vapi, { 'x-vapi-secret': 'guess' }, 0)).statusCode).toBe(401)
  })

  it('gives one record in its final state when every message comes three times, in shuffled order', async () => {
    fake.calls.configureWebhooks({ duplicates: 3, order: 'shuffle', seed: 7 })
    const { user, phone } = await person({ time: '10:00' })
    await advanceTo(at('2026-06-15T14:10:00Z'))
    expect(dialsTo(phone)).toHaveLength(1)
    const calls = await callsOf(user.id)
    expect(calls).toHaveLength(1)
    expect(calls[0]).toMatchObject({ completionStatus: 'completed', endedReason: 'customer-ended-call' })
    expect(calls[0]!.summary).toEqual(expect.any(String))
    const timeline = await timelineOf(calls[0]!.id)
    expect(timeline.filter((type) => type === 'ended')).toHaveLength(1)
    expect(timeline.filter((type) => type === 'report')).toHaveLength(1)
  })

  it('finishes a call whose webhooks were all lost, through the sweep', async () => {
    fake.calls.configureWebhooks({ dropRate: 1 })
    const { user } = await person({ time: '10:00' })
    await advanceTo(at('2026-06-15T14:10:00Z'))
    expect((await callsOf(user.id))[0]!.completionStatus).toBe('queued')
    // Dialled at 10:00: Basic's 5 minutes + the 5-minute grace end at 14:10, so the 14:15 sweep asks Vapi.
    await advanceTo(at('2026-06-15T14:15:00Z'))
    const [call] = await callsOf(user.id)
    expect(call).toMatchObject({ completionStatus: 'completed', endedReason: 'customer-ended-call' })
    expect(call!.summary).toEqual(expect.any(String))
  })
})

describe('a lost end-of-call report', () => {
  it('is fetched by the sweep once the call has ended', async () => {
    fake.calls.configureWebhooks({ dropTypes: ['end-of-call-report'] })
    const { user } = await person({ time: '10:00' })
    await advanceTo(at('2026-06-15T14:05:00Z'))
    const [ended] = await callsOf(user.id)
    expect(ended).toMatchObject({ completionStatus: 'completed', summary: null, reportAt: null })
    await advanceTo(at('2026-06-15T14:10:00Z'))
    const [call] = await callsOf(user.id)
    expect(call!.summary).toEqual(expect.any(String))
    expect(call!.areasDiscussed.length).toBeGreaterThan(0)
    expect(await timelineOf(call!.id)).toContain('report')
  })
})

describe('a call Vapi never ends', () => {
  it('is read from Vapi 5 minutes past its longest end, and finished here as failed once Vapi still calls it live 15 minutes past it', async () => {
    const { user, phone } = await person({ time: '10:00', scenario: 'stuck' })
    await advanceTo(at('2026-06-15T14:05:00Z'))
    const [dial] = dialsTo(phone)
    const [live] = await callsOf(user.id)
    expect(live).toMatchObject({ completionStatus: 'in_progress', vapiCallId: dial!.id, dialledAt: at('2026-06-15T14:00:00Z'), maxDurationSeconds: 300 })
    const reads = () => fake.requestsTo('GET', `/call/${dial!.id}`).length

    // Dialled at 14:00 with 5 minutes: not asked about until past 14:10.
    await advanceTo(at('2026-06-15T14:10:00Z'))
    expect(reads()).toBe(0)
    // The 14:15 and 14:20 sweeps read it from Vapi, which still says in progress: it stays live.
    await advanceTo(at('2026-06-15T14:15:00Z'))
    expect(reads()).toBe(1)
    await advanceTo(at('2026-06-15T14:20:00Z'))
    expect(reads()).toBe(2)
    expect((await callsOf(user.id))[0]!.completionStatus).toBe('in_progress')
    expect(errorLogs.filter((line) => String(line.msg).includes('finished here'))).toHaveLength(0)

    // Past 14:20 (its longest end + 15 minutes): the 14:25 sweep finishes it, ending at its start
    // plus its 5 minutes (not later), with no retry, said loudly once.
    await advanceTo(at('2026-06-15T14:25:00Z'))
    const [call] = await callsOf(user.id)
    expect(call).toMatchObject({ completionStatus: 'failed', endedReason: 'call-never-ended', endedAt: at('2026-06-15T14:05:06Z'), callDuration: 300, retryAt: null })
    expect(await timelineOf(call!.id)).toEqual(['scheduled', 'dialled', 'queued', 'ringing', 'answered', 'ended'])
    expect(errorLogs.filter((line) => String(line.msg).includes('finished here'))).toEqual([expect.objectContaining({ callId: call!.id, vapiStatus: 'in-progress' })])
    expect((await fake.calls.get(dial!.id))?.status).toBe('in-progress')
    // Final: later sweeps only look for its report (for the hour they look for a missing one); nothing changes.
    await advanceTo(at('2026-06-15T14:40:00Z'))
    expect((await callsOf(user.id))[0]).toMatchObject({ completionStatus: 'failed', endedReason: 'call-never-ended', endedAt: at('2026-06-15T14:05:06Z'), reportAt: null })
    expect(await timelineOf(call!.id)).toEqual(['scheduled', 'dialled', 'queued', 'ringing', 'answered', 'ended'])
    expect(errorLogs.filter((line) => String(line.msg).includes('finished here'))).toHaveLength(1)
    expect(dialsTo(phone)).toHaveLength(1)
  })

  it('is finished as not found when Vapi has no record of it', async () => {
    const { user, phone } = await person({ time: '10:00', scenario: 'stuck' })
    await advanceTo(at('2026-06-15T14:05:00Z'))
    const [dial] = dialsTo(phone)
    // Vapi loses the call (deleted there, its status-update ended not delivered).
    fake.calls.configureWebhooks({ dropRate: 1 })
    const deleted = await fetch(`${fake.url}/call/${dial!.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${fake.apiKey}` } })
    expect(deleted.status).toBe(200)
    await advanceTo(at('2026-06-15T14:15:00Z'))
    expect((await callsOf(user.id))[0]).toMatchObject({ completionStatus: 'failed', endedReason: 'call-not-found' })
  })
})

describe('a webhook message that always fails to apply', () => {
  it('is counted at each try, parked after 10 failures, never tried again, said loudly once, and listed on the diagnostics page', async () => {
    // A call that ended two hours ago without its report (past the hour the sweep asks Vapi for one).
    const user = await insertUser(database.db, { phoneNumber: '2025550199' })
    const vapiCallId = 'vapi-call-overflowing-report'
    const endedAt = new Date(clock.now().getTime() - 2 * 60 * 60_000)
    const [call] = await database.db
      .insert(coachingCalls)
      .values({ userId: user.id, slot: 'test', callDate: endedAt, dialledAt: endedAt, endedAt, vapiCallId, completionStatus: 'completed', endedReason: 'customer-ended-call' })
      .returning()
    // Its report arrives with a duration no integer column holds: applying it fails every time.
    const report = { message: { type: 'end-of-call-report', timestamp: clock.now().getTime(), endedReason: 'customer-ended-call', durationSeconds: 1e10, transcript: 'AI: Hi Dana', call: { id: vapiCallId } } }
    const posted = await app.inject({ method: 'POST', url: '/api/webhooks/vapi', headers: { 'content-type': 'application/json', 'x-vapi-secret': SECRET }, payload: JSON.stringify(report) })
    expect(posted.statusCode).toBe(200)
    const stored = async () => {
      const [row] = await database.db.select().from(vapiWebhookEvents).where(eq(vapiWebhookEvents.vapiCallId, vapiCallId))
      return row!
    }
    await settle()
    expect(await stored()).toMatchObject({ attempts: 1, processedAt: null, deadAt: null })
    // The error's own words, never the failed query's text or its parameters.
    const { lastError } = await stored()
    expect(lastError).toMatch(/^PostgresError 22003: value "10000000000" is out of range for type integer$/)
    // The job's four retries (2, 4, 8, 16 s apart), each counted.
    await advanceTo(new Date(clock.now().getTime() + 60_000))
    expect((await stored()).attempts).toBe(5)

    // Then one try per sweep (every 5 minutes), until the tenth failure parks it.
    const seen: Array<[string, number, boolean]> = []
    for (const sweep of ['13:55', '14:00', '14:05', '14:10', '14:15', '14:20', '14:25']) {
      await advanceTo(at(`2026-06-15T${sweep}:00Z`))
      const row = await stored()
      seen.push([sweep, row.attempts, row.deadAt !== null])
    }
    expect(seen).toEqual([
      ['13:55', 6, false],
      ['14:00', 7, false],
      ['14:05', 8, false],
      ['14:10', 9, false],
      ['14:15', 10, true],
      ['14:20', 10, true],
      ['14:25', 10, true],
    ])
    const parked = await stored()
    expect(parked).toMatchObject({ processedAt: null, deadAt: at('2026-06-15T14:15:00Z'), lastError })
    expect((await callsOf(user.id))[0]).toMatchObject({ id: call!.id, completionStatus: 'completed', callDuration: 0, reportAt: null })
    const loud = errorLogs.filter((line) => String(line.msg).includes('parked'))
    expect(loud).toEqual([expect.objectContaining({ eventId: parked.id, type: 'end-of-call-report', attempts: 10, error: lastError })])

    // The diagnostics page: the count and the latest, with their type, times, tries and last error, never their content.
    const viewer = await signedInUser(app, { paid: 'basic' })
    const response = await app.inject({ method: 'GET', url: '/api/calls/diagnostics', headers: viewer.headers })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toMatchObject({
      parkedMessages: { count: 1, latest: [{ id: parked.id, type: 'end-of-call-report', receivedAt: '2026-06-15T13:50:00.000Z', parkedAt: '2026-06-15T14:15:00.000Z', attempts: 10, lastError }] },
    })
    expect(response.body).not.toContain('Hi Dana')
    expect(response.body).not.toContain(vapiCallId)
  })
})

describe('faults', () => {
  it('reconciles a call Vapi created but answered with a 5xx: one call, no second dial', async () => {
    fake.inject('POST /call', { kind: 'status', status: 503, commit: true }, 1)
    const { user, phone } = await person({ time: '10:00' })
    await advanceTo(at('2026-06-15T14:10:00Z'))
    expect(dialsTo(phone)).toHaveLength(1)
    const [call] = await callsOf(user.id)
    expect(call).toMatchObject({ completionStatus: 'completed', vapiCallId: dialsTo(phone)[0]!.id })
    expect(await timelineOf(call!.id)).toContain('reconciled')
  })

  it('dials again after a 503 that created nothing, once the next try has looked', async () => {
    fake.inject('POST /call', { kind: 'status', status: 503 }, 1)
    const { user, phone } = await person({ time: '10:00' })
    await advanceTo(at('2026-06-15T14:10:00Z'))
    expect(dialsTo(phone)).toHaveLength(1)
    const [call] = await callsOf(user.id)
    expect(call!.completionStatus).toBe('completed')
    expect(await timelineOf(call!.id)).toContain('dial_unconfirmed')
  })

  it('records a refusal on our side (assistant not found) as failed, without retrying', async () => {
    fake.inject('POST /call', { kind: 'status', status: 400, body: { message: ['assistant not found'], error: 'Bad Request', statusCode: 400 } }, 1)
    const { user, phone } = await person({ time: '10:00' })
    await advanceTo(at('2026-06-15T15:00:00Z'))
    expect(dialsTo(phone)).toHaveLength(0)
    const [call] = await callsOf(user.id)
    expect(call).toMatchObject({ completionStatus: 'failed', endedReason: 'vapi-refused-400' })

    // The diagnostics page shows it: counted by reason, with no one's data; and the viewer's own last call.
    const viewer = await signedInUser(app, { paid: 'basic' })
    const response = await app.inject({ method: 'GET', url: '/api/calls/diagnostics', headers: viewer.headers })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toMatchObject({
      configured: true,
      webhookUrl: `http://127.0.0.1:${port}/api/webhooks/vapi`,
      webhookAuth: 'secret',
      lastCall: null,
    })
    // Other tests' calls in this database fail for other reasons (the sweep's).
    expect((response.json() as { problems: Array<{ reason: string }> }).problems.filter((problem) => problem.reason.startsWith('vapi-refused-'))).toMatchObject([{ reason: 'vapi-refused-400', count: 1 }])
    expect(JSON.stringify(response.json())).not.toContain(user.id)
  })
})

describe('"Call me now"', () => {
  it('places a test call at once, one at a time, counted against nothing, and rate-limited', async () => {
    const signed = await signedInUser(app, { paid: 'basic' })
    await database.db.update(profiles).set({ onboardingCompleted: true }).where(eq(profiles.id, signed.user.id))
    fake.calls.setScenario(`+1${signed.user.phoneNumber}`, 'no-answer')
    const callNow = () => app.inject({ method: 'POST', url: '/api/calls/test', headers: signed.headers })

    const first = await callNow()
    expect(first.statusCode).toBe(202)
    const { callId } = first.json() as { callId: string }
    // While it is under way, another is refused.
    const during = await callNow()
    expect(during.statusCode).toBe(409)
    expect(during.json()).toMatchObject({ error: { code: 'CALL_IN_PROGRESS' } })
    await settle()
    const [call] = await callsOf(signed.user.id)
    expect(call).toMatchObject({ id: callId, slot: 'test', completionStatus: 'no_answer', localDate: null })
    expect(dialsTo(`+1${signed.user.phoneNumber}`)[0]!.assistantOverrides?.metadata).toMatchObject({ callId, slot: 'test' })
    // No retry for a test call.
    await advanceTo(new Date(clock.now().getTime() + 60 * 60_000))
    expect(dialsTo(`+1${signed.user.phoneNumber}`)).toHaveLength(1)

    // Three an hour (the refused one counted too).
    expect((await callNow()).statusCode).toBe(202)
    await settle()
    const limited = await callNow()
    expect(limited.statusCode).toBe(429)
  })

  it('answers 409 for a person who may not be called, and when calls are not configured', async () => {
    const unconsented = await signedInUser(app, { paid: 'basic' })
    await database.db.update(profiles).set({ onboardingCompleted: true }).where(eq(profiles.id, unconsented.user.id))
    await setConsent(database.db, unconsented.user.id, 'calls', false, clock.now())
    const refused = await app.inject({ method: 'POST', url: '/api/calls/test', headers: unconsented.headers })
    expect(refused.statusCode).toBe(409)
    expect(refused.json()).toMatchObject({ error: { code: 'CALL_NOT_ELIGIBLE', field: 'consent' } })

    const plain = await buildTestApp({ database })
    try {
      const signed = await signedInUser(plain, { paid: 'basic' })
      const response = await plain.inject({ method: 'POST', url: '/api/calls/test', headers: signed.headers })
      expect(response.statusCode).toBe(409)
      expect(response.json()).toMatchObject({ error: { code: 'CALLS_NOT_CONFIGURED' } })
    } finally {
      await plain.close()
    }
  })
})

describe('a second server', () => {
  it('is claimed ahead of its instant and checked again at the instant: a pause set in between skips it', async () => {
    const { user, phone } = await person({ time: '10:00' })
    // Claimed and built 45 s ahead; parked until 10:00.
    await advanceTo(at('2026-06-15T13:59:30Z'))
    const [claim] = await callsOf(user.id)
    expect(claim).toMatchObject({ completionStatus: 'dialling', dialledAt: at('2026-06-15T14:00:00Z') })
    expect(dialsTo(phone)).toHaveLength(0)

    await database.db.update(profiles).set({ callsPausedUntil: '2026-06-16' }).where(eq(profiles.id, user.id))
    await advanceTo(at('2026-06-15T14:05:00Z'))
    expect(dialsTo(phone)).toHaveLength(0)
    const [call] = await callsOf(user.id)
    expect(call).toMatchObject({ completionStatus: 'skipped', skipReason: 'paused', dialledAt: null, vapiCallId: null })
    expect(await timelineOf(call!.id)).toEqual(['scheduled', 'skipped'])
  })

  it('is given back when its runner stops while it waits for its instant, and dialled once by the next', async () => {
    const { user, phone } = await person({ time: '10:00' })
    await advanceTo(at('2026-06-15T13:59:30Z'))
    expect((await callsOf(user.id))[0]).toMatchObject({ completionStatus: 'dialling' })
    await app.close()
    const [released] = await callsOf(user.id)
    expect(released).toMatchObject({ completionStatus: 'dialling', dialLeaseUntil: null, dialledAt: null })

    app = h.app = await buildTestApp({
      database,
      clock,
      timers: timers.timers,
      env: { VAPI_API_KEY: fake.apiKey, VAPI_API_URL: fake.url, VAPI_ASSISTANT_ID: 'asst-coach', VAPI_PHONE_NUMBER_ID: 'pn-coach', VAPI_WEBHOOK_SECRET: SECRET, APP_URL: `http://127.0.0.1:${port}` },
    })
    await app.listen({ port, host: '127.0.0.1' })
    // The next tick (10:00:30) finds the claim nobody holds and enqueues it again.
    await advanceTo(at('2026-06-15T14:10:00Z'))
    expect(dialsTo(phone)).toHaveLength(1)
    const [call] = await callsOf(user.id)
    expect(call!.vapiCallId).toBe(dialsTo(phone)[0]!.id)
    expect(await timelineOf(call!.id)).toEqual(expect.arrayContaining(['scheduled', 'dial_deferred', 'dialled']))
  })

  it('never dials twice: two apps over one database each run the tick and the job', async () => {
    const { phone } = await person({ time: '10:00' })
    const second = await buildTestApp({
      database,
      clock,
      timers: timers.timers,
      env: { VAPI_API_KEY: fake.apiKey, VAPI_API_URL: fake.url, VAPI_ASSISTANT_ID: 'asst-coach', VAPI_PHONE_NUMBER_ID: 'pn-coach', VAPI_WEBHOOK_SECRET: SECRET, APP_URL: `http://127.0.0.1:${port}` },
    })
    try {
      await advanceTo(at('2026-06-15T14:10:00Z'))
      await second.jobRunner!.drain()
      expect(dialsTo(phone)).toHaveLength(1)
    } finally {
      await second.close()
    }
  })
})
