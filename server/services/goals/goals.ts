import { eq, sql } from 'drizzle-orm'
import {
  DEFAULT_SATISFACTION,
  PARTNER_COMPANY,
  companyLabel,
  composeCallTime,
  timezoneById,
  toDailyCallTime,
  type GoalRecord,
  type SaveGoalsBody,
  type SaveGoalsResponse,
} from '#common/goals'
import { GOAL_RECORD_KINDS, LIFE_AREAS } from '#common/domain'
import { recordActivity } from '#server/db/activity'
import type { Db, DbExecutor } from '#server/db/client'
import { prepared } from '#server/db/prepared'
import { goals, profiles, type Goal } from '#server/db/schema'
import { AppError } from '#server/lib/app-error'
import { assertTemplateVersionUsable } from '#server/services/goal-templates'

const KIND_ORDER = new Map<string, number>(GOAL_RECORD_KINDS.map((kind, index) => [kind, index]))

function toGoalRecord(row: Pick<Goal, 'lifeArea' | 'selectedOptions' | 'satisfactionScore' | 'customNotes' | 'specificGoals' | 'updatedAt'>): GoalRecord {
  return {
    lifeArea: row.lifeArea,
    selectedOptions: row.selectedOptions,
    satisfactionScore: row.satisfactionScore,
    customNotes: row.customNotes,
    specificGoals: row.specificGoals ?? null,
    updatedAt: row.updatedAt.toISOString(),
  }
}

const goalColumns = {
  lifeArea: goals.lifeArea,
  selectedOptions: goals.selectedOptions,
  satisfactionScore: goals.satisfactionScore,
  customNotes: goals.customNotes,
  specificGoals: goals.specificGoals,
  updatedAt: goals.updatedAt,
}

const goalsOfUser = (db: DbExecutor) =>
  prepared(db, 'goals_of_user', (db) =>
    db.select(goalColumns).from(goals).where(eq(goals.userId, sql.placeholder('userId'))).prepare('goals_of_user'),
  )

/** Every goal record of the user, in wizard order. */
export async function loadGoals(db: DbExecutor, userId: string): Promise<GoalRecord[]> {
  const rows = await goalsOfUser(db).execute({ userId })
  return rows.map(toGoalRecord).sort((a, b) => (KIND_ORDER.get(a.lifeArea) ?? 99) - (KIND_ORDER.get(b.lifeArea) ?? 99))
}

const trimmed = (value: string) => value.trim()

/** The save's template version, or the one the record already had. */
const keptTemplateVersion = sql`coalesce(excluded.template_version_id, ${goals.templateVersionId})`

/**
 * Saves the whole wizard in ONE transaction: an upsert per life area on the
 * unique (user, life area) key with the satisfaction defaulting to 5; the company_industry record
 * when any of company, industry or role is filled; the specific_goals record when any goal text or
 * a time is entered; the profile's timezone (IANA) and daily call time only when both exist; the
 * partner program when the partner company is chosen; onboarding_completed; the activity entry.
 * Either all of it is written or none of it.
 */
export async function saveGoals(db: Db, userId: string, body: SaveGoalsBody, now: Date): Promise<SaveGoalsResponse> {
  // Started from a goal template (Elite): every record this save writes names the version, so what
  // the member took stays pinned when the template is edited; a later save without one keeps it.
  const templateVersionId = body.templateVersionId ?? null
  if (templateVersionId) await assertTemplateVersionUsable(db, userId, templateVersionId, now)
  const areaRows = LIFE_AREAS.map((area) => {
    const answer = body.areas[area]
    return {
      userId,
      lifeArea: area,
      selectedOptions: [...new Set(answer.selectedOptions)],
      satisfactionScore: answer.satisfactionScore ?? DEFAULT_SATISFACTION,
      customNotes: trimmed(answer.customNotes) || null,
      templateVersionId,
      createdAt: now,
      updatedAt: now,
    }
  })

  const specialRows: Array<typeof goals.$inferInsert> = []
  const { company, industry } = body.workCareer
  const role = trimmed(body.workCareer.role)
  if (company || industry || role) {
    const lines = [company ? `Company: ${companyLabel(company)}` : null, role ? `Role: ${role}` : null].filter(Boolean)
    specialRows.push({
      userId,
      lifeArea: 'company_industry',
      selectedOptions: industry ? [industry] : [],
      satisfactionScore: null,
      customNotes: lines.length > 0 ? lines.join('\n') : null,
      specificGoals: { company, industry, role: role || null },
      templateVersionId,
      createdAt: now,
      updatedAt: now,
    })
  }

  const specific = {
    goal_90_days: trimmed(body.specificGoals.goal90Days),
    goal_12_months: trimmed(body.specificGoals.goal12Months),
    goal_5_years: trimmed(body.specificGoals.goal5Years),
    obstacles: trimmed(body.specificGoals.obstacles),
  }
  const preferredCallTime = composeCallTime(body.callTime)
  const anyGoalText = Object.values(specific).some((value) => value !== '')
  if (anyGoalText || body.callTime.time) {
    specialRows.push({
      userId,
      lifeArea: 'specific_goals',
      selectedOptions: [],
      satisfactionScore: null,
      customNotes: null,
      specificGoals: {
        goal_90_days: specific.goal_90_days || null,
        goal_12_months: specific.goal_12_months || null,
        goal_5_years: specific.goal_5_years || null,
        obstacles: specific.obstacles || null,
        preferred_call_time: preferredCallTime,
      },
      templateVersionId,
      createdAt: now,
      updatedAt: now,
    })
  }

  const timezone = body.callTime.timezone ? timezoneById(body.callTime.timezone)?.iana : undefined
  const profileChanges: Partial<typeof profiles.$inferInsert> = { onboardingCompleted: true, updatedAt: now }
  if (timezone && preferredCallTime && body.callTime.time && body.callTime.period) {
    profileChanges.timezone = timezone
    profileChanges.dailyCallTime = toDailyCallTime(body.callTime.time, body.callTime.period)
  }
  if (company === PARTNER_COMPANY.id) profileChanges.partnerProgram = PARTNER_COMPANY.program

  return db.transaction(async (tx) => {
    await tx
      .insert(goals)
      .values(areaRows)
      .onConflictDoUpdate({
        target: [goals.userId, goals.lifeArea],
        set: {
          selectedOptions: sql`excluded.selected_options`,
          satisfactionScore: sql`excluded.satisfaction_score`,
          customNotes: sql`excluded.custom_notes`,
          templateVersionId: keptTemplateVersion,
          updatedAt: sql`excluded.updated_at`,
        },
      })
    if (specialRows.length > 0) {
      await tx
        .insert(goals)
        .values(specialRows)
        .onConflictDoUpdate({
          target: [goals.userId, goals.lifeArea],
          set: {
            selectedOptions: sql`excluded.selected_options`,
            satisfactionScore: sql`excluded.satisfaction_score`,
            customNotes: sql`excluded.custom_notes`,
            specificGoals: sql`excluded.specific_goals`,
            templateVersionId: keptTemplateVersion,
            updatedAt: sql`excluded.updated_at`,
          },
        })
    }
    const [profile] = await tx.update(profiles).set(profileChanges).where(eq(profiles.id, userId)).returning({
      timezone: profiles.timezone,
      dailyCallTime: profiles.dailyCallTime,
      partnerProgram: profiles.partnerProgram,
      onboardingCompleted: profiles.onboardingCompleted,
    })
    if (!profile) throw new AppError('NOT_FOUND', 'Your profile could not be found. Please sign in again.')
    await recordActivity(tx, userId, 'goals_saved', now)
    return {
      goals: await loadGoals(tx, userId),
      profile: { ...profile, dailyCallTime: profile.dailyCallTime ? profile.dailyCallTime.slice(0, 5) : null },
    }
  })
}
