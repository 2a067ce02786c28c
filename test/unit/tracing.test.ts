import { SpanKind, SpanStatusCode, TraceFlags } from '@opentelemetry/api'
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base'
import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '#server/config'
import { summarize } from '#server/observability/postgres-spans'
import { CleaningExporter, cleanAttributes, cleanUrl } from '#server/observability/span-privacy'

describe('the tracing configuration', () => {
  it('is off with nothing set, and when the SDK is disabled or its exporter is none', () => {
    expect(loadConfig({}).tracing).toBeUndefined()
    expect(loadConfig({ OTEL_SERVICE_NAME: 'coach' }).tracing).toBeUndefined()
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' }).tracing).toBeUndefined()
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'none' }).tracing).toBeUndefined()
  })

  it('is on with either endpoint, sampling every trace unless told otherwise', () => {
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }).tracing).toEqual({ sampler: 'parentbased_always_on', ratio: 1 })
    expect(loadConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://collector.example.com/v1/traces' }).tracing).toEqual({ sampler: 'parentbased_always_on', ratio: 1 })
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25' }).tracing).toEqual({
      sampler: 'parentbased_traceidratio',
      ratio: 0.25,
    })
  })

  it.each([
    ['OTEL_EXPORTER_OTLP_ENDPOINT', { OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4317' }],
    ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'grpc://collector:4317' }],
    ['OTEL_EXPORTER_OTLP_PROTOCOL', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }],
    ['OTEL_TRACES_EXPORTER', { OTEL_TRACES_EXPORTER: 'zipkin' }],
    ['OTEL_TRACES_SAMPLER', { OTEL_TRACES_SAMPLER: 'sometimes' }],
    ['OTEL_TRACES_SAMPLER_ARG', { OTEL_TRACES_SAMPLER_ARG: '1.5' }],
    ['OTEL_TRACES_SAMPLER_ARG', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_SAMPLER_ARG: '0.1' }],
  ])('refuses a bad %s with an error naming it', (name, env) => {
    expect(() => loadConfig(env)).toThrow(ConfigError)
    expect(() => loadConfig(env)).toThrow(`Invalid configuration: ${name} `)
  })
})

describe('what a span may carry', () => {
  it('keeps a URL without its query string, fragment, or a live call’s control path', () => {
    expect(cleanUrl('https://api.twilio.com/2010-04-01/Accounts/AC1/Messages.json?To=%2B12025550187&PageSize=50')).toBe('https://api.twilio.com/2010-04-01/Accounts/AC1/Messages.json')
    expect(cleanUrl('/auth?mode=reset&token=secret#fragment')).toBe('/auth')
    expect(cleanUrl('/api/reports/unsubscribe#token=secret')).toBe('/api/reports/unsubscribe')
    expect(cleanUrl('https://phone-call-websocket.vapi.ai/4f1c-call/control')).toBe('https://phone-call-websocket.vapi.ai/{call}/control')
    expect(cleanUrl('/4f1c-call/listen?x=1')).toBe('/{call}/listen')
    expect(cleanUrl('https://api.vapi.ai/call/4f1c-call')).toBe('https://api.vapi.ai/call/4f1c-call')
    expect(cleanUrl('https://api.vapi.ai/control')).toBe('https://api.vapi.ai/control')
  })

  it('keeps only the attributes it knows, whoever set them', () => {
    expect(
      cleanAttributes({
        'http.request.method': 'GET',
        'url.full': 'https://api.stripe.com/v1/customers?email=someone%40example.com',
        'url.query': '?email=someone%40example.com',
        'http.request.header.authorization': ['Bearer sk_live_x'],
        'db.query.text': "select * from users where email = 'someone@example.com'",
        'drizzle.query.params': '["+12025550187"]',
        'enduser.phone': '+12025550187',
        'messaging.message.id': 'call-test-1',
      }),
    ).toEqual({ 'http.request.method': 'GET', 'url.full': 'https://api.stripe.com/v1/customers', 'messaging.message.id': 'call-test-1' })
  })

  it('sends a span without its status message and exceptions without their message or stack', () => {
    const exporter = new InMemorySpanExporter()
    const context = { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: TraceFlags.SAMPLED }
    const span = {
      name: 'POST',
      kind: SpanKind.CLIENT,
      spanContext: () => context,
      startTime: [1, 0],
      endTime: [2, 0],
      status: { code: SpanStatusCode.ERROR, message: "The 'To' number +12025550187 is not a valid phone number." },
      attributes: { 'http.request.method': 'POST', 'error.type': '400' },
      links: [{ context, attributes: { 'note': 'someone@example.com' } }],
      events: [{ name: 'exception', time: [1, 5], attributes: { 'exception.type': 'RestException', 'exception.message': 'number +12025550187', 'exception.stacktrace': 'at send (+12025550187)' } }],
      duration: [1, 0],
      ended: true,
      resource: undefined,
      instrumentationScope: { name: 'test' },
      droppedAttributesCount: 0,
      droppedEventsCount: 0,
      droppedLinksCount: 0,
    } as unknown as ReadableSpan
    new CleaningExporter(exporter).export([span], () => {})
    const [sent] = exporter.getFinishedSpans()
    expect(sent!.status).toEqual({ code: SpanStatusCode.ERROR })
    expect(sent!.events).toEqual([{ name: 'exception', time: [1, 5], attributes: { 'exception.type': 'RestException' } }])
    expect(sent!.links).toEqual([{ context, attributes: {} }])
    expect(sent!.attributes).toEqual({ 'http.request.method': 'POST', 'error.type': '400' })
    expect(sent!.spanContext()).toBe(context)
    expect(JSON.stringify(sent)).not.toContain('2025550187')
  })
})

describe("a statement's summary", () => {
  it.each([
    ['select "id", "email" from "users" where "users"."id" = $1', 'SELECT', 'users'],
    ['insert into "coaching_calls" ("id", "user_id") values (default, $1) returning "id"', 'INSERT', 'coaching_calls'],
    ['update "coaching_calls" set "completion_status" = $1 where "coaching_calls"."id" = $2', 'UPDATE', 'coaching_calls'],
    ['delete from "sessions" where "sessions"."expires_at" < $1', 'DELETE', 'sessions'],
    ['select "public"."users"."id" from "public"."users"', 'SELECT', 'users'],
    ['SELECT 1', 'SELECT', undefined],
    ['select "id", (select count(*) from "goals" where "goals"."user_id" = "users"."id") from "users"', 'SELECT', undefined],
    ['with "due" as (select "id" from "coaching_calls") update "coaching_calls" set "x" = 1', 'WITH', undefined],
    ['  (select "id" from "plans")', 'SELECT', 'plans'],
  ])('%s → %s %s', (text, operation, collection) => {
    expect(summarize(text)).toEqual({ operation, collection, summary: collection ? `${operation} ${collection}` : operation })
  })
})
