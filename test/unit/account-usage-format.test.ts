import { describe, expect, it } from 'vitest'
import { comesBackOn, counted, minutesOf } from '../../web/src/features/account/usage-format'

describe("the account page's figures of the plan's budget", () => {
  it('shows minutes: used rounded up, left rounded down, adding up to the limit', () => {
    expect(minutesOf({ used: 0, limit: 3600, left: 3600 })).toEqual({ used: 0, limit: 60, left: 60 })
    expect(minutesOf({ used: 95, limit: 3600, left: 3505 })).toEqual({ used: 2, limit: 60, left: 58 })
    expect(minutesOf({ used: 10, limit: 3600, left: 3590 })).toEqual({ used: 1, limit: 60, left: 59 })
    expect(minutesOf({ used: 3600, limit: 3600, left: 0 })).toEqual({ used: 60, limit: 60, left: 0 })
    // More than the limit (a call's last seconds): never more than the limit used, never below 0 left.
    expect(minutesOf({ used: 3700, limit: 3600, left: 0 })).toEqual({ used: 60, limit: 60, left: 0 })
  })

  it('says the day a budget comes back on the person’s calendar', () => {
    expect(comesBackOn('2026-07-01T04:00:00.000Z', 'America/New_York')).toBe('July 1')
    expect(comesBackOn('2026-07-01T07:00:00.000Z', 'America/Los_Angeles')).toBe('July 1')
  })

  it('counts in words', () => {
    expect(counted(1, 'minute', 'minutes')).toBe('1 minute')
    expect(counted(0, 'minute', 'minutes')).toBe('0 minutes')
    expect(counted(3000, 'message', 'messages')).toBe('3,000 messages')
  })
})
