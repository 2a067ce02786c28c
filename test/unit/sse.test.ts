import { describe, expect, it } from 'vitest'
import { formatSse, parseSse } from '#common/sse'

describe('server-sent events', () => {
  const encode = (...parts: string[]) => {
    const encoder = new TextEncoder()
    return new ReadableStream<Uint8Array>({
      start(controller) {
        for (const part of parts) controller.enqueue(encoder.encode(part))
        controller.close()
      },
    })
  }
  const collect = async (stream: ReadableStream<Uint8Array>) => {
    const events = []
    for await (const event of parseSse(stream)) events.push(event)
    return events
  }

  it('parses Vapi-style data lines split across chunks, CRLF and comments', async () => {
    const events = await collect(
      encode(': hello\r\n', 'data: {"id":"c1","path":"chat.output[0].content","de', 'lta":"Hi "}\r\n\r\n', 'data: {"id":"c1","delta":"there"}\n\n'),
    )
    expect(events.map((e) => JSON.parse(e.data).delta)).toEqual(['Hi ', 'there'])
    expect(events[0]!.event).toBe('message')
  })

  it('reads named events and multi-line data; a last event without a blank line still counts', async () => {
    const events = await collect(encode(formatSse('delta', { text: 'a' }), 'event: done\ndata: line1\ndata: line2'))
    expect(events).toEqual([
      { event: 'delta', data: '{"text":"a"}', id: undefined },
      { event: 'done', data: 'line1\nline2', id: undefined },
    ])
  })
})
