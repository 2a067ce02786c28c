/**
 * Traces (OpenTelemetry, docs/decisions/073): off unless an OTLP endpoint is configured. This
 * module is what the rest of the server imports, and it loads no OpenTelemetry package: `startTracing`
 * loads the SDK (./tracing-sdk) when tracing is on. Until then, and for good when it is off, every
 * helper below is a pass-through costing one check of a module variable: no span, no context, no
 * wrapper.
 */
import type { FastifyInstance } from 'fastify'
import type { TracingConfig } from '../config'
import type { TracedJob, TracedRun, TracingRuntime, TracingTestOptions } from './tracing-sdk'

let runtime: TracingRuntime | undefined

/**
 * Starts tracing for this process (the server's or the worker's `service`) when `config` says it
 * is on; before the app, the database and the logger are made, so each of them is traced. Tests pass
 * an exporter of their own (spans are then exported one by one as they end). Returns whether it is on.
 */
export async function startTracing(config: TracingConfig | undefined, service: 'server' | 'worker', test?: TracingTestOptions): Promise<boolean> {
  if (!config || runtime) return runtime !== undefined
  const { createTracingRuntime } = await import('./tracing-sdk')
  runtime = createTracingRuntime(config, service, test)
  return true
}

/** Sends the spans still held and stops tracing (at shutdown, after the app has closed). */
export async function stopTracing(): Promise<void> {
  const stopping = runtime
  runtime = undefined
  await stopping?.shutdown()
}

/** Registers @fastify/otel on the app (a server span per API request) when tracing is on. */
export async function traceRequests(app: FastifyInstance): Promise<void> {
  if (runtime) await runtime.traceRequests(app)
}

/** The postgres.js client, with a span per statement and per transaction when tracing is on; else the client itself. */
export function traceQueries<T extends object>(client: T, databaseUrl: string): T {
  return runtime ? runtime.traceQueries(client, databaseUrl) : client
}

/**
 * Runs an enqueue inside a producer span, handing it the span's W3C trace context to keep with the
 * job (undefined when tracing is off); the job's runs are linked to that span.
 */
export function traceEnqueue(job: TracedJob, enqueue: (trace: string | undefined) => Promise<string>): Promise<string> {
  return runtime ? runtime.traceEnqueue(job, enqueue) : enqueue(undefined)
}

/**
 * Runs one try of a job as the root span of a trace of its own, linked to the span that enqueued
 * it; never inside whatever context the runner's timers carried.
 */
export function traceJobAttempt<T>(job: TracedJob, run: TracedRun, attempt: () => Promise<T>): Promise<T> {
  return runtime ? runtime.traceJobAttempt(job, run, attempt) : attempt()
}

/** pino's `mixin` option when tracing is on (each line written in a span carries its trace_id and span_id); nothing otherwise. */
export function traceLogFields(): { mixin?: () => Record<string, string> } {
  return runtime ? { mixin: runtime.logFields } : {}
}
