import { describe, expect, it } from 'vitest'
import { TIMEZONES } from '#common/goals'
import { fireInstant, insideAllowedWindow, localDateOf, localTimeOf, nextFireAfter } from '#server/services/calls'
import { compareWithOracle } from '../helpers/dst-oracle'

const NY = 'America/New_York'

describe('fireInstant: a local call time on a local date, DST-safe', () => {
  it('is the plain wall-clock instant on an ordinary day', () => {
    expect(fireInstant('2026-06-15', '07:30', NY).toISOString()).toBe('2026-06-15T11:30:00.000Z') // EDT, -4
    expect(fireInstant('2026-12-15', '07:30', NY).toISOString()).toBe('2026-12-15T12:30:00.000Z') // EST, -5
    expect(fireInstant('2026-06-15', '07:30', 'Pacific/Honolulu').toISOString()).toBe('2026-06-15T17:30:00.000Z')
    expect(fireInstant('2026-06-15', '07:30', 'America/St_Johns').toISOString()).toBe('2026-06-15T10:00:00.000Z') // -2:30
  })

  it('on a spring-forward day, a time that does not exist fires at the first valid minute after it', () => {
    // 2026-03-08 in New York: 2:00 AM EST becomes 3:00 AM EDT (07:00Z).
    expect(fireInstant('2026-03-08', '02:00', NY).toISOString()).toBe('2026-03-08T07:00:00.000Z')
    expect(fireInstant('2026-03-08', '02:30', NY).toISOString()).toBe('2026-03-08T07:00:00.000Z')
    expect(localTimeOf(fireInstant('2026-03-08', '02:30', NY), NY)).toBe('03:00')
    expect(fireInstant('2026-03-08', '03:00', NY).toISOString()).toBe('2026-03-08T07:00:00.000Z')
    expect(fireInstant('2026-03-08', '01:30', NY).toISOString()).toBe('2026-03-08T06:30:00.000Z')
  })

  it('on a fall-back day, an ambiguous time fires once, at its first occurrence', () => {
    // 2026-11-01 in New York: 1:00-1:59 AM happens twice (EDT, then EST).
    expect(fireInstant('2026-11-01', '01:30', NY).toISOString()).toBe('2026-11-01T05:30:00.000Z') // the EDT one
    expect(fireInstant('2026-11-01', '02:00', NY).toISOString()).toBe('2026-11-01T07:00:00.000Z')
  })
})

describe('nextFireAfter: the next call, never by adding 24 hours', () => {
  it('is today when the time is still ahead, else tomorrow', () => {
    expect(nextFireAfter(new Date('2026-06-15T11:00:00Z'), '07:30', NY).toISOString()).toBe('2026-06-15T11:30:00.000Z')
    expect(nextFireAfter(new Date('2026-06-15T11:30:00Z'), '07:30', NY).toISOString()).toBe('2026-06-16T11:30:00.000Z')
  })

  it('keeps the local time across both DST changes (23- and 25-hour days)', () => {
    const beforeSpring = nextFireAfter(new Date('2026-03-07T12:31:00Z'), '07:30', NY)
    expect(beforeSpring.toISOString()).toBe('2026-03-08T11:30:00.000Z') // 23 hours after the last call
    const beforeFall = nextFireAfter(new Date('2026-10-31T11:31:00Z'), '07:30', NY)
    expect(beforeFall.toISOString()).toBe('2026-11-01T12:30:00.000Z') // 25 hours after the last call
    expect(localTimeOf(beforeFall, NY)).toBe('07:30')
  })

  it('calls an ambiguous time once: after its first occurrence the next call is the next day', () => {
    const first = nextFireAfter(new Date('2026-11-01T00:00:00Z'), '01:30', NY)
    expect(first.toISOString()).toBe('2026-11-01T05:30:00.000Z')
    const next = nextFireAfter(first, '01:30', NY)
    expect(localDateOf(next, NY)).toBe('2026-11-02')
    expect(next.toISOString()).toBe('2026-11-02T06:30:00.000Z')
  })

  it('walks a whole year of one call a day: one fire per local date, each at the chosen local time or the jump', () => {
    let at = new Date('2025-12-31T12:00:00Z')
    const dates = new Set<string>()
    for (let i = 0; i < 365; i++) {
      at = nextFireAfter(at, '02:30', NY)
      dates.add(localDateOf(at, NY))
      expect(['02:30', '03:00']).toContain(localTimeOf(at, NY))
    }
    expect(dates.size).toBe(365)
  })
})

describe('agrees with an independent oracle (Intl, minute by minute)', () => {
  it('every half hour of 2026 in every product zone', () => {
    const { compared, disagreements } = compareWithOracle(
      fireInstant,
      TIMEZONES.map((zone) => zone.iana),
      '2026-01-01',
      '2026-12-31',
    )
    expect(compared).toBe(8 * 365 * 48)
    expect(disagreements).toEqual([])
  }, 60_000)
})

describe('insideAllowedWindow: 8:00 AM to 9:00 PM local', () => {
  it('holds the bounds in the person\'s zone', () => {
    expect(insideAllowedWindow(new Date('2026-06-15T12:00:00Z'), NY)).toBe(true) // 8:00 AM
    expect(insideAllowedWindow(new Date('2026-06-15T11:59:00Z'), NY)).toBe(false) // 7:59 AM
    expect(insideAllowedWindow(new Date('2026-06-16T01:00:00Z'), NY)).toBe(true) // 9:00 PM
    expect(insideAllowedWindow(new Date('2026-06-16T01:01:00Z'), NY)).toBe(false) // 9:01 PM
  })
})
