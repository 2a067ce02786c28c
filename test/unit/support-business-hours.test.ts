/**
 * Support's first-response targets count business hours (Monday to Friday, 9 AM to 5 PM in New
 * York, docs/decisions/077): across evenings, weekends and both daylight-saving changes.
 */
import { describe, expect, it } from 'vitest'
import { FIRST_RESPONSE_BUSINESS_HOURS, supportPriorityOf } from '#common/support'
import { addBusinessHours } from '#server/services/support'

const at = (iso: string) => new Date(iso)

describe('addBusinessHours', () => {
  it('counts within the day, and carries the rest over to the next opening', () => {
    // Tuesday 10:00 EST (15:00 UTC) + 4 h = 14:00 EST.
    expect(addBusinessHours(at('2026-12-01T15:00:00Z'), 4).toISOString()).toBe('2026-12-01T19:00:00.000Z')
    // Tuesday 15:00 EST + 4 h: 2 h today, 2 h from Wednesday 9:00 = Wednesday 11:00 EST.
    expect(addBusinessHours(at('2026-12-01T20:00:00Z'), 4).toISOString()).toBe('2026-12-02T16:00:00.000Z')
    // Ending exactly at closing stays that day.
    expect(addBusinessHours(at('2026-12-01T14:00:00Z'), 8).toISOString()).toBe('2026-12-01T22:00:00.000Z')
  })

  it('starts from the next opening at night and over the weekend', () => {
    // Tuesday 23:00 EST: from Wednesday 9:00, + 4 h = 13:00 EST.
    expect(addBusinessHours(at('2026-12-02T04:00:00Z'), 4).toISOString()).toBe('2026-12-02T18:00:00.000Z')
    // Friday 16:00 EST + 4 h: 1 h Friday, 3 h from Monday 9:00 = Monday 12:00 EST.
    expect(addBusinessHours(at('2026-12-04T21:00:00Z'), 4).toISOString()).toBe('2026-12-07T17:00:00.000Z')
    // Saturday noon + 16 h (two business days): Monday and Tuesday, due Tuesday 17:00 EST.
    expect(addBusinessHours(at('2026-12-05T17:00:00Z'), 16).toISOString()).toBe('2026-12-08T22:00:00.000Z')
  })

  it('keeps 9 to 5 local across the daylight-saving changes', () => {
    // Friday 2027-03-12 15:00 EST + 4 h: 2 h Friday, then Monday 9:00 EDT (13:00 UTC) + 2 h = 11:00 EDT.
    expect(addBusinessHours(at('2027-03-12T20:00:00Z'), 4).toISOString()).toBe('2027-03-15T15:00:00.000Z')
    // Friday 2027-11-05 15:00 EDT + 4 h: 2 h Friday, then Monday 9:00 EST (14:00 UTC) + 2 h = 11:00 EST.
    expect(addBusinessHours(at('2027-11-05T19:00:00Z'), 4).toISOString()).toBe('2027-11-08T16:00:00.000Z')
  })
})

describe('the targets by plan', () => {
  it('gives Elite 4 business hours, Premium 8, and Basic or no plan 16', () => {
    expect(FIRST_RESPONSE_BUSINESS_HOURS[supportPriorityOf('elite')]).toBe(4)
    expect(FIRST_RESPONSE_BUSINESS_HOURS[supportPriorityOf('premium')]).toBe(8)
    expect(FIRST_RESPONSE_BUSINESS_HOURS[supportPriorityOf('basic')]).toBe(16)
    expect(FIRST_RESPONSE_BUSINESS_HOURS[supportPriorityOf(null)]).toBe(16)
  })
})
