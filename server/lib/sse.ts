import { PassThrough } from 'node:stream'
import type { FastifyReply } from 'fastify'
import { formatSse } from '#common/sse'

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
