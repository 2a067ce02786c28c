import { TIMEZONES } from '#common/goals'
import { fireInstant } from '#server/services/calls'
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
  return pass
}
