import { describe, expect, it } from 'vitest'
import { CATCH_UP_MS, latestDueWeek, mayBeDue, nextDueWeek, reportWeek } from '#server/services/reports'
import { oracleFireInstant } from '../helpers/dst-oracle'

const ZONES = ['America/New_York', 'America/Los_Angeles', 'America/Sao_Paulo', 'Europe/London', 'Europe/Berlin', 'Asia/Kolkata', 'Asia/Kathmandu', 'Australia/Lord_Howe', 'Australia/Adelaide', 'Pacific/Chatham', 'Pacific/Apia', 'Pacific/Honolulu']
// Sundays around the 2026 changes: US (Mar 8, Nov 1), EU (Mar 29, Oct 25), southern ones (Apr 5, Sep 27, Oct 4).
const SUNDAYS = ['2026-03-08', '2026-03-15', '2026-03-29', '2026-04-05', '2026-09-27', '2026-10-04', '2026-10-25', '2026-11-01', '2026-11-08']

const previousSunday = (date: string) => new Date(Date.parse(`${date}T00:00:00Z`) - 7 * 86_400_000).toISOString().slice(0, 10)

describe("a report's week", () => {
  it('runs from the Sunday before at 6:00 PM local to this Sunday at 6:00 PM local, as an independent oracle says, across DST changes', () => {
    for (const zone of ZONES) {
      for (const sunday of SUNDAYS) {
        const week = reportWeek(sunday, zone)
        expect(week.periodEnd, `${zone} ${sunday}`).toEqual(oracleFireInstant(sunday, '18:00', zone))
        expect(week.periodStart, `${zone} ${sunday}`).toEqual(oracleFireInstant(previousSunday(sunday), '18:00', zone))
      }
    }
  })

  it('is 167 hours long across the spring change, 169 across the autumn one, 168 otherwise', () => {
    const hours = (sunday: string, zone: string) => {
      const week = reportWeek(sunday, zone)
      return (week.periodEnd.getTime() - week.periodStart.getTime()) / 3_600_000
    }
    expect(hours('2026-03-08', 'America/New_York')).toBe(167)
    expect(hours('2026-11-01', 'America/New_York')).toBe(169)
    expect(hours('2026-11-08', 'America/New_York')).toBe(168)
    // Lord Howe moves its clocks by half an hour.
    expect(hours('2026-10-04', 'Australia/Lord_Howe')).toBe(167.5)
  })

  it('is due at its Sunday 6:00 PM exactly: a minute before, the week before is the latest due', () => {
    for (const zone of ZONES) {
      const due = oracleFireInstant('2026-11-01', '18:00', zone)
      expect(latestDueWeek(due, zone).weekEnding, zone).toBe('2026-11-01')
      expect(latestDueWeek(new Date(due.getTime() - 60_000), zone).weekEnding, zone).toBe('2026-10-25')
      expect(latestDueWeek(new Date(due.getTime() + 6 * 86_400_000), zone).weekEnding, zone).toBe('2026-11-01')
      expect(nextDueWeek(due, zone).weekEnding, zone).toBe('2026-11-08')
    }
  })

  it('refuses a date that is not a Sunday', () => {
    expect(() => reportWeek('2026-11-02', 'America/New_York')).toThrow(/not a Sunday/)
  })
})

describe('the hours the tick reads anything', () => {
  it("cover every zone's Sunday 6:00 PM and its catch-up, and leave out the middle of the week", () => {
    for (const zone of Intl.supportedValuesOf('timeZone')) {
      for (const sunday of ['2026-03-08', '2026-06-14', '2026-11-01', '2026-12-27']) {
        const due = reportWeek(sunday, zone).periodEnd
        expect(mayBeDue(due), `${zone} ${sunday}`).toBe(true)
        expect(mayBeDue(new Date(due.getTime() + CATCH_UP_MS - 60_000)), `${zone} ${sunday} catch-up`).toBe(true)
      }
    }
    for (const instant of ['2026-11-04T12:00:00Z', '2026-11-06T23:00:00Z', '2026-11-03T00:00:00Z', '2026-11-07T23:59:00Z']) expect(mayBeDue(new Date(instant)), instant).toBe(false)
  })
})

