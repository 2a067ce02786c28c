import { TIMEZONES } from '#common/goals'
import { fireInstant, retryDecision } from '#server/services/calls'
import { compareWithOracle } from '../test/helpers/dst-oracle'

/**
 * DST: the next-fire instant of every product zone × 48 half-hour call times × every day from
 * 2026-01-01 to 2028-12-31, compared with an independent oracle (Intl, minute by minute around
 * each change). Goal: 0 disagreements.
 */
export function dstAgreement(): boolean {
  const zones = TIMEZONES.map((zone) => zone.iana)
  const { compared, disagreements } = compareWithOracle(fireInstant, zones, '2026-01-01', '2028-12-31')
  for (const line of disagreements.slice(0, 5)) console.log(`  disagreement: ${line}`)
  const pass = disagreements.length === 0
  console.log(
    `DST next-fire (8 zones x 48 half-hour times x every day 2026-2028): ${compared} instants, ` +
      `${disagreements.length} disagreements with the oracle (goal 0) ${pass ? 'OK' : 'BELOW GOAL'}`,
  )
  return pass && retriesInsideWindow(zones)
}

/** The local wall-clock minutes of the day of an instant in a zone, by Intl (not by the code under test). */
function localMinutes(formatters: Map<string, Intl.DateTimeFormat>, instant: Date, zone: string): { minutes: number; date: string } {
  let format = formatters.get(zone)
  if (!format) {
    format = new Intl.DateTimeFormat('en-CA', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit' })
    formatters.set(zone, format)
  }
  const parts = Object.fromEntries(format.formatToParts(instant).map((part) => [part.type, part.value]))
  return { minutes: Number(parts.hour) * 60 + Number(parts.minute), date: `${parts.year}-${parts.month}-${parts.day}` }
}

/**
 * The same calls, each unanswered: the retry ladder (10 then 30 minutes after the call ended) for
 * calls that ended 1 and 4 minutes after they fired. Goal: 0 retries scheduled outside 8:00 AM–9:00
 * PM local or on another local date, checked with Intl.
 */
function retriesInsideWindow(zones: string[]): boolean {
  const formatters = new Map<string, Intl.DateTimeFormat>()
  let scheduled = 0
  let outside = 0
  const always = () => true
  for (const zone of zones) {
    for (let day = Date.UTC(2026, 0, 1); day <= Date.UTC(2028, 11, 31); day += 86_400_000) {
      const localDate = new Date(day).toISOString().slice(0, 10)
      for (let half = 0; half < 48; half++) {
        const time = `${String(Math.floor(half / 2)).padStart(2, '0')}:${half % 2 ? '30' : '00'}`
        const fired = fireInstant(localDate, time, zone)
        for (const talkMinutes of [1, 4]) {
          let ended = new Date(fired.getTime() + talkMinutes * 60_000)
          for (let attempt = 0; attempt < 2; attempt++) {
            const decision = retryDecision({ slot: 'daily', attempt, localDate, timeZone: zone }, 'no_answer', 'customer-did-not-answer', ended, always)
            if (!decision?.retry) break
            scheduled++
            const local = localMinutes(formatters, decision.at, zone)
            if (local.minutes < 8 * 60 || local.minutes > 21 * 60 || local.date !== localDate) outside++
            ended = new Date(decision.at.getTime() + talkMinutes * 60_000)
          }
        }
      }
    }
  }
  const pass = outside === 0 && scheduled > 0
  console.log(`DST retries (the same calls unanswered, ended 1 and 4 minutes after firing): ${scheduled} retries scheduled, ${outside} outside 8:00 AM-9:00 PM local (goal 0) ${pass ? 'OK' : 'BELOW GOAL'}`)
  return pass
}
