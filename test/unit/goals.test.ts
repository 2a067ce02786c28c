import { describe, expect, it } from 'vitest'
import { LIFE_AREAS } from '#common/domain'
import { callMinutes, focusAreas, FOCUS_BELOW_SCORE, lifeAreaCount, overallScore, partnerBadge } from '#common/dashboard'
import { CALL_PERIODS, CALL_TIMES, COMPANIES, INDUSTRIES, LIFE_AREA_STEPS, PARTNER_COMPANY, SaveGoalsBodySchema, TIMEZONES, composeCallTime, emptyGoalsForm, formFromRecords, fromDailyCallTime, parseCallTime, satisfactionQuestion, timezoneDisplay, toDailyCallTime, type GoalRecord } from '#common/goals'
import {
  DASHBOARD_RETRIES,
  dashboardRetryDelay,
  dashboardRetrySchedule,
  shouldRetryDashboardLoad,
} from '../../web/src/features/dashboard/retry'

const record = (lifeArea: GoalRecord['lifeArea'], satisfactionScore: number | null, extra: Partial<GoalRecord> = {}): GoalRecord => ({
  lifeArea,
  satisfactionScore,
  selectedOptions: [],
  customNotes: null,
  specificGoals: null,
  updatedAt: '2026-11-21T12:00:00.000Z',
  ...extra,
})

describe('the wizard lists (spec 2 §2)', () => {
  it('has the eight life areas in the spec order with their titles and option counts', () => {
    expect(LIFE_AREA_STEPS.map((area) => area.id)).toEqual([...LIFE_AREAS])
    expect(LIFE_AREA_STEPS.map((area) => area.title)).toEqual([
      'Faith',
      'Family Relationships',
      'Fitness & Health',
      'Finance',
      'Friends & Social Life',
      'Fun & Recreation',
      'Service to Others',
      'Personal Development',
    ])
    expect(LIFE_AREA_STEPS.map((area) => area.shortLabel)).toEqual(['Faith', 'Family', 'Fitness', 'Finance', 'Friends', 'Fun', 'Service', 'Development'])
    expect(LIFE_AREA_STEPS.map((area) => area.options.length)).toEqual([5, 6, 5, 5, 5, 5, 5, 5])
    for (const area of LIFE_AREA_STEPS) {
      expect(new Set(area.options.map((o) => o.id)).size).toBe(area.options.length)
      expect(area.description.length).toBeGreaterThan(10)
    }
    expect(satisfactionQuestion(LIFE_AREA_STEPS[0])).toBe('How satisfied are you with your faith currently? (1-10)')
  })

  it('has the 11 companies with the partner company first, the 20 industries, 24 times and 8 timezones', () => {
    expect(COMPANIES).toHaveLength(11)
    expect(COMPANIES[0]).toEqual({ id: PARTNER_COMPANY.id, label: 'Northwind Traders' })
    expect(COMPANIES.map((c) => c.label).slice(1)).toEqual([
      'Microsoft', 'Apple', 'Google', 'Amazon', 'Local Hospital', 'Self-employed', 'Startup', 'Non-profit', 'Government Agency', 'Other',
    ])
    expect(INDUSTRIES).toHaveLength(20)
    expect(INDUSTRIES[0]!.label).toBe('Technology & Software')
    expect(INDUSTRIES.at(-1)!.label).toBe('Other')
    expect(CALL_TIMES).toHaveLength(24)
    expect(CALL_TIMES[0]).toBe('1:00')
    expect(CALL_TIMES[1]).toBe('1:30')
    expect(CALL_TIMES.at(-1)).toBe('12:30')
    expect(TIMEZONES.map((tz) => [tz.label, tz.iana])).toEqual([
      ['Eastern', 'America/New_York'],
      ['Central', 'America/Chicago'],
      ['Mountain', 'America/Denver'],
      ['Pacific', 'America/Los_Angeles'],
      ['Alaska', 'America/Anchorage'],
      ['Hawaii', 'Pacific/Honolulu'],
      ['Atlantic', 'America/Halifax'],
      ['Newfoundland', 'America/St_Johns'],
    ])
    expect(timezoneDisplay(TIMEZONES[0])).toBe('Eastern (ET)')
  })
})

describe('the preferred call time (spec 2 §3, §5)', () => {
  it('round-trips every one of the 24 x 2 x 8 combinations through its text', () => {
    let count = 0
    const texts = new Set<string>()
    for (const time of CALL_TIMES) {
      for (const period of CALL_PERIODS) {
        for (const tz of TIMEZONES) {
          const choice = { time, period, timezone: tz.id }
          const text = composeCallTime(choice)
          expect(text).toBe(`${time} ${period} ${tz.label} (${tz.abbreviation})`)
          expect(parseCallTime(text)).toEqual(choice)
          texts.add(text!)
          count += 1
        }
      }
    }
    expect(count).toBe(384)
    expect(texts.size).toBe(384)
  })

  it('is composed only when time, AM/PM and timezone are all chosen', () => {
    expect(composeCallTime({ time: '7:30', period: 'AM', timezone: null })).toBeNull()
    expect(composeCallTime({ time: '7:30', period: null, timezone: 'eastern' })).toBeNull()
    expect(composeCallTime({ time: null, period: 'PM', timezone: 'eastern' })).toBeNull()
  })

  it('parses hh:mm, AM or PM, then the timezone text, in the forms people and older saves use', () => {
    expect(parseCallTime('07:30 pm Pacific')).toEqual({ time: '7:30', period: 'PM', timezone: 'pacific' })
    expect(parseCallTime('12:00 AM Newfoundland (NT)')).toEqual({ time: '12:00', period: 'AM', timezone: 'newfoundland' })
    expect(parseCallTime('9:00 AM America/Chicago')).toEqual({ time: '9:00', period: 'AM', timezone: 'central' })
    for (const bad of ['', '7:30 Eastern', '7:15 AM Eastern', '13:00 PM Eastern', '7:30 AM Mars', 'soon', null, undefined]) {
      expect(parseCallTime(bad)).toBeNull()
    }
  })

  it('converts to and from the profile daily_call_time (24-hour)', () => {
    expect(toDailyCallTime('12:00', 'AM')).toBe('00:00:00')
    expect(toDailyCallTime('12:30', 'PM')).toBe('12:30:00')
    expect(toDailyCallTime('1:00', 'PM')).toBe('13:00:00')
    expect(toDailyCallTime('11:30', 'PM')).toBe('23:30:00')
    for (const time of CALL_TIMES) {
      for (const period of CALL_PERIODS) expect(fromDailyCallTime(toDailyCallTime(time, period))).toEqual({ time, period })
    }
  })
})

describe('Overall Score (spec 2 §9, averaged over the scored life areas)', () => {
  it('is the rounded mean of the life areas that have a score', () => {
    expect(overallScore([])).toBe(0)
    expect(overallScore([record('faith', 7)])).toBe(7)
    expect(overallScore([record('faith', 7), record('family', 8)])).toBe(8) // 7.5 rounds up
    expect(overallScore([record('faith', 7), record('family', null)])).toBe(7) // an unscored area is left out
    expect(overallScore([record('faith', 1), record('family', 2), record('fun', 2)])).toBe(2) // 1.67
  })

  it('leaves the two special records out: eight 8s are 8/10, not 6/10', () => {
    const all = [...LIFE_AREAS.map((area) => record(area, 8)), record('company_industry', null), record('specific_goals', null)]
    expect(overallScore(all)).toBe(8)
    expect(overallScore([record('company_industry', null), record('specific_goals', null)])).toBe(0)
  })
})

describe('Life Areas', () => {
  it('counts the eight life areas, not the special records', () => {
    const all = [...LIFE_AREAS.map((area) => record(area, 5)), record('company_industry', null), record('specific_goals', null)]
    expect(lifeAreaCount(all)).toBe(8)
    expect(lifeAreaCount([record('faith', 3), record('specific_goals', null)])).toBe(1)
  })
})

describe("This Week's Focus (spec 2 §2, §9)", () => {
  it(`lists up to three life areas scored below ${FOCUS_BELOW_SCORE}, lowest first`, () => {
    const records = [
      record('faith', 9),
      record('family', 3),
      record('fitness', 7),
      record('finance', 2),
      record('friends', 5),
      record('company_industry', null),
      record('fun', 6),
    ]
    expect(focusAreas(records).map((r) => [r.lifeArea, r.satisfactionScore])).toEqual([
      ['finance', 2],
      ['family', 3],
      ['friends', 5],
    ])
  })

  it('breaks ties in the wizard order', () => {
    expect(focusAreas([record('fun', 4), record('faith', 4), record('service', 4), record('family', 4)]).map((r) => r.lifeArea)).toEqual([
      'faith',
      'family',
      'fun',
    ])
  })

  it(`is empty ('well balanced') when every scored area is ${FOCUS_BELOW_SCORE} or more, or nothing is scored`, () => {
    expect(focusAreas(LIFE_AREAS.map((area) => record(area, 8)))).toEqual([])
    expect(focusAreas([record('faith', 10), record('fitness', FOCUS_BELOW_SCORE)])).toEqual([])
    expect(focusAreas([record('company_industry', null)])).toEqual([])
    expect(focusAreas([record('faith', 10), record('family', FOCUS_BELOW_SCORE - 1)]).map((r) => r.lifeArea)).toEqual(['family'])
  })

  it('shows durations in rounded minutes', () => {
    expect(callMinutes(0)).toBe(0)
    expect(callMinutes(29)).toBe(0)
    expect(callMinutes(30)).toBe(1)
    expect(callMinutes(300)).toBe(5)
    expect(callMinutes(329)).toBe(5)
  })
})

describe('the partner-program badge (spec 2 §2)', () => {
  it('shows a partner company by name (default style), GENERAL as General (secondary), anything else as is', () => {
    expect(partnerBadge('NORTHWIND', 'Northwind Traders')).toEqual({ label: 'Northwind Traders', variant: 'default' })
    expect(partnerBadge('GENERAL', 'General')).toEqual({ label: 'General', variant: 'secondary' })
    expect(partnerBadge('GENERAL', null)).toEqual({ label: 'General', variant: 'secondary' })
    expect(partnerBadge('ACME-2026', null)).toEqual({ label: 'ACME-2026', variant: 'outline' })
  })
})

describe('the save payload', () => {
  const valid = () => {
    const form = emptyGoalsForm()
    form.areas.service = { selectedOptions: ['better_at_job', 'paid_more'], satisfactionScore: 4, customNotes: 'Lead a project' }
    form.workCareer = { company: 'microsoft', industry: 'technology_software', role: 'Engineer' }
    form.callTime = { time: '7:30', period: 'AM', timezone: 'mountain' }
    return form
  }

  it('accepts the empty form and a filled one', () => {
    expect(SaveGoalsBodySchema.safeParse(emptyGoalsForm()).success).toBe(true)
    expect(SaveGoalsBodySchema.safeParse(valid()).success).toBe(true)
  })

  it.each([
    ['an unknown option', (f: ReturnType<typeof valid>) => void (f.areas.faith.selectedOptions = ['get_rich']), 'areas.faith.selectedOptions.0'],
    ['another area\'s option', (f: ReturnType<typeof valid>) => void (f.areas.faith.selectedOptions = ['paid_more']), 'areas.faith.selectedOptions.0'],
    ['a score of 11', (f: ReturnType<typeof valid>) => void (f.areas.fun.satisfactionScore = 11), 'areas.fun.satisfactionScore'],
    ['a score of 0', (f: ReturnType<typeof valid>) => void (f.areas.fun.satisfactionScore = 0), 'areas.fun.satisfactionScore'],
    ['a fractional score', (f: ReturnType<typeof valid>) => void (f.areas.fun.satisfactionScore = 5.5), 'areas.fun.satisfactionScore'],
    ['long notes', (f: ReturnType<typeof valid>) => void (f.areas.family.customNotes = 'x'.repeat(2001)), 'areas.family.customNotes'],
    ['an unknown company', (f: ReturnType<typeof valid>) => void ((f.workCareer as { company: string }).company = 'Initech'), 'workCareer.company'],
    ['an unknown time', (f: ReturnType<typeof valid>) => void (f.callTime.time = '7:15'), 'callTime.time'],
    ['an unknown timezone', (f: ReturnType<typeof valid>) => void ((f.callTime as { timezone: string }).timezone = 'America/New_York'), 'callTime.timezone'],
  ])('refuses %s, naming the field', (_label, mutate, field) => {
    const form = valid()
    mutate(form)
    const result = SaveGoalsBodySchema.safeParse(form)
    expect(result.success).toBe(false)
    expect(result.error!.issues[0]!.path.join('.')).toBe(field)
  })
})

describe('prefilling the wizard from saved records (spec 2 §4, §5)', () => {
  it('restores every step, including the call time parsed back from its text', () => {
    const form = formFromRecords([
      record('faith', 8, { selectedOptions: ['daily_prayer', 'gone_option'], customNotes: 'Mornings' }),
      record('company_industry', null, {
        selectedOptions: ['education'],
        specificGoals: { company: PARTNER_COMPANY.id, industry: 'education', role: 'Teacher' },
      }),
      record('specific_goals', null, {
        specificGoals: { goal_90_days: 'Run 5k', goal_12_months: null, goal_5_years: 'Own a home', obstacles: 'Time', preferred_call_time: '6:30 PM Hawaii (HT)' },
      }),
    ])
    expect(form.areas.faith).toEqual({ selectedOptions: ['daily_prayer'], satisfactionScore: 8, customNotes: 'Mornings' })
    expect(form.areas.family).toEqual({ selectedOptions: [], satisfactionScore: null, customNotes: '' })
    expect(form.workCareer).toEqual({ company: PARTNER_COMPANY.id, industry: 'education', role: 'Teacher' })
    expect(form.specificGoals).toEqual({ goal90Days: 'Run 5k', goal12Months: '', goal5Years: 'Own a home', obstacles: 'Time' })
    expect(form.callTime).toEqual({ time: '6:30', period: 'PM', timezone: 'hawaii' })
    expect(SaveGoalsBodySchema.safeParse(form).success).toBe(true)
  })
})

describe('the dashboard retry helper (spec 2 §7, §9)', () => {
  it('retries twice, waiting 2 s then 4 s, each plus up to 1 s of jitter', () => {
    expect(DASHBOARD_RETRIES).toBe(2)
    expect(dashboardRetrySchedule(() => 0)).toEqual([2000, 4000])
    expect(dashboardRetrySchedule(() => 0.999)).toEqual([2999, 4999])
    expect(dashboardRetrySchedule(() => 0.5)).toEqual([2500, 4500])
    expect(dashboardRetryDelay(2, () => 0.25)).toBe(8250)
  })

  it('stops after two retries and never retries a refusal', () => {
    expect(shouldRetryDashboardLoad(0)).toBe(true)
    expect(shouldRetryDashboardLoad(1)).toBe(true)
    expect(shouldRetryDashboardLoad(2)).toBe(false)
    expect(shouldRetryDashboardLoad(0, { status: 500 })).toBe(true)
    expect(shouldRetryDashboardLoad(0, { status: 0 })).toBe(true)
    expect(shouldRetryDashboardLoad(0, { status: 401 })).toBe(false)
    expect(shouldRetryDashboardLoad(0, { status: 403 })).toBe(false)
    expect(shouldRetryDashboardLoad(0, { status: 429 })).toBe(true)
  })

  it('keeps the jitter within one second whatever the random source gives', () => {
    for (let i = 0; i < 200; i++) {
      const [first, second] = dashboardRetrySchedule()
      expect(first).toBeGreaterThanOrEqual(2000)
      expect(first).toBeLessThanOrEqual(3000)
      expect(second).toBeGreaterThanOrEqual(4000)
      expect(second).toBeLessThanOrEqual(5000)
    }
  })
})
