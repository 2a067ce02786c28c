import { randomUUID } from 'node:crypto'
import { PassThrough } from 'node:stream'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { formatSse } from '#common/sse'
import { AppError } from './app-error'
import type { Slots } from './slots'

/** A comment line on an open event stream this often, so proxies keep it open. */
const KEEP_ALIVE_MS = 25_000
/** A stream's slot lapses unless renewed (at each keep-alive): a server that dies frees its streams' slots. */
const STREAM_SLOT_TTL_MS = KEEP_ALIVE_MS * 3

/** The media type of server-sent events. */
export const EVENT_STREAM = 'text/event-stream'

/**
 * A server-sent event stream for one reply. Writes after the browser went away (or after `end`)
 * are dropped; `open` sends the 200 that starts it.
 */
type EventStream = {
  /** The body: a route that keeps its open streams (to end them on close) keeps this. */
  readonly stream: PassThrough
  /** Writes raw lines (a `: comment\n\n` keep-alive, say). */
  write(chunk: string): void
  /** Writes one event: its type and its data as JSON. */
  event(type: string, data: unknown): void
  /** Sends the 200 whose body is the stream: never cached, never buffered by a proxy. */
  open(reply: FastifyReply): FastifyReply
}

export function eventStream(): EventStream {
  const stream = new PassThrough()
  // A browser that went away destroys the stream; its error is of no further interest.
  stream.on('error', () => {})
  const write = (chunk: string) => {
    if (!stream.destroyed && !stream.writableEnded) stream.write(chunk)
  }
  return {
    stream,
    write,
    event: (type, data) => write(formatSse(type, data)),
    open: (reply) =>
      reply
        .code(200)
        .type(`${EVENT_STREAM}; charset=utf-8`)
        .header('cache-control', 'no-store')
        .header('x-accel-buffering', 'no')
        // A stream is sent as it is, never through the response serializer.
        .send(stream as never),
  }
}

/**
 * Serves one person's live event stream (the opt-in screen's, the coach thread's): takes one of
 * their `max` slots on every server (429 past them), subscribes, keeps the stream alive with a
 * comment line (renewing the slot), ends it when either side closes or the server does (`open`
 * holds the streams), then sends `ready`. A subscription that cannot start answers 503.
 */
export async function serveUserStream(
  request: FastifyRequest,
  reply: FastifyReply,
  options: {
    slots: Slots
    open: Set<PassThrough>
    max: number
    subscribe: (sse: EventStream) => { ready: Promise<void>; unsubscribe(): void }
    /** What the log says when the subscription cannot start. */
    what: string
  },
): Promise<FastifyReply> {
  const userId = request.user.id
  const slot = randomUUID()
  if (!(await options.slots.take(userId, slot, options.max, STREAM_SLOT_TTL_MS))) {
    throw new AppError('RATE_LIMITED', 'Too many live update streams are open for your account. Close a tab and try again.')
  }
  const sse = eventStream()
  const { stream } = sse
  const subscription = options.subscribe(sse)
  const keepAlive = setInterval(() => {
    sse.write(': keep-alive\n\n')
    options.slots.renew(userId, slot, STREAM_SLOT_TTL_MS).catch(() => {})
  }, KEEP_ALIVE_MS)
  keepAlive.unref()
  options.open.add(stream)
  let stopped = false
  const stop = () => {
    if (stopped) return
    stopped = true
    clearInterval(keepAlive)
    subscription.unsubscribe()
    options.open.delete(stream)
    options.slots.release(userId, slot).catch(() => {})
    if (!stream.writableEnded) stream.end()
  }
  request.raw.on('close', stop)
  stream.on('close', stop)
  // A browser that left while its slot was being taken: nothing to hold for it.
  if (request.raw.destroyed) stop()
  try {
    await subscription.ready
  } catch (error) {
    stop()
    request.log.warn({ err: error }, `${options.what}: could not listen`)
    throw new AppError('SERVICE_UNAVAILABLE', 'Live updates are not available right now.')
  }
  sse.open(reply)
  sse.event('ready', {})
  return reply
}
