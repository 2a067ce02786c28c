/**
 * Goal intake: the wizard's lists, the call-time text, the save payload, the response shapes and
 * the wizard's form state. Shared by the server and the web (the dashboard's rules over the saved
 * records are in dashboard.ts).
 */
import { z } from 'zod'
import { text } from './text'
import { GOAL_RECORD_KINDS, LIFE_AREAS, SATISFACTION_MAX, SATISFACTION_MIN, type LifeArea } from './domain'
import { LIFE_AREA_TITLES } from './life-areas'
import { isUuid } from './uuid'

// ---------------------------------------------------------------------------------------------
// Life areas (steps 1 to 8)
// ---------------------------------------------------------------------------------------------

export type GoalOption = { readonly id: string; readonly label: string }

export type LifeAreaDefinition = {
  readonly id: LifeArea
  /** The step title (spec 2 §2). */
  readonly title: string
  /** The dashboard's short label (spec 2 §2 "Life Areas Progress"). */
  readonly shortLabel: string
  readonly description: string
  readonly options: readonly GoalOption[]
}

/** The eight life-area steps in the spec's order, with their focus options (faith 5, family 6, others 5). */
export const LIFE_AREA_STEPS = [
  {
    id: 'faith',
    title: LIFE_AREA_TITLES.faith,
    shortLabel: 'Faith',
    description: 'Your spiritual life, your beliefs and the sense of purpose that guides you.',
    options: [
      { id: 'daily_prayer', label: 'Build a daily prayer or meditation habit' },
      { id: 'study_scripture', label: 'Read scripture or spiritual books regularly' },
      { id: 'faith_community', label: 'Join or re-engage with a faith community' },
      { id: 'serve_congregation', label: 'Serve in my place of worship' },
      { id: 'live_values', label: 'Live more consistently with my values' },
    ],
  },
  {
    id: 'family',
    title: LIFE_AREA_TITLES.family,
    shortLabel: 'Family',
    description: 'The relationships with the people closest to you at home and in your wider family.',
    options: [
      { id: 'quality_time', label: 'Spend more quality time together' },
      { id: 'communicate_better', label: 'Communicate more openly and patiently' },
      { id: 'partner_relationship', label: 'Strengthen my relationship with my partner' },
      { id: 'present_parent', label: 'Be a more present and engaged parent' },
      { id: 'extended_family', label: 'Reconnect with extended family' },
      { id: 'family_traditions', label: 'Create family traditions and rituals' },
    ],
  },
  {
    id: 'fitness',
    title: LIFE_AREA_TITLES.fitness,
    shortLabel: 'Fitness',
    description: 'Your body, your energy, your sleep and the way you eat.',
    options: [
      { id: 'exercise_routine', label: 'Exercise at least three times a week' },
      { id: 'eat_healthier', label: 'Eat healthier, more balanced meals' },
      { id: 'better_sleep', label: 'Sleep seven to eight hours a night' },
      { id: 'healthy_weight', label: 'Reach and keep a healthy weight' },
      { id: 'manage_stress', label: 'Have more energy and less stress' },
    ],
  },
  {
    id: 'finance',
    title: LIFE_AREA_TITLES.finance,
    shortLabel: 'Finance',
    description: 'Your money habits: spending, saving, debt and income.',
    options: [
      { id: 'monthly_budget', label: 'Create and stick to a monthly budget' },
      { id: 'emergency_fund', label: 'Build an emergency fund' },
      { id: 'pay_off_debt', label: 'Pay off debt' },
      { id: 'invest_retirement', label: 'Save and invest for retirement' },
      { id: 'increase_income', label: 'Increase my income' },
    ],
  },
  {
    id: 'friends',
    title: LIFE_AREA_TITLES.friends,
    shortLabel: 'Friends',
    description: 'The friendships and the community around you.',
    options: [
      { id: 'reconnect_friends', label: 'Reconnect with old friends' },
      { id: 'make_new_friends', label: 'Make new friends' },
      { id: 'deepen_friendships', label: 'Deepen my closest friendships' },
      { id: 'regular_plans', label: 'Make regular plans to get together' },
      { id: 'supportive_circle', label: 'Build a more supportive social circle' },
    ],
  },
  {
    id: 'fun',
    title: LIFE_AREA_TITLES.fun,
    shortLabel: 'Fun',
    description: 'Rest, play, hobbies and adventures that recharge you.',
    options: [
      { id: 'new_hobby', label: 'Pick up a new hobby' },
      { id: 'travel', label: 'Travel somewhere new' },
      { id: 'unplug', label: 'Schedule regular time to unplug' },
      { id: 'outdoors', label: 'Spend more time outdoors' },
      { id: 'creative_time', label: 'Make time for creative projects' },
    ],
  },
  {
    id: 'service',
    title: LIFE_AREA_TITLES.service,
    shortLabel: 'Service',
    description: 'How you contribute: through your work and to the people and causes around you.',
    options: [
      { id: 'better_at_job', label: 'Get better at my job' },
      { id: 'paid_more', label: 'Get paid more' },
      { id: 'new_career', label: 'Learn a new career' },
      { id: 'volunteer', label: 'Volunteer in my community' },
      { id: 'mentor', label: 'Mentor someone' },
    ],
  },
  {
    id: 'personal_development',
    title: LIFE_AREA_TITLES.personal_development,
    shortLabel: 'Development',
    description: 'Learning, growth and the daily habits that shape who you become.',
    options: [
      { id: 'read_more', label: 'Read more books' },
      { id: 'learn_skill', label: 'Learn a new skill' },
      { id: 'daily_habits', label: 'Build better daily habits' },
      { id: 'confidence', label: 'Grow my confidence' },
      { id: 'time_management', label: 'Manage my time better' },
    ],
  },
] as const satisfies readonly LifeAreaDefinition[]

const AREA_BY_ID = new Map<string, LifeAreaDefinition>(LIFE_AREA_STEPS.map((area) => [area.id, area]))

export function lifeAreaDefinition(area: LifeArea): LifeAreaDefinition {
  return AREA_BY_ID.get(area)!
}

/** The focus option's text for an area, or the id itself when it is not (or no longer) in the list. */
export function goalOptionLabel(area: LifeArea, optionId: string): string {
  return AREA_BY_ID.get(area)?.options.find((option) => option.id === optionId)?.label ?? optionId
}

/** The satisfaction question of spec 2 §2 for a step. */
export const satisfactionQuestion = (area: LifeAreaDefinition) =>
  `How satisfied are you with your ${area.title.toLowerCase()} currently? (1-10)`

export const WIZARD_STEP_COUNT = 10
export const WORK_STEP_TITLE = 'Your Work & Career'
export const GOALS_STEP_TITLE = 'Your Specific Personal Goals'
/** The wizard gives up loading existing goals after this long and continues with an empty form. */
export const GOALS_LOAD_TIMEOUT_MS = 10_000
/** Satisfaction saved for an area the user did not rate. */
export const DEFAULT_SATISFACTION = 5

// ---------------------------------------------------------------------------------------------
// Work & career (step 9)
// ---------------------------------------------------------------------------------------------

/** The partner company of the sample program (spec README): choosing it joins its program. */
export const PARTNER_COMPANY = { id: 'northwind_traders', label: 'Northwind Traders', program: 'NORTHWIND' } as const

export const COMPANIES = [
  { id: PARTNER_COMPANY.id, label: PARTNER_COMPANY.label },
  { id: 'microsoft', label: 'Microsoft' },
  { id: 'apple', label: 'Apple' },
  { id: 'google', label: 'Google' },
  { id: 'amazon', label: 'Amazon' },
  { id: 'local_hospital', label: 'Local Hospital' },
  { id: 'self_employed', label: 'Self-employed' },
  { id: 'startup', label: 'Startup' },
  { id: 'non_profit', label: 'Non-profit' },
  { id: 'government_agency', label: 'Government Agency' },
  { id: 'other', label: 'Other' },
] as const satisfies readonly GoalOption[]
export type CompanyId = (typeof COMPANIES)[number]['id']

export const INDUSTRIES = [
  { id: 'technology_software', label: 'Technology & Software' },
  { id: 'healthcare_medical', label: 'Healthcare & Medical' },
  { id: 'finance_banking', label: 'Finance & Banking' },
  { id: 'education', label: 'Education' },
  { id: 'retail_ecommerce', label: 'Retail & E-commerce' },
  { id: 'manufacturing', label: 'Manufacturing' },
  { id: 'construction_real_estate', label: 'Construction & Real Estate' },
  { id: 'professional_services', label: 'Professional Services' },
  { id: 'media_entertainment', label: 'Media & Entertainment' },
  { id: 'transportation_logistics', label: 'Transportation & Logistics' },
  { id: 'energy_utilities', label: 'Energy & Utilities' },
  { id: 'government_public_sector', label: 'Government & Public Sector' },
  { id: 'non_profit_ngo', label: 'Non-profit & NGO' },
  { id: 'hospitality_tourism', label: 'Hospitality & Tourism' },
  { id: 'automotive', label: 'Automotive' },
  { id: 'agriculture_food', label: 'Agriculture & Food' },
  { id: 'telecommunications', label: 'Telecommunications' },
  { id: 'insurance', label: 'Insurance' },
  { id: 'consulting', label: 'Consulting' },
  { id: 'other', label: 'Other' },
] as const satisfies readonly GoalOption[]
export type IndustryId = (typeof INDUSTRIES)[number]['id']

export const companyLabel = (id: string) => COMPANIES.find((company) => company.id === id)?.label ?? id
export const industryLabel = (id: string) => INDUSTRIES.find((industry) => industry.id === id)?.label ?? id

export const COMPANY_SELECT_LABEL = 'Select if listed - We partner with these companies!'

// ---------------------------------------------------------------------------------------------
// Preferred call time (step 10)
// ---------------------------------------------------------------------------------------------

/** 24 half-hour values from 1:00 to 12:30 (spec 2 §2). */
export const CALL_TIMES = Array.from({ length: 24 }, (_, i) => `${Math.floor(i / 2) + 1}:${i % 2 === 0 ? '00' : '30'}`) as readonly string[]
export const CALL_PERIODS = ['AM', 'PM'] as const
export type CallPeriod = (typeof CALL_PERIODS)[number]

export const TIMEZONES = [
  { id: 'eastern', label: 'Eastern', abbreviation: 'ET', iana: 'America/New_York' },
  { id: 'central', label: 'Central', abbreviation: 'CT', iana: 'America/Chicago' },
  { id: 'mountain', label: 'Mountain', abbreviation: 'MT', iana: 'America/Denver' },
  { id: 'pacific', label: 'Pacific', abbreviation: 'PT', iana: 'America/Los_Angeles' },
  { id: 'alaska', label: 'Alaska', abbreviation: 'AKT', iana: 'America/Anchorage' },
  { id: 'hawaii', label: 'Hawaii', abbreviation: 'HT', iana: 'Pacific/Honolulu' },
  { id: 'atlantic', label: 'Atlantic', abbreviation: 'AT', iana: 'America/Halifax' },
  { id: 'newfoundland', label: 'Newfoundland', abbreviation: 'NT', iana: 'America/St_Johns' },
] as const
export type TimezoneId = (typeof TIMEZONES)[number]['id']
export type TimezoneDefinition = (typeof TIMEZONES)[number]

/** "Eastern (ET)": how a timezone is shown in the dropdown. */
export const timezoneDisplay = (tz: TimezoneDefinition) => `${tz.label} (${tz.abbreviation})`
export const timezoneById = (id: string) => TIMEZONES.find((tz) => tz.id === id)
export const timezoneByIana = (iana: string) => TIMEZONES.find((tz) => tz.iana === iana)

export type CallTimeChoice = { time: string | null; period: CallPeriod | null; timezone: TimezoneId | null }

/**
 * The preferred call time text 'time AM/PM timezone' (spec 2 §3), e.g. "7:30 AM Eastern (ET)";
 * composed only when all three are chosen, otherwise null.
 */
export function composeCallTime(choice: CallTimeChoice): string | null {
  if (!choice.time || !choice.period || !choice.timezone) return null
  const tz = timezoneById(choice.timezone)
  if (!tz || !CALL_TIMES.includes(choice.time)) return null
  return `${choice.time} ${choice.period} ${timezoneDisplay(tz)}`
}

const CALL_TIME_PATTERN = /^\s*(\d{1,2}:\d{2})\s*(AM|PM)\s+(.+?)\s*$/i

/**
 * Parses a saved call time back (hh:mm, AM or PM, then the timezone text). The
 * timezone text may be the label ("Eastern"), the label with its abbreviation ("Eastern (ET)"),
 * the abbreviation or the IANA name. Anything it cannot read gives null, never a wrong time.
 */
export function parseCallTime(text: string | null | undefined): CallTimeChoice | null {
  if (!text) return null
  const match = CALL_TIME_PATTERN.exec(text)
  if (!match) return null
  const [, rawTime, rawPeriod, rawZone] = match as unknown as [string, string, string, string]
  const time = rawTime.replace(/^0(\d:)/, '$1')
  if (!CALL_TIMES.includes(time)) return null
  const zone = rawZone.toLowerCase()
  const tz = TIMEZONES.find(
    (candidate) =>
      zone === candidate.label.toLowerCase() ||
      zone === timezoneDisplay(candidate).toLowerCase() ||
      zone === candidate.abbreviation.toLowerCase() ||
      zone === candidate.iana.toLowerCase(),
  )
  if (!tz) return null
  return { time, period: rawPeriod.toUpperCase() as CallPeriod, timezone: tz.id }
}

/** The profile's daily_call_time ('HH:MM:00', 24-hour) for a 12-hour time and period. */
export function toDailyCallTime(time: string, period: CallPeriod): string {
  const [h, m] = time.split(':') as [string, string]
  const hour12 = Number(h) % 12
  const hour24 = period === 'PM' ? hour12 + 12 : hour12
  return `${String(hour24).padStart(2, '0')}:${m}:00`
}

/** The 12-hour time and period of a daily_call_time ('HH:MM' or 'HH:MM:SS'). */
export function fromDailyCallTime(value: string): { time: string; period: CallPeriod } {
  const [h, m] = value.split(':') as [string, string]
  const hour24 = Number(h)
  const period: CallPeriod = hour24 >= 12 ? 'PM' : 'AM'
  const hour12 = hour24 % 12 === 0 ? 12 : hour24 % 12
  return { time: `${hour12}:${m}`, period }
}

// ---------------------------------------------------------------------------------------------
// Save payload (validated by the server; every text bounded)
// ---------------------------------------------------------------------------------------------

export const NOTES_MAX = 2000
export const GOAL_TEXT_MAX = 1000
export const ROLE_MAX = 120

const areaOptionIds = (area: LifeAreaDefinition) => area.options.map((option) => option.id) as [string, ...string[]]

const boundedText = (max: number, what: string) =>
  text({ error: `${what} must be text` }).max(max, `${what} must be at most ${max} characters`)

const ScoreSchema = z
  .number({ error: `Satisfaction must be a whole number from ${SATISFACTION_MIN} to ${SATISFACTION_MAX}` })
  .int(`Satisfaction must be a whole number from ${SATISFACTION_MIN} to ${SATISFACTION_MAX}`)
  .min(SATISFACTION_MIN, `Satisfaction must be a whole number from ${SATISFACTION_MIN} to ${SATISFACTION_MAX}`)
  .max(SATISFACTION_MAX, `Satisfaction must be a whole number from ${SATISFACTION_MIN} to ${SATISFACTION_MAX}`)

function areaAnswerSchema(area: LifeAreaDefinition) {
  const ids = areaOptionIds(area)
  return z.strictObject({
    selectedOptions: z
      .array(z.enum(ids, { error: `Unknown ${area.title} option` }))
      .max(ids.length)
      .refine((values) => new Set(values).size === values.length, 'Each option may be chosen once'),
    satisfactionScore: ScoreSchema.nullable(),
    customNotes: boundedText(NOTES_MAX, 'Notes'),
  })
}

const areaShape = Object.fromEntries(LIFE_AREA_STEPS.map((area) => [area.id, areaAnswerSchema(area)])) as {
  [K in LifeArea]: ReturnType<typeof areaAnswerSchema>
}

const idsOf = <T extends readonly { id: string }[]>(list: T) => list.map((item) => item.id) as unknown as [T[number]['id'], ...T[number]['id'][]]

export const SaveGoalsBodySchema = z.strictObject({
  areas: z.strictObject(areaShape),
  workCareer: z.strictObject({
    company: z.enum(idsOf(COMPANIES), { error: 'Choose a company from the list' }).nullable(),
    industry: z.enum(idsOf(INDUSTRIES), { error: 'Choose an industry from the list' }).nullable(),
    role: boundedText(ROLE_MAX, 'Role'),
  }),
  specificGoals: z.strictObject({
    goal90Days: boundedText(GOAL_TEXT_MAX, 'The 90-day goal'),
    goal12Months: boundedText(GOAL_TEXT_MAX, 'The 12-month goal'),
    goal5Years: boundedText(GOAL_TEXT_MAX, 'The 5-year goal'),
    obstacles: boundedText(NOTES_MAX, 'Obstacles'),
  }),
  callTime: z.strictObject({
    time: z.enum(CALL_TIMES as [string, ...string[]], { error: 'Choose a time from the list' }).nullable(),
    period: z.enum(CALL_PERIODS, { error: 'Choose AM or PM' }).nullable(),
    timezone: z.enum(idsOf(TIMEZONES), { error: 'Choose a timezone from the list' }).nullable(),
  }),
  /** The goal template version the wizard was started from (Elite; docs/decisions/081): kept with the saved goals. */
  templateVersionId: text().refine(isUuid, 'Choose a template from the list').optional(),
})
export type SaveGoalsBody = z.infer<typeof SaveGoalsBodySchema>
export type AreaAnswer = SaveGoalsBody['areas'][LifeArea]

// ---------------------------------------------------------------------------------------------
// Responses
// ---------------------------------------------------------------------------------------------

export const GoalRecordSchema = z.object({
  lifeArea: z.enum(GOAL_RECORD_KINDS),
  selectedOptions: z.array(text()),
  satisfactionScore: z.number().int().nullable(),
  customNotes: text().nullable(),
  specificGoals: z.record(text(), text().nullable()).nullable(),
  updatedAt: text(),
})
export type GoalRecord = z.infer<typeof GoalRecordSchema>

export const GoalsResponseSchema = z.object({ goals: z.array(GoalRecordSchema) })
export type GoalsResponse = z.infer<typeof GoalsResponseSchema>

export const SaveGoalsResponseSchema = z.object({
  goals: z.array(GoalRecordSchema),
  profile: z.object({
    timezone: text(),
    /** 'HH:MM' 24-hour local time, or null. */
    dailyCallTime: text().nullable(),
    partnerProgram: text(),
    onboardingCompleted: z.boolean(),
  }),
})
export type SaveGoalsResponse = z.infer<typeof SaveGoalsResponseSchema>

/** The short label of a life area (or the record kind itself for anything else). */
export const areaShortLabel = (area: string) => AREA_BY_ID.get(area)?.shortLabel ?? area

// ---------------------------------------------------------------------------------------------
// The wizard's form state, from the saved records and back to the payload
// ---------------------------------------------------------------------------------------------

export type GoalsForm = SaveGoalsBody

export function emptyGoalsForm(): GoalsForm {
  const areas = Object.fromEntries(
    LIFE_AREAS.map((area) => [area, { selectedOptions: [], satisfactionScore: null, customNotes: '' }]),
  ) as unknown as GoalsForm['areas']
  return {
    areas,
    workCareer: { company: null, industry: null, role: '' },
    specificGoals: { goal90Days: '', goal12Months: '', goal5Years: '', obstacles: '' },
    callTime: { time: null, period: null, timezone: null },
  }
}

const textOrEmpty = (value: unknown) => (typeof value === 'string' ? value : '')
const oneOf = <T extends string>(values: readonly { id: T }[], value: unknown): T | null =>
  typeof value === 'string' && values.some((item) => item.id === value) ? (value as T) : null

/**
 * Prefills the wizard from saved records: every step, including the call time parsed
 * back from its saved text. Values no longer in the lists are dropped rather than shown wrong.
 */
export function formFromRecords(records: readonly GoalRecord[]): GoalsForm {
  const form = emptyGoalsForm()
  for (const record of records) {
    if ((LIFE_AREAS as readonly string[]).includes(record.lifeArea)) {
      const area = record.lifeArea as LifeArea
      const known = new Set(lifeAreaDefinition(area).options.map((option) => option.id))
      form.areas[area] = {
        selectedOptions: [...new Set(record.selectedOptions.filter((id) => known.has(id)))],
        satisfactionScore:
          record.satisfactionScore !== null && record.satisfactionScore >= SATISFACTION_MIN && record.satisfactionScore <= SATISFACTION_MAX
            ? record.satisfactionScore
            : null,
        customNotes: record.customNotes ?? '',
      }
    } else if (record.lifeArea === 'company_industry') {
      const details = record.specificGoals ?? {}
      form.workCareer = {
        company: oneOf(COMPANIES, details.company),
        industry: oneOf(INDUSTRIES, details.industry ?? record.selectedOptions[0]),
        role: textOrEmpty(details.role),
      }
    } else if (record.lifeArea === 'specific_goals') {
      const details = record.specificGoals ?? {}
      form.specificGoals = {
        goal90Days: textOrEmpty(details.goal_90_days),
        goal12Months: textOrEmpty(details.goal_12_months),
        goal5Years: textOrEmpty(details.goal_5_years),
        obstacles: textOrEmpty(details.obstacles),
      }
      form.callTime = parseCallTime(details.preferred_call_time) ?? { time: null, period: null, timezone: null }
    }
  }
  return form
}
