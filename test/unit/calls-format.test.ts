import { describe, expect, it } from 'vitest'
import { NO_CALL_REASONS } from '#common/calls'
import {
  addDays,
  callKindLabel,
  clockTime,
  dayLabel,
  durationText,
  endedReasonText,
  eventText,
  lateDurationText,
  lateText,
  localDateIn,
  longDate,
  nextCallText,
  noCallExplanation,
  skipReasonText,
  zoneLabel,
} from '../../web/src/features/calls/format'
import { callNowErrorToast } from '../../web/src/features/calls/call-now'
import { ApiError } from '../../web/src/lib/api-error'

const next = (localDate: string, localTime: string, timeZone = 'America/New_York') => ({
  at: '2026-11-22T12:30:00.000Z',
  slot: 'daily' as const,
  kind: 'check_in' as const,
  localDate,
  localTime,
  timeZone,
})

describe('the next call in words', () => {
  // 2026-11-22T03:00Z: still Saturday the 21st in New York, already Sunday the 22nd in London.
  const now = new Date('2026-11-22T03:00:00Z')

  it('says Today or Tomorrow by the date in the call\'s zone, then the 12-hour time and the zone\'s name', () => {
    expect(nextCallText(next('2026-11-22', '07:30'), now)).toBe('Tomorrow, 7:30 AM Eastern')
    expect(nextCallText(next('2026-11-21', '23:00'), now)).toBe('Today, 11:00 PM Eastern')
    expect(nextCallText(next('2026-11-22', '12:00', 'Europe/London'), now)).toBe('Today, 12:00 PM Europe/London')
    expect(nextCallText(next('2026-11-24', '00:30', 'America/St_Johns'), now)).toBe('Tuesday, November 24, 12:30 AM Newfoundland')
    expect(nextCallText(next('2027-01-04', '19:00'), now)).toBe('Monday, January 4, 2027, 7:00 PM Eastern')
  })

  it('has the helpers it is made of', () => {
    expect(localDateIn(now, 'America/Los_Angeles')).toBe('2026-11-21')
    expect(localDateIn(now, 'Europe/London')).toBe('2026-11-22')
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01')
    expect(addDays('2028-02-28', 1)).toBe('2028-02-29')
    expect(dayLabel('2026-11-23', '2026-11-21')).toBe('Monday, November 23')
    expect(longDate('2026-12-01')).toBe('Tuesday, December 1, 2026')
    expect(clockTime('00:00')).toBe('12:00 AM')
    expect(clockTime('12:30')).toBe('12:30 PM')
    expect(zoneLabel('Pacific/Honolulu')).toBe('Hawaii')
    expect(callKindLabel('evening', 'check_in')).toBe('Evening check-in')
    expect(callKindLabel('daily', 'goal_session')).toBe('Monthly goal session')
    expect(callKindLabel(undefined, undefined)).toBe('Daily check-in')
    expect(callKindLabel('web', 'web')).toBe('Voice call in the app')
  })

  it('explains every reason there is no call, with where to fix it', () => {
    expect(noCallExplanation('paused', '2026-12-01', '2026-11-21').description).toBe('Calls are paused until Tuesday, December 1.')
    expect(noCallExplanation('consent', null, '2026-11-21')).toMatchObject({ title: 'Calls are turned off', action: { to: '/calls/schedule' } })
    expect(noCallExplanation('payment', null, '2026-11-21').action).toMatchObject({ to: '/payment' })
    expect(noCallExplanation('onboarding', null, '2026-11-21').action).toMatchObject({ to: '/goal-intake' })
    expect(noCallExplanation('phone', null, '2026-11-21')).toMatchObject({ action: null, description: 'We do not have a phone number to call you on.' })
    expect(noCallExplanation('no_call_time', null, '2026-11-21').title).toBe('No call time chosen')
    expect(noCallExplanation('not_configured', null, '2026-11-21').description).toBe('Coaching calls are not set up on this server yet.')
  })

  it('offers "Verify your number" on the spot for a number not proven yet, and the way back from a STOP with our number', () => {
    expect(noCallExplanation('unverified', null, '2026-11-21')).toEqual({
      title: 'Verify your number',
      description: 'We call and text only a number you have proven is yours. Verify your number to get your calls.',
      action: null,
      verify: true,
    })
    const stopped = noCallExplanation('stopped', null, '2026-11-21', '+1 (555) 555-0123')
    expect(stopped).toMatchObject({ title: 'Calls and texts are stopped', action: null })
    expect(stopped.description).toBe('This number texted STOP. Text START to +1 (555) 555-0123 to turn calls and texts back on.')
    expect(stopped.verify).toBeUndefined()
  })

  it('gives every reason the server can send its own words', () => {
    const generic = noCallExplanation(null, null, '2026-11-21').description
    for (const reason of NO_CALL_REASONS) expect(noCallExplanation(reason, null, '2026-11-21').description, reason).not.toBe(generic)
  })
})

describe('a call in words', () => {
  const call = { endedReason: 'customer-busy', skipReason: 'paused', timeZone: 'America/Chicago' }

  it("puts Vapi's ended reasons and our skip reasons into words", () => {
    expect(endedReasonText('customer-did-not-answer')).toBe('no answer')
    expect(endedReasonText('call.in-progress.error-providerfault-outbound-sip-480-temporarily-unavailable')).toBe('no answer')
    expect(endedReasonText('call.start.error-subscription-insufficient-credits')).toBe('the call could not be started (a problem on our side)')
    expect(endedReasonText('call.in-progress.error-vapifault-worker-died')).toBe('the calling service had a problem')
    expect(endedReasonText('some-new-reason')).toBe('some new reason')
    // Ours: a call the sweep finished because Vapi never ended it.
    expect(endedReasonText('call-never-ended')).toBe('the calling service never reported the end of the call')
    expect(skipReasonText('consent')).toBe('calls were turned off')
    expect(skipReasonText('quota_reached')).toBe('quota reached')
    expect(durationText(0)).toBe('0 s')
    expect(durationText(312)).toBe('5 min 12 s')
    expect(durationText(600)).toBe('10 min')
  })

  it('tells each step of the timeline, times in the call\'s zone', () => {
    const at = '2026-11-21T13:40:00.000Z'
    expect(eventText({ type: 'ended', at, detail: { endedReason: 'voicemail' } }, call)).toBe('Ended: it reached voicemail')
    expect(eventText({ type: 'ended', at, detail: null }, call)).toBe('Ended: the line was busy')
    expect(eventText({ type: 'retry_scheduled', at, detail: { retryAt: '2026-11-21T13:50:00.000Z', attempt: 1 } }, call)).toBe('Retry scheduled at 7:50 AM')
    expect(eventText({ type: 'retry_scheduled', at, detail: null }, call)).toBe('Retry scheduled')
    expect(eventText({ type: 'skipped', at, detail: { reason: 'phone' } }, call)).toBe('Skipped because there was no phone number to call')
    expect(eventText({ type: 'skipped', at, detail: null }, call)).toBe('Skipped because calls were paused')
    expect(eventText({ type: 'answered', at, detail: null }, call)).toBe('Answered')
    expect(eventText({ type: 'something_new', at, detail: null }, call)).toBe('Something new')
    // The detail the record writes (docs/decisions/039): the retry's instant under `at`, reasons under `reason`.
    expect(eventText({ type: 'retry_scheduled', at, detail: { at: '2026-11-21T14:10:00.000Z', attempt: 1, source: 'webhook' } }, call)).toBe('Retry scheduled at 8:10 AM')
    expect(eventText({ type: 'not_retried', at, detail: { reason: 'outside_allowed_hours' } }, call)).toBe(
      'Not retried because it would have been outside the hours we call at (8 AM to 9 PM)',
    )
    expect(eventText({ type: 'not_retried', at, detail: { reason: 'no_attempts_left' } }, call)).toBe('Not retried because both retries were used')
    expect(eventText({ type: 'dial_failed', at, detail: { reason: 'not-eligible-consent' } }, call)).toBe('Not placed: we could not call you: calls were turned off')
    expect(eventText({ type: 'dial_failed', at, detail: { reason: 'vapi-refused-402' } }, call)).toBe('Not placed: the calling service refused the call')
    expect(eventText({ type: 'ringing', at, detail: { late: true } }, call)).toBe('Ringing (reported late)')
  })
})

describe('a call placed late, in words (docs/decisions/070)', () => {
  const call = { endedReason: null, skipReason: null, timeZone: 'America/New_York' }
  const at = '2026-11-21T12:04:00.000Z'

  it('says how late to the nearest minute, in minutes and hours', () => {
    expect(lateDurationText(61)).toBe('1 minute')
    expect(lateDurationText(89)).toBe('1 minute')
    expect(lateDurationText(90)).toBe('2 minutes')
    expect(lateDurationText(240)).toBe('4 minutes')
    expect(lateDurationText(59 * 60 + 40)).toBe('1 hour')
    expect(lateDurationText(65 * 60)).toBe('1 hour 5 minutes')
    expect(lateDurationText(121 * 60)).toBe('2 hours 1 minute')
    expect(lateDurationText(150 * 60)).toBe('2 hours 30 minutes')
    // Never '0 minutes'.
    expect(lateDurationText(20)).toBe('1 minute')
  })

  it("says how late a call was placed and why, only when it was more than a minute late", () => {
    expect(lateText(240, 'lines_busy')).toBe('Placed 4 minutes late: all our coaching lines were busy')
    expect(lateText(61, 'pace')).toBe('Placed 1 minute late: many calls were due at once, and we place only a few calls a second')
    expect(lateText(3900, null)).toBe('Placed 1 hour 5 minutes late')
    // A reason this version does not know, or a key of every object: how late, without a why.
    expect(lateText(300, 'carrier_pause')).toBe('Placed 5 minutes late')
    expect(lateText(300, 'toString')).toBe('Placed 5 minutes late')
    expect(lateText(60, 'lines_busy')).toBeNull()
    expect(lateText(5, 'pace')).toBeNull()
    expect(lateText(null, 'lines_busy')).toBeNull()
    expect(lateText(undefined, undefined)).toBeNull()
  })

  it('tells the timeline\'s line_wait step and the skip for no free line', () => {
    expect(eventText({ type: 'line_wait', at, detail: { lateSeconds: 240, reason: 'lines_busy' } }, call)).toBe('Placed 4 minutes late: all our coaching lines were busy')
    expect(eventText({ type: 'line_wait', at, detail: { lateSeconds: 125, reason: 'pace' } }, call)).toBe(
      'Placed 2 minutes late: many calls were due at once, and we place only a few calls a second',
    )
    expect(eventText({ type: 'line_wait', at, detail: { lateSeconds: 3900, reason: 'lines_busy' } }, call)).toBe('Placed 1 hour 5 minutes late: all our coaching lines were busy')
    // A detail missing its seconds still says why; one missing everything says it was late.
    expect(eventText({ type: 'line_wait', at, detail: { reason: 'lines_busy' } }, call)).toBe('Placed late: all our coaching lines were busy')
    expect(eventText({ type: 'line_wait', at, detail: null }, call)).toBe('Placed late')
    expect(skipReasonText('no_line_free')).toBe('all our coaching lines were busy for an hour')
    expect(eventText({ type: 'skipped', at, detail: { reason: 'no_line_free' } }, call)).toBe('Skipped because all our coaching lines were busy for an hour')
    expect(endedReasonText('call.start.error-subscription-concurrency-limit-reached')).toBe('all our coaching lines were busy')
    expect(eventText({ type: 'dial_failed', at, detail: { reason: 'call.start.error-subscription-concurrency-limit-reached' } }, call)).toBe(
      'Not placed: all our coaching lines were busy',
    )
  })
})

describe('"Call me now" refused', () => {
  const error = (status: number, code: string, message: string) => new ApiError({ status, code, message })

  it("titles each of the server's answers and keeps its message", () => {
    expect(callNowErrorToast(error(409, 'CALLS_NOT_CONFIGURED', 'Coaching calls are not set up on this server yet.'))).toEqual({
      title: 'Calls are not set up',
      description: 'Coaching calls are not set up on this server yet.',
      variant: 'destructive',
    })
    expect(callNowErrorToast(error(409, 'CALL_NOT_ELIGIBLE', 'x')).title).toBe('We cannot call you right now')
    expect(callNowErrorToast(error(409, 'CALL_IN_PROGRESS', 'x')).title).toBe('A call is already under way')
    expect(callNowErrorToast(error(409, 'NUMBER_NOT_VERIFIED', 'Verify')).title).toBe('Verify your number first')
    expect(callNowErrorToast(error(409, 'NUMBER_STOPPED', 'This number texted STOP.'))).toMatchObject({ title: 'This number texted STOP', description: 'This number texted STOP.' })
    expect(callNowErrorToast(error(429, 'RATE_LIMITED', 'x')).title).toBe('Too many test calls')
    expect(callNowErrorToast(new Error('boom'))).toMatchObject({ title: "We couldn't start the call", description: 'boom' })
  })
})
