/**
 * The OpenTelemetry SDK, loaded by ./tracing only when tracing is on (docs/decisions/073): the
 * provider (sampler, resource, W3C trace-context propagation, AsyncLocalStorage context), the
 * exporter (OTLP/HTTP, batched; every span cleaned first by ./span-privacy), and what is traced:
 * API requests (@fastify/otel), outbound HTTP (undici's instrumentation for fetch and undici, which
 * the Vapi client uses; ./http-client-spans for node:http, which the Stripe and Twilio SDKs use),
 * PostgreSQL statements (./postgres-spans), and jobs (an enqueue span; each try of a run a trace of
 * its own, linked to it).
 */
import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Attributes,
  type Context,
  type Link,
  type Span,
  type SpanContext,
} from '@opentelemetry/api'
import { W3CTraceContextPropagator } from '@opentelemetry/core'
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { registerInstrumentations } from '@opentelemetry/instrumentation'
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici'
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources'
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  SamplingDecision,
  SimpleSpanProcessor,
  TraceIdRatioBasedSampler,
  type Sampler,
  type SamplingResult,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base'
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node'
import { ATTR_ERROR_TYPE, ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions'
import { FastifyOtelInstrumentation } from '@fastify/otel'
import type { FastifyInstance } from 'fastify'
import type { TracingConfig } from '../config'
import { traceHttpClients } from './http-client-spans'
import { JOB_ATTRIBUTES as JOB } from './job-attributes'
import { databaseAttributes, tracePostgres } from './postgres-spans'
import { CleaningExporter } from './span-privacy'

/** A job as its spans name it. */
export type TracedJob = { name: string; queue: string }

/** One try of a run: its id, its try number, and the trace context its enqueuer left with it (W3C headers as JSON). */
export type TracedRun = { jobId: string; attempt: number; trace: string | undefined }

/** Tests export to a span exporter of their own (an in-memory one), each span as it ends. */
export type TracingTestOptions = { exporter: SpanExporter }

export type TracingRuntime = {
  traceRequests(app: FastifyInstance): Promise<void>
  traceQueries<T extends object>(client: T, databaseUrl: string): T
  traceEnqueue(job: TracedJob, enqueue: (trace: string | undefined) => Promise<string>): Promise<string>
  traceJobAttempt<T>(job: TracedJob, run: TracedRun, attempt: () => Promise<T>): Promise<T>
  logFields(): Record<string, string>
  shutdown(): Promise<void>
}

const SERVICE_NAMES = { server: 'momentum-coach', worker: 'momentum-coach-worker' } as const

/** Where the jobs run, as messaging.system says it (BullMQ with Redis, the in-process runner without). */
const JOB_SYSTEM = 'momentum-jobs'

/**
 * A root span with a sampled link is sampled: a job enqueued by a sampled request is kept with it,
 * whatever the ratio. Everything else is the configured sampler's to decide.
 */
class FollowLinksSampler implements Sampler {
  private readonly base: Sampler

  constructor(base: Sampler) {
    this.base = base
  }

  shouldSample(parent: Context, traceId: string, name: string, kind: SpanKind, attributes: Attributes, links: Link[]): SamplingResult {
    if (!trace.getSpanContext(parent) && links.some((link) => (link.context.traceFlags & TraceFlags.SAMPLED) !== 0)) {
      return { decision: SamplingDecision.RECORD_AND_SAMPLED }
    }
    return this.base.shouldSample(parent, traceId, name, kind, attributes, links)
  }

  toString(): string {
    return `FollowLinksSampler{${this.base.toString()}}`
  }
}

function samplerOf(config: TracingConfig): Sampler {
  const ratio = () => new TraceIdRatioBasedSampler(config.ratio)
  const base = {
    always_on: () => new AlwaysOnSampler(),
    always_off: () => new AlwaysOffSampler(),
    traceidratio: ratio,
    parentbased_always_on: () => new ParentBasedSampler({ root: new AlwaysOnSampler() }),
    parentbased_always_off: () => new ParentBasedSampler({ root: new AlwaysOffSampler() }),
    parentbased_traceidratio: () => new ParentBasedSampler({ root: ratio() }),
  }[config.sampler]()
  return new FollowLinksSampler(base)
}

/** Requests that are not traced: anything outside the API (the web app's files), the health probe, and the voice WebSocket (a session, not a request). */
function untraced({ url }: { url: string }): boolean {
  if (!url.startsWith('/api/')) return true
  const path = url.split('?', 1)[0]!
  return path === '/api/health' || path === '/api/voice'
}

const failed = (span: Span, error: unknown) => {
  span.setStatus({ code: SpanStatusCode.ERROR })
  span.setAttribute(ATTR_ERROR_TYPE, error instanceof Error ? error.name : 'Error')
}

/** Whether a span is active: outbound calls (HTTP, SQL) are recorded only as part of a traced request or job. */
const inTrace = () => trace.getSpan(context.active()) !== undefined

export function createTracingRuntime(config: TracingConfig, service: 'server' | 'worker', test?: TracingTestOptions): TracingRuntime {
  const exporter = new CleaningExporter(test ? test.exporter : new OTLPTraceExporter())
  const provider = new NodeTracerProvider({
    sampler: samplerOf(config),
    // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (the env detector) win over the default name.
    resource: defaultResource()
      .merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: SERVICE_NAMES[service] }))
      .merge(detectResources({ detectors: [envDetector] })),
    spanProcessors: [test ? new SimpleSpanProcessor(exporter) : new BatchSpanProcessor(exporter)],
  })
  // Trace context only: no baggage (a client's `baggage` header is not carried into jobs or requests).
  provider.register({ propagator: new W3CTraceContextPropagator() })
  const tracer = provider.getTracer('momentum-coach')

  const fastify = new FastifyOtelInstrumentation({
    ignorePaths: untraced,
    // One span per request: no span per hook or handler (a request passes a dozen hooks).
    instrumentHooks: false,
    instrumentHandler: false,
    // An exception's message may quote what a person sent; the status and error.type say enough.
    recordExceptions: false,
    requestHook: (span, request) => span.updateName(request.routeOptions.url ? `${request.method} ${request.routeOptions.url}` : request.method),
  })
  const unregister = registerInstrumentations({
    tracerProvider: provider,
    // fetch and undici (the Vapi client): a span only as part of a traced request or job.
    instrumentations: [new UndiciInstrumentation({ requireParentforSpans: true }), fastify],
  })
  const untraceHttp = traceHttpClients(tracer, inTrace)

  return {
    async traceRequests(app) {
      await app.register(fastify.plugin())
    },

    traceQueries(client, databaseUrl) {
      return tracePostgres(client, tracer, databaseAttributes(databaseUrl), inTrace)
    },

    traceEnqueue(job, enqueue) {
      const attributes = { [JOB.system]: JOB_SYSTEM, [JOB.operationType]: 'send', [JOB.operationName]: 'send', [JOB.destination]: job.queue }
      return tracer.startActiveSpan(`send ${job.name}`, { kind: SpanKind.PRODUCER, attributes }, async (span) => {
        try {
          const carrier: Record<string, string> = {}
          propagation.inject(context.active(), carrier)
          const id = await enqueue(JSON.stringify(carrier))
          span.setAttribute(JOB.messageId, id)
          return id
        } catch (error) {
          failed(span, error)
          throw error
        } finally {
          span.end()
        }
      })
    },

    traceJobAttempt(job, run, attempt) {
      const enqueuedBy = linkOf(run.trace)
      // A new trace for every try, started from the empty context: whatever context the runner's
      // timers or BullMQ's own carried (a request's, a worker-long one) never becomes its parent.
      const span = tracer.startSpan(
        `process ${job.name}`,
        {
          root: true,
          kind: SpanKind.CONSUMER,
          links: enqueuedBy ? [{ context: enqueuedBy }] : [],
          attributes: {
            [JOB.system]: JOB_SYSTEM,
            [JOB.operationType]: 'process',
            [JOB.operationName]: 'process',
            [JOB.destination]: job.queue,
            [JOB.messageId]: run.jobId,
            [JOB.attempt]: run.attempt,
          },
        },
        ROOT_CONTEXT,
      )
      return context.with(trace.setSpan(ROOT_CONTEXT, span), async () => {
        try {
          return await attempt()
        } catch (error) {
          failed(span, error)
          throw error
        } finally {
          span.end()
        }
      })
    },

    logFields(): Record<string, string> {
      const span = trace.getSpan(context.active())
      if (!span) return {}
      const { traceId, spanId } = span.spanContext()
      return { trace_id: traceId, span_id: spanId }
    },

    async shutdown() {
      unregister()
      untraceHttp()
      await provider.shutdown()
      trace.disable()
      context.disable()
      propagation.disable()
    },
  }
}

/** The span an enqueuer left its W3C trace context of (JSON of its headers), if any and valid. */
function linkOf(carrier: string | undefined): SpanContext | undefined {
  if (!carrier) return undefined
  let headers: unknown
  try {
    headers = JSON.parse(carrier)
  } catch {
    return undefined
  }
  if (!headers || typeof headers !== 'object') return undefined
  const spanContext = trace.getSpanContext(propagation.extract(ROOT_CONTEXT, headers))
  return spanContext && trace.isSpanContextValid(spanContext) ? spanContext : undefined
}
