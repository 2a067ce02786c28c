import { eq, sql, type SQL } from 'drizzle-orm'
import { LIFE_AREAS, type LifeArea } from '#common/domain'
import { focusAreas } from '#common/dashboard'
import { goalOptionLabel, lifeAreaDefinition } from '#common/goals'
import type { DbExecutor } from '#server/db/client'
import { goals, profiles, users } from '#server/db/schema'

/**
 * What the coach knows about the user:
 * read fresh from the profile and the goal records on every turn, so a goal saved a minute ago
 * is in the next reply. The same context feeds Vapi's variableValues and the fallback coach.
 */

export type AreaGoal = {
  area: LifeArea
  /** "Fitness & Health" */
  title: string
  score: number | null
  /** The chosen focus options, as their labels. */
  focus: string[]
  notes: string | null
}

export type CoachContext = {
  userId: string
  /** The name the user goes by (profile name, else the full name given at sign-up). */
  name: string
  firstName: string
  email: string
  phoneNumber: string | null
  /** IANA time zone. */
  timezone: string
  /** 'HH:MM' (24-hour, local) or null. */
  dailyCallTime: string | null
  areas: AreaGoal[]
  /** Up to 3 lowest-scored areas, lowest first (the dashboard's "This Week's Focus"). */
  lowestAreas: AreaGoal[]
  goal90Days: string | null
  goal12Months: string | null
  goal5Years: string | null
  obstacles: string | null
  work: { company: string | null; industry: string | null; role: string | null } | null
  /** One paragraph: the areas with scores and focus, then the specific goals. */
  goalsSummary: string
  now: Date
}

const text = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value.trim() : null)

type GoalRow = {
  lifeArea: string
  selectedOptions: string[] | null
  satisfactionScore: number | null
  customNotes: string | null
  specificGoals: Record<string, string | null> | null
}

/** What the context is built from: the person, the profile and the goal records. */
type CoachContextRow = {
  email: string
  fullName: string
  userPhone: string | null
  profileName: string | null
  profilePhone: string | null
  timezone: string | null
  dailyCallTime: string | null
  activeGoalsSummary: string | null
  goals: GoalRow[]
}

/**
 * One correlated subquery that yields the CoachContextRow of a user as JSON (null when the user
 * does not exist), so a statement that needs the context anyway (storing a message) gets it in the
 * same round trip.
 */
export function coachContextJson(userId: string | SQL) {
  return sql<CoachContextRow | string | null>`(
    select json_build_object(
      'email', u.email, 'fullName', u.full_name, 'userPhone', u.phone_number,
      'profileName', p.name, 'profilePhone', p.phone_number, 'timezone', p.timezone,
      'dailyCallTime', p.daily_call_time, 'activeGoalsSummary', p.active_goals_summary,
      'goals', coalesce((
        select json_agg(json_build_object(
          'lifeArea', g.life_area, 'selectedOptions', g.selected_options, 'satisfactionScore', g.satisfaction_score,
          'customNotes', g.custom_notes, 'specificGoals', g.specific_goals))
        from ${goals} as g where g.user_id = u.id), '[]'::json))
    from ${users} as u left join ${profiles} as p on p.id = u.id
    where u.id = ${userId})`
}

/** Loads the coach context in one query. Null when the user no longer exists. */
export async function loadCoachContext(db: DbExecutor, userId: string, now: Date): Promise<CoachContext | null> {
  const [row] = await db.select({ person: coachContextJson(userId) }).from(users).where(eq(users.id, userId)).limit(1)
  return row ? toCoachContext(userId, row.person, now) : null
}

/** Builds the context from its row (as the drivers hand back JSON: parsed, or text). */
export function toCoachContext(userId: string, raw: CoachContextRow | string | null, now: Date): CoachContext | null {
  const person: CoachContextRow | null = typeof raw === 'string' ? (JSON.parse(raw) as CoachContextRow) : raw
  if (!person) return null
  const rows = person.goals ?? []

  const areas: AreaGoal[] = LIFE_AREAS.flatMap((area) => {
    const row = rows.find((r) => r.lifeArea === area)
    if (!row) return []
    return [
      {
        area,
        title: lifeAreaDefinition(area).title,
        score: row.satisfactionScore,
        focus: (row.selectedOptions ?? []).map((option) => goalOptionLabel(area, option)),
        notes: text(row.customNotes),
      },
    ]
  })
  const lowestAreas = focusAreas(areas.map((a) => ({ ...a, lifeArea: a.area, satisfactionScore: a.score }))).map(
    ({ lifeArea: _lifeArea, satisfactionScore: _score, ...area }) => area,
  )
  const specific = rows.find((r) => r.lifeArea === 'specific_goals')?.specificGoals ?? {}
  const workRow = rows.find((r) => r.lifeArea === 'company_industry')?.specificGoals
  const work = workRow ? { company: text(workRow.company), industry: text(workRow.industry), role: text(workRow.role) } : null

  const name = text(person.profileName) ?? person.fullName
  const context: CoachContext = {
    userId,
    name,
    firstName: name.split(/\s+/)[0] ?? name,
    email: person.email,
    phoneNumber: text(person.profilePhone) ?? text(person.userPhone),
    timezone: person.timezone ?? 'America/New_York',
    dailyCallTime: person.dailyCallTime ? person.dailyCallTime.slice(0, 5) : null,
    areas,
    lowestAreas,
    goal90Days: text(specific.goal_90_days),
    goal12Months: text(specific.goal_12_months),
    goal5Years: text(specific.goal_5_years),
    obstacles: text(specific.obstacles),
    work,
    goalsSummary: '',
    now,
  }
  context.goalsSummary = summarizeGoals(context) || (text(person.activeGoalsSummary) ?? 'No goals set yet.')
  return context
}

/** "Fitness & Health 3/10 (focus: Exercise at least three times a week); … 90-day goal: …". */
export function summarizeGoals(context: Pick<CoachContext, 'areas' | 'goal90Days' | 'goal12Months' | 'goal5Years' | 'obstacles'>): string {
  const parts: string[] = []
  const scored = context.areas.map((area) => {
    const score = area.score === null ? 'not rated' : `${area.score}/10`
    const focus = area.focus.length > 0 ? ` (focus: ${area.focus.join(', ')})` : ''
    return `${area.title} ${score}${focus}`
  })
  if (scored.length > 0) parts.push(`Life areas: ${scored.join('; ')}.`)
  if (context.goal90Days) parts.push(`90-day goal: ${context.goal90Days}.`)
  if (context.goal12Months) parts.push(`12-month goal: ${context.goal12Months}.`)
  if (context.goal5Years) parts.push(`5-year goal: ${context.goal5Years}.`)
  if (context.obstacles) parts.push(`Obstacles: ${context.obstacles}.`)
  return parts.join(' ')
}

/**
 * The user metadata as Vapi variableValues: userId, userName, firstName,
 * phoneNumber, email, timezone, dailyCallTime, goals, goalsSummary, timestamp. Strings only, so
 * every value drops straight into a `{{ template }}` of the saved assistant's prompt.
 */
export function toVariableValues(context: CoachContext): Record<string, string> {
  const goalLines = context.areas.map(
    (area) =>
      `- ${area.title}: ${area.score === null ? 'not rated' : `${area.score}/10`}` +
      (area.focus.length > 0 ? `; focus: ${area.focus.join(', ')}` : '') +
      (area.notes ? `; notes: ${area.notes}` : ''),
  )
  if (context.goal90Days) goalLines.push(`- #1 goal in 90 days: ${context.goal90Days}`)
  if (context.goal12Months) goalLines.push(`- #1 goal in 12 months: ${context.goal12Months}`)
  if (context.goal5Years) goalLines.push(`- #1 goal in 5 years: ${context.goal5Years}`)
  if (context.obstacles) goalLines.push(`- Obstacles: ${context.obstacles}`)
  if (context.work?.company || context.work?.industry || context.work?.role) {
    goalLines.push(`- Work: ${[context.work.role, context.work.company, context.work.industry].filter(Boolean).join(', ')}`)
  }
  return {
    userId: context.userId,
    userName: context.name,
    firstName: context.firstName,
    phoneNumber: context.phoneNumber ?? '',
    email: context.email,
    timezone: context.timezone,
    dailyCallTime: context.dailyCallTime ?? '',
    goals: goalLines.length > 0 ? goalLines.join('\n') : 'No goals set yet.',
    goalsSummary: context.goalsSummary,
    timestamp: context.now.toISOString(),
  }
}
