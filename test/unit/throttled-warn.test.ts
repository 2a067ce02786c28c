import { describe, expect, it } from 'vitest'
import { THROTTLED_WARN_MS, throttledWarn } from '#server/lib/throttled-warn'

describe('throttledWarn', () => {
  it('logs the first error at once, then at most once a minute, each time with the latest error', () => {
    const lines: { err: Error; message: string }[] = []
    const log = { warn: (details: { err: Error }, message: string) => lines.push({ err: details.err, message }) }
    let now = 1_000_000
    const warn = throttledWarn(log, 'Redis is unavailable', () => now)
    const errors = [new Error('one'), new Error('two'), new Error('three'), new Error('four')]

    warn(errors[0]!)
    now += THROTTLED_WARN_MS - 1
    warn(errors[1]!)
    now += 1
    warn(errors[2]!)
    warn(errors[3]!)

    expect(THROTTLED_WARN_MS).toBe(60_000)
    expect(lines).toEqual([
      { err: errors[0], message: 'Redis is unavailable' },
      { err: errors[2], message: 'Redis is unavailable' },
    ])
  })

  it('keeps one clock per warning: two warnings do not silence each other', () => {
    const messages: string[] = []
    const log = { warn: (_details: { err: Error }, message: string) => messages.push(message) }
    const a = throttledWarn(log, 'a', () => 1_000_000)
    const b = throttledWarn(log, 'b', () => 1_000_000)
    a(new Error('x'))
    b(new Error('y'))
    a(new Error('z'))
    expect(messages).toEqual(['a', 'b'])
  })
})
