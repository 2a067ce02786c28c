/**
 * What the Vapi fake's route modules share (test/fakes/vapi.ts holds the server; vapi-calls.ts and
 * other route modules register on it): Vapi's error body, the fault kinds, and the host interface a
 * route module receives. A leaf module, so route modules never import vapi.ts (no import cycle).
 */
import type { IncomingHttpHeaders } from 'node:http'
import type { FastifyContextConfig, FastifyInstance, FastifyReply } from 'fastify'

export const ORG_ID = 'org-fake-0001'

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  408: 'Request Timeout',
  409: 'Conflict',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
}

/** Vapi's error body: {"message": ["…"] | "…", "error": "Bad Request", "statusCode": 400}. */
export function vapiError(status: number, message: string | string[]) {
  return { message, error: REASONS[status] ?? 'Error', statusCode: status }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

export type RecordedRequest = {
  method: string
  /** The path without the query string. */
  path: string
  headers: IncomingHttpHeaders
  body: unknown
  /** Milliseconds since the fake started. */
  at: number
}

/**
 * A fault applied to the next request(s) of a route. `commit` (POST /call and POST /chat): the
 * resource is created anyway, then the fault answers: "created server-side, but the client saw a
 * 5xx / no answer / a dropped connection".
 */
export type Fault =
  | { kind: 'status'; status: number; body?: unknown; retryAfterSeconds?: number; commit?: boolean }
  | { kind: 'latency'; ms: number }
  | { kind: 'hang'; commit?: boolean }
  | { kind: 'drop'; commit?: boolean }
  | { kind: 'stall-stream'; afterDeltas: number }
  /** Answers normally: a placeholder in a sequence such as [503, 201, 503]. */
  | { kind: 'pass' }

/**
 * A route registered with this config skips the Bearer check (still recorded): Vapi's monitor
 * URLs answer without the private key (monitorPlan.controlAuthenticationEnabled is false by default).
 */
export const PUBLIC_ROUTE = { config: { vapiAuth: false } as FastifyContextConfig }

/** What a route module (vapi-calls.ts, …) gets from the fake to register its routes on. */
export interface FakeVapiHost {
  readonly app: FastifyInstance
  /** The private key REST routes require as `Authorization: Bearer <apiKey>`. */
  readonly apiKey: string
  /** The fake's base URL (valid once started). */
  readonly url: string
  /** The fake's clock (createdAt, updatedAt, webhook timestamps). */
  now(): Date
  /** Takes the next fault queued for a route such as 'POST /call', if any. */
  takeFault(route: string): Fault | undefined
  /**
   * Applies a fault to a request: waits (latency), never answers (hang), drops the connection
   * (drop) or answers a status fault. Returns true when the request is answered or abandoned (the
   * route must stop), false when the route should go on (latency, pass, stall-stream).
   */
  answerFault(reply: FastifyReply, fault: Fault): Promise<boolean>
  /** Runs `reset` when the fake is reset (tests call `fake.reset()` between cases). */
  onReset(reset: () => void): void
}
