import { describe, expect, it } from 'vitest'
import { callDurationLimit, callEligibility, slotTimes, type CallEligibilityInput } from '#server/services/calls'

const NOW = new Date('2026-06-15T12:00:00Z')
const eligible: CallEligibilityInput = {
  access: { hasSubscription: true, tier: 'premium' },
  onboardingCompleted: true,
  phoneNumber: '2025551234',
  phoneProven: true,
  phoneStopped: false,
  callConsent: true,
  pausedUntil: null,
  dailyCallTime: '07:30',
  timeZone: 'America/New_York',
}

describe('who is called', () => {
  it('calls a paid, onboarded person with a proven phone, consent and a call time', () => {
    expect(callEligibility(eligible, NOW)).toMatchObject({ eligible: true, plan: 'premium' })
  })

  it.each([
    ['payment', { access: { hasSubscription: false, tier: 'premium' as const } }],
    ['payment', { access: { hasSubscription: true, tier: null } }],
    ['onboarding', { onboardingCompleted: false }],
    ['phone', { phoneNumber: null }],
    ['unverified', { phoneProven: false }],
    ['stopped', { phoneStopped: true }],
    ['stopped', { phoneStopped: true, phoneProven: false }],
    ['unverified', { phoneProven: false, callConsent: false }],
    ['consent', { callConsent: false }],
    ['paused', { pausedUntil: new Date('2026-06-15T12:00:01Z') }],
    ['no_call_time', { dailyCallTime: null }],
    ['no_call_time', { timeZone: null }],
  ])('refuses for %s', (reason, change) => {
    expect(callEligibility({ ...eligible, ...change }, NOW)).toEqual({ eligible: false, reason })
  })

  it('calls again once a pause has ended', () => {
    expect(callEligibility({ ...eligible, pausedUntil: NOW }, NOW).eligible).toBe(true)
  })
})

describe('plan entitlements', () => {
  it('Basic: one call a day of at most 5 minutes, no goal session', () => {
    expect(slotTimes('basic', '07:30', '18:00')).toEqual([{ slot: 'daily', time: '07:30' }])
    expect(callDurationLimit('basic', true)).toEqual({ seconds: 300, goalSession: false })
  })

  it('Premium and Elite: two a day (evening 7:00 PM until picked), 10 and 15 minutes, a 30-minute goal session first each month', () => {
    expect(slotTimes('premium', '07:30', null)).toEqual([
      { slot: 'daily', time: '07:30' },
      { slot: 'evening', time: '19:00' },
    ])
    expect(slotTimes('elite', '06:00', '20:15')).toEqual([
      { slot: 'daily', time: '06:00' },
      { slot: 'evening', time: '20:15' },
    ])
    expect(callDurationLimit('premium', false)).toEqual({ seconds: 600, goalSession: false })
    expect(callDurationLimit('elite', false)).toEqual({ seconds: 900, goalSession: false })
    expect(callDurationLimit('premium', true)).toEqual({ seconds: 1800, goalSession: true })
    expect(callDurationLimit('elite', true)).toEqual({ seconds: 1800, goalSession: true })
  })
})
