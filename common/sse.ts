/**
 * Server-sent events: parsing a text/event-stream body (our stream to the browser, and Vapi's
 * stream to the server) and writing one event.
 */

type SseEvent = { event: string; data: string; id: string | undefined }

/**
 * Parses a text/event-stream body into events (the WHATWG rules: `event:`, `data:` lines joined
 * with newlines, `id:`, comments ignored, a blank line ends an event; CRLF, CR or LF).
 */
export async function* parseSse(body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder()
  let buffer = ''
  let event = ''
  let data: string[] = []
  let id: string | undefined
  let hasData = false

  function* flushLines(final: boolean): Generator<SseEvent> {
    for (;;) {
      const match = /\r\n|\r|\n/.exec(buffer)
      if (!match) break
      // A lone CR at the very end may be the first half of a CRLF still in transit.
      if (match[0] === '\r' && match.index === buffer.length - 1 && !final) break
      const line = buffer.slice(0, match.index)
      buffer = buffer.slice(match.index + match[0].length)
      if (line === '') {
        if (hasData) yield { event: event || 'message', data: data.join('\n'), id }
        event = ''
        data = []
        hasData = false
        continue
      }
      if (line.startsWith(':')) continue
      const colon = line.indexOf(':')
      const field = colon === -1 ? line : line.slice(0, colon)
      let value = colon === -1 ? '' : line.slice(colon + 1)
      if (value.startsWith(' ')) value = value.slice(1)
      if (field === 'data') {
        data.push(value)
        hasData = true
      } else if (field === 'event') event = value
      else if (field === 'id') id = value
    }
  }

  const iterable: AsyncIterable<Uint8Array> =
    Symbol.asyncIterator in body ? (body as AsyncIterable<Uint8Array>) : readerIterable(body as ReadableStream<Uint8Array>)
  for await (const chunk of iterable) {
    buffer += decoder.decode(chunk, { stream: true })
    yield* flushLines(false)
  }
  buffer += decoder.decode()
  yield* flushLines(true)
  // A last line without its line break still counts.
  if (buffer !== '') {
    buffer += '\n'
    yield* flushLines(true)
  }
  if (hasData) yield { event: event || 'message', data: data.join('\n'), id }
}

async function* readerIterable(stream: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader()
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return
      if (value) yield value
    }
  } finally {
    reader.releaseLock()
  }
}

/** One server-sent event as written on the wire. */
export function formatSse(event: string, data: unknown): string {
  const text = JSON.stringify(data)
  return `event: ${event}\ndata: ${text}\n\n`
}
