/**
 * Client spans of requests made with node:http and node:https: the Stripe SDK's and the Twilio
 * SDK's (axios), which instrumentation-undici does not see. Node publishes every such request on
 * diagnostics channels (`http.client.request.start`, `…response.finish`, `…request.error`); a
 * span starts with the request, in the caller's context, and ends when the request closes. Only
 * the method, the URL without its query, the server and the status are recorded; no header, no
 * body. WebSocket handshakes are left out (the connection outlives any span), and so are requests
 * made while tracing is suppressed (the OTLP exporter's own) or outside any traced request or job.
 */
import type { ClientRequest, IncomingMessage } from 'node:http'
import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import { context, SpanKind, SpanStatusCode, type Span, type Tracer } from '@opentelemetry/api'
import { isTracingSuppressed } from '@opentelemetry/core'
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_URL_FULL,
  ATTR_URL_SCHEME,
} from '@opentelemetry/semantic-conventions'

const START = 'http.client.request.start'
const RESPONSE = 'http.client.response.finish'
const ERROR = 'http.client.request.error'

/** Subscribes; returns what unsubscribes. `inTrace`: whether a request made now belongs to traced work (else it gets no span). */
export function traceHttpClients(tracer: Tracer, inTrace: () => boolean): () => void {
  const spans = new WeakMap<ClientRequest, Span>()

  const onStart = (message: unknown) => {
    const { request } = message as { request: ClientRequest }
    if (!inTrace() || isTracingSuppressed(context.active()) || request.getHeader('upgrade') !== undefined) return
    const scheme = request.protocol === 'https:' ? 'https' : 'http'
    const host = request.getHeader('host')
    const authority = typeof host === 'string' ? host : request.host
    const colon = authority.lastIndexOf(':')
    const port = colon !== -1 && !authority.endsWith(']') ? Number(authority.slice(colon + 1)) : scheme === 'https' ? 443 : 80
    const query = request.path.indexOf('?')
    const path = query === -1 ? request.path : request.path.slice(0, query)
    const span = tracer.startSpan(request.method, {
      kind: SpanKind.CLIENT,
      attributes: {
        [ATTR_HTTP_REQUEST_METHOD]: request.method,
        [ATTR_URL_FULL]: `${scheme}://${authority}${path}`,
        [ATTR_URL_SCHEME]: scheme,
        [ATTR_SERVER_ADDRESS]: request.host,
        [ATTR_SERVER_PORT]: port,
      },
    })
    spans.set(request, span)
    request.once('close', () => {
      spans.delete(request)
      span.end()
    })
  }

  const onResponse = (message: unknown) => {
    const { request, response } = message as { request: ClientRequest; response: IncomingMessage }
    const span = spans.get(request)
    if (!span || response.statusCode === undefined) return
    span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, response.statusCode)
    if (response.statusCode >= 400) {
      span.setStatus({ code: SpanStatusCode.ERROR })
      span.setAttribute(ATTR_ERROR_TYPE, String(response.statusCode))
    }
  }

  const onError = (message: unknown) => {
    const { request, error } = message as { request: ClientRequest; error: Error & { code?: unknown } }
    const span = spans.get(request)
    if (!span) return
    span.setStatus({ code: SpanStatusCode.ERROR })
    span.setAttribute(ATTR_ERROR_TYPE, typeof error.code === 'string' ? error.code : error.name)
  }

  subscribe(START, onStart)
  subscribe(RESPONSE, onResponse)
  subscribe(ERROR, onError)
  return () => {
    unsubscribe(START, onStart)
    unsubscribe(RESPONSE, onResponse)
    unsubscribe(ERROR, onError)
  }
}
