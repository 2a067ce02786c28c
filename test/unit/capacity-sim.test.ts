import { describe, expect, it } from 'vitest'
import { lineUseWhileWaiting, simulatePerfect, type SimCall } from '../../bench/capacity-sim'

/** The capacity bench's perfect scheduler (bench/capacity-sim.ts), on cases worked out by hand. */

const dials = (calls: SimCall[], settings: Parameters<typeof simulatePerfect>[1]) => {
  const { dialledAt } = simulatePerfect(calls, settings)
  return Object.fromEntries(calls.map((call) => [call.id, dialledAt.get(call.id)]))
}
const fast = { perSecond: 1000, burst: 1000 }

describe('the perfect scheduler', () => {
  it('gives a line the instant one frees', () => {
    const calls = ['a', 'b', 'c'].map((id) => ({ id, dueAt: 0, holdMs: 10_000 }))
    expect(dials(calls, { lines: 1, pace: fast })).toEqual({ a: 0, b: 10_000, c: 20_000 })
    expect(dials(calls, { lines: 2, pace: fast })).toEqual({ a: 0, b: 0, c: 10_000 })
  })

  it('keeps to the pace when lines are plenty', () => {
    const calls = ['a', 'b', 'c', 'd'].map((id) => ({ id, dueAt: 0, holdMs: 60_000 }))
    expect(dials(calls, { lines: 10, pace: { perSecond: 1, burst: 1 } })).toEqual({ a: 0, b: 1000, c: 2000, d: 3000 })
    expect(dials(calls, { lines: 10, pace: { perSecond: 2, burst: 2 } })).toEqual({ a: 0, b: 0, c: 500, d: 1000 })
  })

  it('gives a freed line to the earliest-due waiting call, not the first to arrive in the list', () => {
    const calls = [
      { id: 'first', dueAt: 0, holdMs: 100_000 },
      { id: 'late', dueAt: 5000, holdMs: 1000 },
      { id: 'early', dueAt: 3000, holdMs: 1000 },
    ]
    expect(dials(calls, { lines: 1, pace: fast })).toEqual({ first: 0, early: 100_000, late: 101_000 })
  })

  it('dials another number while one waits for its own pace', () => {
    const calls = [
      { id: 'x1', dueAt: 0, holdMs: 60_000, numberId: 'x' },
      { id: 'x2', dueAt: 0, holdMs: 60_000, numberId: 'x' },
      { id: 'y1', dueAt: 0, holdMs: 60_000, numberId: 'y' },
    ]
    expect(dials(calls, { lines: 10, pace: { perSecond: 10, burst: 10 }, perNumber: { perSecond: 1, burst: 1 } })).toEqual({ x1: 0, y1: 0, x2: 1000 })
  })

  it('waits for calls not yet due, and reports the lines in use', () => {
    const result = simulatePerfect(
      [
        { id: 'a', dueAt: 0, holdMs: 5000 },
        { id: 'b', dueAt: 20_000, holdMs: 5000 },
      ],
      { lines: 1, pace: fast },
    )
    expect([...result.dialledAt]).toEqual([['a', 0], ['b', 20_000]])
    expect(result.lines).toEqual([[0, 1], [5000, 0], [20_000, 1]])
  })
})

describe('line use while calls wait', () => {
  it('averages the lines in use over the union of the waits', () => {
    // Waits cover 0–20 s; 1 line in use 0–10 s, 2 lines 10–20 s, of 2: (10 + 20) / 40.
    expect(lineUseWhileWaiting([[0, 10], [5, 20]], [[0, 1], [10, 2], [30, 0]], 2)).toEqual({ share: 0.75, waitedMs: 20 })
    // Two separate waits; the lines between them do not count.
    expect(lineUseWhileWaiting([[0, 10], [20, 30]], [[0, 2], [10, 0], [20, 1]], 2)).toEqual({ share: 0.75, waitedMs: 20 })
    expect(lineUseWhileWaiting([[5, 5]], [[0, 1]], 1)).toEqual({ share: 1, waitedMs: 0 })
  })
})
