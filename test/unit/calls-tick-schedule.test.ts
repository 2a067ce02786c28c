import { Cron } from 'croner'
import { describe, expect, it } from 'vitest'
import { callsTick } from '#server/jobs/calls'

describe('the calls-tick schedule', () => {
  it('runs every minute, half a minute off the call times (whole minutes), never in a burst of dials', () => {
    const cron = new Cron(callsTick.schedule!.cron, { timezone: callsTick.schedule!.tz, paused: true })
    const runs = cron.nextRuns(3, new Date('2026-06-15T13:59:59.500Z'))
    expect(runs.map((run) => run.toISOString())).toEqual(['2026-06-15T14:00:30.000Z', '2026-06-15T14:01:30.000Z', '2026-06-15T14:02:30.000Z'])
  })
})
