/**
 * Spans of PostgreSQL statements made through postgres.js, which no OpenTelemetry instrumentation
 * covers (instrumentation-pg is for `pg`): the client Drizzle is given is wrapped so that each
 * statement (`unsafe`, which Drizzle sends every query through) is a client span, and each
 * transaction or savepoint a span around its statements. A statement's span is named and described
 * by its operation and table (`SELECT coaching_calls`), read from the text Drizzle generated; the
 * text itself and its parameters are never recorded (docs/decisions/073).
 */
import { context, SpanKind, SpanStatusCode, trace, type Attributes, type Span, type Tracer } from '@opentelemetry/api'
import {
  ATTR_DB_COLLECTION_NAME,
  ATTR_DB_NAMESPACE,
  ATTR_DB_OPERATION_NAME,
  ATTR_DB_QUERY_SUMMARY,
  ATTR_DB_RESPONSE_STATUS_CODE,
  ATTR_DB_SYSTEM_NAME,
  ATTR_ERROR_TYPE,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  DB_SYSTEM_NAME_VALUE_POSTGRESQL,
} from '@opentelemetry/semantic-conventions'

/** What every span of this database says: the system, the database's name, the server (never the credentials). */
export function databaseAttributes(databaseUrl: string): Attributes {
  const url = new URL(databaseUrl)
  const attributes: Attributes = { [ATTR_DB_SYSTEM_NAME]: DB_SYSTEM_NAME_VALUE_POSTGRESQL }
  const database = decodeURIComponent(url.pathname.slice(1))
  if (database) attributes[ATTR_DB_NAMESPACE] = database
  if (url.hostname) {
    attributes[ATTR_SERVER_ADDRESS] = url.hostname
    attributes[ATTR_SERVER_PORT] = url.port ? Number(url.port) : 5432
  }
  return attributes
}

type Summary = { operation: string; collection: string | undefined; summary: string }

/** Summaries of the statements seen, by text (Drizzle's statements are a bounded set of shapes). */
const summaries = new Map<string, Summary>()
const SUMMARIES_KEPT = 2000

/** The operation (SELECT, INSERT, ...) and, where it is plain to see, the table of a statement. */
export function summarize(text: string): Summary {
  const known = summaries.get(text)
  if (known) return known
  const summary = readSummary(text)
  if (summaries.size >= SUMMARIES_KEPT) summaries.clear()
  summaries.set(text, summary)
  return summary
}

function readSummary(text: string): Summary {
  const lower = text.toLowerCase()
  let start = 0
  while (start < lower.length && (lower[start] === ' ' || lower[start] === '\n' || lower[start] === '\t' || lower[start] === '(')) start++
  let end = start
  while (end < lower.length && lower.charCodeAt(end) >= 97 && lower.charCodeAt(end) <= 122) end++
  const keyword = lower.slice(start, end)
  const operation = keyword.toUpperCase() || 'QUERY'
  let table: string | undefined
  if (keyword === 'insert') table = identifierAfter(text, lower, ' into ', end)
  else if (keyword === 'update') table = identifierAt(text, end)
  else if (keyword === 'delete') table = identifierAfter(text, lower, ' from ', end)
  else if (keyword === 'select') {
    const from = lower.indexOf(' from ', end)
    // A subquery among the columns would name its own table first: then no table is said.
    const subquery = lower.indexOf('(select', end)
    if (from !== -1 && (subquery === -1 || subquery > from)) table = identifierAt(text, from + ' from '.length)
  }
  return { operation, collection: table, summary: table ? `${operation} ${table}` : operation }
}

function identifierAfter(text: string, lower: string, word: string, from: number): string | undefined {
  const at = lower.indexOf(word, from)
  return at === -1 ? undefined : identifierAt(text, at + word.length)
}

/** The (schema-qualified, possibly quoted) name at `at`, without its schema: `"public"."users"` → users. */
function identifierAt(text: string, at: number): string | undefined {
  let position = at
  while (text[position] === ' ') position++
  let name: string | undefined
  for (;;) {
    let part: string
    if (text[position] === '"') {
      const close = text.indexOf('"', position + 1)
      if (close === -1) return name
      part = text.slice(position + 1, close)
      position = close + 1
    } else {
      let stop = position
      while (stop < text.length && /[A-Za-z0-9_]/.test(text[stop]!)) stop++
      if (stop === position) return name
      part = text.slice(position, stop)
      position = stop
    }
    name = part
    if (text[position] !== '.') return name
    position++
  }
}

function failed(span: Span, error: unknown): void {
  const code = (error as { code?: unknown } | null)?.code
  span.setStatus({ code: SpanStatusCode.ERROR })
  if (typeof code === 'string') span.setAttributes({ [ATTR_ERROR_TYPE]: code, [ATTR_DB_RESPONSE_STATUS_CODE]: code })
  else span.setAttribute(ATTR_ERROR_TYPE, error instanceof Error ? error.name : 'Error')
}

type Thenable = { then: (onFulfilled?: (value: unknown) => unknown, onRejected?: (error: unknown) => unknown) => Promise<unknown> }

/**
 * The postgres.js client (or a transaction's), tracing its statements and transactions. postgres.js
 * runs a statement when it is first awaited: its span starts then, and ends when it settles.
 * `inTrace`: whether the work at hand is traced (a request's or a job's); other statements (the
 * migrations at start, a timer's housekeeping) get no span.
 */
export function tracePostgres<T extends object>(client: T, tracer: Tracer, target: Attributes, inTrace: () => boolean): T {
  const statement = (query: Thenable, text: string): Thenable => {
    const then = query.then
    let started = false
    query.then = function (this: Thenable, onFulfilled, onRejected) {
      if (!started) {
        started = true
        if (!inTrace()) return then.call(this, onFulfilled, onRejected)
        const { operation, collection, summary } = summarize(text)
        const span = tracer.startSpan(summary, {
          kind: SpanKind.CLIENT,
          attributes: { ...target, [ATTR_DB_OPERATION_NAME]: operation, [ATTR_DB_QUERY_SUMMARY]: summary, ...(collection ? { [ATTR_DB_COLLECTION_NAME]: collection } : {}) },
        })
        void then.call(
          this,
          () => span.end(),
          (error: unknown) => {
            failed(span, error)
            span.end()
          },
        )
      }
      return then.call(this, onFulfilled, onRejected)
    }
    return query
  }

  /** `begin(fn)`, `begin(options, fn)`, `savepoint(fn)`, `savepoint(name, fn)`: one span around it, and its own client traced too. */
  const scoped = (original: (...args: unknown[]) => Promise<unknown>, owner: object, name: string) =>
    function (...args: unknown[]): Promise<unknown> {
      const last = args.length - 1
      const body = args[last]
      if (typeof body !== 'function' || !inTrace()) return original.apply(owner, args)
      args[last] = (inner: object) => (body as (client: object) => unknown)(wrap(inner))
      const span = tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes: target })
      return context.with(trace.setSpan(context.active(), span), () => original.apply(owner, args)).then(
        (value) => {
          span.end()
          return value
        },
        (error: unknown) => {
          failed(span, error)
          span.end()
          throw error
        },
      )
    }

  const wrap = <C extends object>(sql: C): C =>
    new Proxy(sql, {
      get(target, property) {
        const value: unknown = Reflect.get(target, property)
        if (typeof value !== 'function') return value
        if (property === 'unsafe') {
          return (text: string, ...rest: unknown[]) => statement((value as (...args: unknown[]) => Thenable).call(target, text, ...rest), text)
        }
        if (property === 'begin') return scoped(value as (...args: unknown[]) => Promise<unknown>, target, 'transaction')
        if (property === 'savepoint') return scoped(value as (...args: unknown[]) => Promise<unknown>, target, 'savepoint')
        return value
      },
    })

  return wrap(client)
}
