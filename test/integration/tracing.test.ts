/**
 * Traces (docs/decisions/073), with the SDK exporting to memory: a 'Call me now' in the embedded
 * mode (real PostgreSQL, the in-process runner on the test clock, the Vapi fake through the official
 * SDK) makes the request's trace (the server span, its statements, the enqueue) and the job's own
 * trace, linked to the enqueue, holding the dial's `POST /call`. No span carries the person's phone
 * number or email address, and a log line written in a span carries its trace id.
 */
import { Writable } from 'node:stream'
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api'
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base'
import { eq } from 'drizzle-orm'
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { profiles, users } from '#server/db/schema'
import { defineJob } from '#server/jobs/define'
import { startInProcessRunner } from '#server/jobs/in-process'
import { realTimers, systemClock } from '#server/lib/clock'
import { jobContract } from '#server/lib/job-contract'
import { createStripeClient } from '#server/integrations/stripe'
import { createTextSender } from '#server/integrations/twilio'
import { loggerOptions } from '#server/lib/logger'
import { startTracing, stopTracing, traceJobAttempt } from '#server/observability/tracing'
import { testConfig } from '../helpers/app'
import { startFakeStripe } from '../fakes/stripe'
import { FakeTwilio } from '../fakes/twilio'
import { useCallsHarness } from '../helpers/calls-harness'
import { signedInUser } from '../helpers/users'

const exporter = new InMemorySpanExporter()

// Started before the harness opens the database and builds the app, as the server's entry does.
beforeAll(async () => {
  const config = testConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })
  expect(config.tracing).toEqual({ sampler: 'parentbased_always_on', ratio: 1 })
  expect(await startTracing(config.tracing, 'server', { exporter })).toBe(true)
})
afterAll(async () => {
  await stopTracing()
})

const h = useCallsHarness()

const id = (span: ReadableSpan) => span.spanContext().spanId
const traceOf = (span: ReadableSpan) => span.spanContext().traceId

/** The span's ancestors in its trace, nearest first. */
function ancestors(span: ReadableSpan, spans: ReadableSpan[]): ReadableSpan[] {
  const byId = new Map(spans.map((each) => [id(each), each]))
  const chain: ReadableSpan[] = []
  for (let parent = span.parentSpanContext?.spanId; parent !== undefined; ) {
    const next = byId.get(parent)
    if (!next) break
    chain.push(next)
    parent = next.parentSpanContext?.spanId
  }
  return chain
}

/** Every string a span would send: its name, and its attributes', events' and links' values. */
function sentText(span: ReadableSpan): string {
  const values = [span.name, span.status.message ?? '', ...Object.values(span.attributes)]
  for (const event of span.events) values.push(event.name, ...Object.values(event.attributes ?? {}))
  for (const link of span.links) values.push(...Object.values(link.attributes ?? {}))
  return JSON.stringify(values)
}

describe("a 'Call me now'", () => {
  it('is one trace from the request to the enqueue, and a linked trace of the job holding the Vapi request', async () => {
    const signed = await signedInUser(h.app, { paid: 'basic' })
    await h.database.db.update(profiles).set({ onboardingCompleted: true }).where(eq(profiles.id, signed.user.id))
    const [person] = await h.database.db.select({ email: users.email, phone: users.phoneNumber }).from(users).where(eq(users.id, signed.user.id))
    h.fake.calls.setScenario(`+1${person!.phone}`, 'no-answer')
    exporter.reset()

    const response = await h.app.inject({ method: 'POST', url: '/api/calls/test?from=settings', headers: signed.headers })
    expect(response.statusCode).toBe(202)
    const { callId } = response.json() as { callId: string }
    await h.settle()
    expect(h.dialsTo(`+1${person!.phone}`)).toHaveLength(1)
    const spans = exporter.getFinishedSpans()

    // The request: the server span of the route, with its statements (the session, the call's row) under it.
    const request = spans.find((span) => span.kind === SpanKind.SERVER && span.name === 'POST /api/calls/test')!
    expect(request).toBeDefined()
    expect(request.attributes).toMatchObject({ 'http.request.method': 'POST', 'http.route': '/api/calls/test', 'url.path': '/api/calls/test', 'http.response.status_code': 202 })
    const requestSpans = spans.filter((span) => traceOf(span) === traceOf(request))
    const insert = requestSpans.find((span) => span.name === 'INSERT coaching_calls')!
    expect(insert.attributes).toMatchObject({ 'db.system.name': 'postgresql', 'db.operation.name': 'INSERT', 'db.collection.name': 'coaching_calls', 'db.namespace': expect.any(String) })
    expect(ancestors(insert, spans).map((span) => span.name)).toEqual(['transaction', 'POST /api/calls/test'])

    // The enqueue: a producer span in the request's trace.
    const enqueue = requestSpans.find((span) => span.kind === SpanKind.PRODUCER && span.name === 'send place-call')!
    expect(enqueue).toBeDefined()
    expect(ancestors(enqueue, spans)).toContain(request)
    expect(enqueue.attributes).toMatchObject({ 'messaging.destination.name': 'calls', 'messaging.operation.type': 'send', 'messaging.message.id': expect.stringContaining(callId) })

    // The job: a trace of its own (no parent), linked to the enqueue.
    const job = spans.find((span) => span.kind === SpanKind.CONSUMER && span.name === 'process place-call')!
    expect(job).toBeDefined()
    expect(job.parentSpanContext).toBeUndefined()
    expect(traceOf(job)).not.toBe(traceOf(request))
    expect(job.links.map((link) => link.context)).toEqual([expect.objectContaining({ traceId: traceOf(request), spanId: id(enqueue) })])
    expect(job.attributes).toMatchObject({ 'messaging.operation.type': 'process', 'messaging.message.id': enqueue.attributes['messaging.message.id'], 'momentum.job.attempt': 1 })
    expect(job.status.code).not.toBe(SpanStatusCode.ERROR)

    // The dial: Vapi's POST /call, a client span under the job.
    const dial = spans.find((span) => span.kind === SpanKind.CLIENT && span.attributes['http.request.method'] === 'POST' && String(span.attributes['url.full']).endsWith('/call'))!
    expect(dial).toBeDefined()
    expect(traceOf(dial)).toBe(traceOf(job))
    expect(ancestors(dial, spans)).toContain(job)
    expect(dial.attributes).toMatchObject({ 'http.response.status_code': 201, 'url.full': `${h.fake.url}/call`, 'server.address': '127.0.0.1' })
    // The job's statements are in its trace too.
    expect(spans.some((span) => traceOf(span) === traceOf(job) && span.attributes['db.collection.name'] === 'coaching_calls')).toBe(true)

    // Nothing personal anywhere: not the number (national or E.164), not the address, not the query.
    expect(spans.length).toBeGreaterThan(10)
    for (const span of spans) {
      const text = sentText(span)
      expect(text).not.toContain(person!.phone)
      expect(text.toLowerCase()).not.toContain(person!.email.toLowerCase())
      expect(text).not.toContain('from=settings')
      expect(text).not.toContain(h.fake.apiKey)
    }
  })
})

describe('a request with a body', () => {
  it('keeps the statements of the hooks after the body (the session) and of the handler in its trace', async () => {
    const signed = await signedInUser(h.app, { paid: 'basic' })
    exporter.reset()
    // Over a socket, as a browser sends it.
    const response = await fetch(`http://127.0.0.1:${h.port}/api/calls/schedule`, {
      method: 'PUT',
      headers: { ...signed.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ dailyCallTime: '09:30', timeZone: 'America/New_York', eveningCallTime: null, pausedUntil: null, callsEnabled: true }),
    })
    expect(response.status).toBe(200)
    const spans = exporter.getFinishedSpans()
    const request = spans.find((span) => span.kind === SpanKind.SERVER && span.name === 'PUT /api/calls/schedule')!
    expect(request).toBeDefined()
    const session = spans.find((span) => span.name === 'SELECT sessions')!
    expect(ancestors(session, spans)).toEqual([request])
    const statements = spans.filter((span) => span.attributes['db.system.name'] === 'postgresql')
    expect(statements.length).toBeGreaterThan(2)
    for (const statement of statements) expect(ancestors(statement, spans).at(-1)).toBe(request)
  })
})

describe('a job', () => {
  it("runs each try as a trace of its own, linked to its enqueue, never inside the context the runner's timer carried", async () => {
    // Real timers: a timer armed during a request runs its callback in that request's context.
    const tries: ReadableSpan[] = []
    let succeeded: () => void = () => {}
    const finished = new Promise<void>((resolve) => (succeeded = resolve))
    const example = defineJob({
      ...jobContract('traced-example', z.object({ n: z.number() }).strict()),
      queue: 'test',
      trigger: 'enqueue',
      attempts: 2,
      backoffMs: 1,
      async handler(_services, _payload, { attempt }) {
        if (attempt === 1) throw new Error('the first try fails')
        succeeded()
      },
    })
    const log = pino({ level: 'silent' })
    const runner = startInProcessRunner({ jobs: [example], services: h.app.services, log, clock: systemClock, timers: realTimers })
    exporter.reset()
    try {
      const tracer = trace.getTracer('test')
      await tracer.startActiveSpan('a request', async (request) => {
        await runner.enqueue('traced-example', { n: 1 }, { jobId: 'example-1' })
        request.end()
      })
      await finished
      await runner.drain()
    } finally {
      await runner.stop()
    }
    const spans = exporter.getFinishedSpans()
    const request = spans.find((span) => span.name === 'a request')!
    const enqueue = spans.find((span) => span.name === 'send traced-example')!
    expect(enqueue.parentSpanContext?.spanId).toBe(id(request))
    tries.push(...spans.filter((span) => span.name === 'process traced-example'))
    expect(tries.map((span) => span.attributes['momentum.job.attempt'])).toEqual([1, 2])
    for (const run of tries) {
      expect(run.parentSpanContext).toBeUndefined()
      expect(traceOf(run)).not.toBe(traceOf(request))
      expect(run.links.map((link) => link.context.spanId)).toEqual([id(enqueue)])
    }
    expect(traceOf(tries[0]!)).not.toBe(traceOf(tries[1]!))
    expect(tries[0]!.status.code).toBe(SpanStatusCode.ERROR)
    expect(tries[0]!.attributes['error.type']).toBe('Error')
    expect(sentText(tries[0]!)).not.toContain('first try fails')
    expect(tries[1]!.status.code).not.toBe(SpanStatusCode.ERROR)
  })
})

describe('outbound HTTP through node:http (the Twilio and Stripe SDKs)', () => {
  it('is a client span per request in the work that made it, without the query, the body or the number', async () => {
    const twilio = await FakeTwilio.start({ numbers: ['+15555550123'] })
    const stripe = await startFakeStripe()
    const log = pino({ level: 'silent' })
    const person = { phone: '+12025550187', email: 'traced.person@example.com' }
    try {
      const texts = createTextSender({ accountSid: twilio.accountSid, authToken: twilio.authToken, apiUrl: twilio.url }, log)
      const payments = createStripeClient({ secretKey: stripe.secretKey, apiUrl: stripe.url })
      // Outside any traced work: no span.
      await texts.listInbound('+15555550123', new Date('2026-06-01T00:00:00Z'))
      exporter.reset()
      await trace.getTracer('test').startActiveSpan('a job', async (work) => {
        expect(await texts.send({ to: person.phone, from: '+15555550123', body: 'Your coach is calling at 10:00' })).toMatchObject({ kind: 'sent' })
        await texts.listInbound(person.phone, new Date('2026-06-01T00:00:00Z'))
        await payments.customers.create({ email: person.email, phone: person.phone })
        await payments.prices.list({ lookup_keys: [person.email] })
        work.end()
      })
    } finally {
      await twilio.close()
      await stripe.close()
    }
    const spans = exporter.getFinishedSpans()
    const work = spans.find((span) => span.name === 'a job')!
    const clients = spans.filter((span) => span.kind === SpanKind.CLIENT)
    expect(clients.map((span) => [span.name, span.attributes['url.full'], span.attributes['http.response.status_code']])).toEqual([
      ['POST', `${twilio.url}/2010-04-01/Accounts/${twilio.accountSid}/Messages.json`, 201],
      ['GET', `${twilio.url}/2010-04-01/Accounts/${twilio.accountSid}/Messages.json`, 200],
      ['POST', `${stripe.url}/v1/customers`, 200],
      ['GET', `${stripe.url}/v1/prices`, 200],
    ])
    for (const span of clients) {
      expect(span.parentSpanContext?.spanId).toBe(id(work))
      expect(span.attributes).toMatchObject({ 'server.address': '127.0.0.1', 'url.scheme': 'http' })
      const text = sentText(span)
      expect(text).not.toContain('2025550187')
      expect(text).not.toContain(person.email)
      expect(text).not.toContain(twilio.authToken)
      expect(text).not.toContain(stripe.secretKey)
    }
  })
})

describe('the log', () => {
  it('gives a line written in a span its trace and span ids, and none to a line outside', async () => {
    const lines: Array<Record<string, unknown>> = []
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>)
        done()
      },
    })
    const log = pino({ ...loggerOptions('info'), transport: undefined }, stream)
    let ids: { traceId: string; spanId: string } | undefined
    await traceJobAttempt({ name: 'example', queue: 'test' }, { jobId: 'job-1', attempt: 1, trace: undefined }, async () => {
      const active = trace.getActiveSpan()!.spanContext()
      ids = { traceId: active.traceId, spanId: active.spanId }
      log.info({ jobId: 'job-1' }, 'inside')
    })
    log.info('outside')
    log.info('outside again')
    expect(lines[0]).toMatchObject({ msg: 'inside', jobId: 'job-1', trace_id: ids!.traceId, span_id: ids!.spanId })
    expect(lines[1]).not.toHaveProperty('trace_id')
    expect(lines[2]).not.toHaveProperty('trace_id')
    expect(lines[2]).not.toHaveProperty('jobId')
  })
})
