/**
 * What a span may carry out of the process (docs/decisions/073). Every span passes through here on
 * its way to the exporter, whoever made it (our helpers, @fastify/otel, the undici instrumentation):
 * - only the attributes named in SPAN_ATTRIBUTES leave, on spans, events and links alike; any other
 *   (a header, a query, a statement's text or parameters, a message) is dropped, so an
 *   instrumentation that records more than we asked for cannot leak it;
 * - URLs lose their query string and fragment (the emailed links' tokens, Twilio's and Stripe's
 *   list filters by phone number or email), and the path of a live call's control or listen URL
 *   (which grants control of the call) is not kept;
 * - error messages (a status's description, an exception's message and stack) are dropped: a
 *   provider's error may quote a phone number or an address. The type stays; the log has the rest.
 */
import type { Attributes, AttributeValue, Link } from '@opentelemetry/api'
import type { ExportResult } from '@opentelemetry/core'
import type { ReadableSpan, SpanExporter, TimedEvent } from '@opentelemetry/sdk-trace-base'
import {
  ATTR_DB_COLLECTION_NAME,
  ATTR_DB_NAMESPACE,
  ATTR_DB_OPERATION_NAME,
  ATTR_DB_QUERY_SUMMARY,
  ATTR_DB_RESPONSE_STATUS_CODE,
  ATTR_DB_SYSTEM_NAME,
  ATTR_ERROR_TYPE,
  ATTR_EXCEPTION_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_REQUEST_METHOD_ORIGINAL,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_NETWORK_PEER_ADDRESS,
  ATTR_NETWORK_PEER_PORT,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_URL_FULL,
  ATTR_URL_PATH,
  ATTR_URL_SCHEME,
  ATTR_USER_AGENT_ORIGINAL,
} from '@opentelemetry/semantic-conventions'
import { JOB_ATTRIBUTES } from './job-attributes'

/** The attributes a span may keep (OpenTelemetry's semantic conventions, @fastify/otel's own, and ours). */
const SPAN_ATTRIBUTES = new Set<string>([
  // HTTP, both ways
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_REQUEST_METHOD_ORIGINAL,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_URL_FULL,
  ATTR_URL_PATH,
  ATTR_URL_SCHEME,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_NETWORK_PEER_ADDRESS,
  ATTR_NETWORK_PEER_PORT,
  ATTR_USER_AGENT_ORIGINAL,
  ATTR_ERROR_TYPE,
  // PostgreSQL
  ATTR_DB_SYSTEM_NAME,
  ATTR_DB_NAMESPACE,
  ATTR_DB_OPERATION_NAME,
  ATTR_DB_COLLECTION_NAME,
  ATTR_DB_QUERY_SUMMARY,
  ATTR_DB_RESPONSE_STATUS_CODE,
  // Jobs
  ...Object.values(JOB_ATTRIBUTES),
  // @fastify/otel's own
  'fastify.root',
  'fastify.type',
  'hook.name',
  'hook.callback.name',
  // An exception event keeps its type only.
  ATTR_EXCEPTION_TYPE,
])

/** Attributes holding a URL or a path: kept without their query string, fragment, or a call's control path. */
const URL_ATTRIBUTES = new Set<string>([ATTR_URL_FULL, ATTR_URL_PATH])

/** The last path segments of Vapi's per-call monitor URLs (`/<call>/control`, `/<call>/listen`): the whole URL grants access to the live call. */
const CAPABILITY_SEGMENTS = new Set(['control', 'listen'])

/** A URL (or a path) without its query string and fragment, and without a call's capability path. */
export function cleanUrl(value: string): string {
  let end = value.length
  const query = value.indexOf('?')
  if (query !== -1) end = query
  const fragment = value.indexOf('#')
  if (fragment !== -1 && fragment < end) end = fragment
  const bare = value.slice(0, end)
  const scheme = bare.indexOf('://')
  const pathStart = scheme === -1 ? 0 : bare.indexOf('/', scheme + 3)
  const lastSlash = bare.lastIndexOf('/')
  if (pathStart !== -1 && lastSlash > pathStart && CAPABILITY_SEGMENTS.has(bare.slice(lastSlash + 1))) {
    return `${bare.slice(0, pathStart)}/{call}${bare.slice(lastSlash)}`
  }
  return bare
}

function cleanValue(key: string, value: AttributeValue | undefined): AttributeValue | undefined {
  return URL_ATTRIBUTES.has(key) && typeof value === 'string' ? cleanUrl(value) : value
}

/** Only the allowed attributes, URLs cleaned. */
export function cleanAttributes(attributes: Attributes): Attributes {
  const kept: Attributes = {}
  for (const key in attributes) {
    if (SPAN_ATTRIBUTES.has(key)) kept[key] = cleanValue(key, attributes[key])
  }
  return kept
}

function cleanEvent(event: TimedEvent): TimedEvent {
  return event.attributes ? { ...event, attributes: cleanAttributes(event.attributes) } : event
}

function cleanLink(link: Link): Link {
  return link.attributes ? { ...link, attributes: cleanAttributes(link.attributes) } : link
}

/** The span as it may leave the process. */
function cleanSpan(span: ReadableSpan): ReadableSpan {
  return {
    name: span.name,
    kind: span.kind,
    spanContext: () => span.spanContext(),
    ...(span.parentSpanContext ? { parentSpanContext: span.parentSpanContext } : {}),
    startTime: span.startTime,
    endTime: span.endTime,
    status: { code: span.status.code },
    attributes: cleanAttributes(span.attributes),
    links: span.links.map(cleanLink),
    events: span.events.map(cleanEvent),
    duration: span.duration,
    ended: span.ended,
    resource: span.resource,
    instrumentationScope: span.instrumentationScope,
    droppedAttributesCount: span.droppedAttributesCount,
    droppedEventsCount: span.droppedEventsCount,
    droppedLinksCount: span.droppedLinksCount,
  }
}

/** Hands the exporter each span cleaned (the only way a span reaches an exporter here). */
export class CleaningExporter implements SpanExporter {
  private readonly inner: SpanExporter

  constructor(inner: SpanExporter) {
    this.inner = inner
  }

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    this.inner.export(spans.map(cleanSpan), resultCallback)
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown()
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve()
  }
}
