/**
 * The starter goal templates admins publish (docs/decisions/081), loaded by `npm run db:seed` and on
 * the embedded database's first start, as the courses are. Idempotent: a starter is found again by
 * its slug; when its content here changed, it gets a new version (a version is never changed, so
 * members keep what they took); the same content again adds nothing. An admin's archiving stays.
 */
import { count, eq } from 'drizzle-orm'
import { LIFE_AREAS } from '#common/domain'
import { GoalTemplateBodySchema, type GoalTemplateBody } from '#common/goal-templates'
import type { Db } from '#server/db/client'
import { goalTemplates, goalTemplateVersions } from '#server/db/schema'

type Starter = GoalTemplateBody & { slug: string }

const STARTER_TEMPLATES: readonly Starter[] = [
  {
    slug: 'new-manager-first-90-days',
    name: 'New manager: first 90 days',
    audience: 'People who just took on their first team and want to lead it well without burning out.',
    targets: {
      service: { score: 8, focus: ['better_at_job', 'mentor'] },
      personal_development: { score: 8, focus: ['confidence', 'time_management'] },
      family: { score: 7, focus: ['quality_time'] },
      fitness: { score: 7, focus: ['manage_stress', 'better_sleep'] },
    },
    ninetyDayGoal: 'Hold a weekly one-on-one with every person on my team and agree on clear goals with each of them.',
    obstacles: ['Saying yes to every meeting', 'Doing the work myself instead of delegating', 'Evenings swallowed by email'],
    firstCommitments: ['Book a 30-minute one-on-one with each report this week', 'Block two hours of focus time every morning', 'Ask my manager what success looks like at 90 days'],
  },
  {
    slug: 'marathon-in-6-months',
    name: 'Marathon in 6 months',
    audience: 'Runners who can run 5 km today and want to finish a marathon in six months.',
    targets: {
      fitness: { score: 9, focus: ['exercise_routine', 'eat_healthier', 'better_sleep'] },
      personal_development: { score: 7, focus: ['daily_habits'] },
      fun: { score: 7, focus: ['outdoors'] },
    },
    ninetyDayGoal: 'Run a half marathon at an easy, steady pace, following a training plan four days a week.',
    obstacles: ['Skipping runs when the weather turns', 'Doing too much too soon and getting injured', 'Late nights before long runs'],
    firstCommitments: ['Sign up for a marathon six months out', 'Run four times this week, one of them long and slow', 'Be in bed by 10:30 PM the night before the long run'],
  },
  {
    slug: 'debt-free-in-a-year',
    name: 'Debt-free in a year',
    audience: 'People with credit card or personal loan debt who want to clear it within twelve months.',
    targets: {
      finance: { score: 9, focus: ['monthly_budget', 'pay_off_debt', 'emergency_fund'] },
      family: { score: 7, focus: ['communicate_better'] },
      personal_development: { score: 7, focus: ['daily_habits'] },
    },
    ninetyDayGoal: 'Pay off my smallest debt in full and have a budget I follow every month.',
    obstacles: ['Impulse buys online', 'Not knowing where the money goes', 'Avoiding looking at the balances'],
    firstCommitments: ['List every debt with its balance and interest rate', 'Write this month’s budget and share it with my partner', 'Set up an automatic extra payment on the smallest debt'],
  },
  {
    slug: 'more-energy-better-sleep',
    name: 'More energy, better sleep',
    audience: 'People who feel tired most days and want steady energy from sleep, food and movement.',
    targets: {
      fitness: { score: 8, focus: ['better_sleep', 'manage_stress', 'eat_healthier'] },
      fun: { score: 7, focus: ['unplug'] },
      personal_development: { score: 7, focus: ['daily_habits'] },
    },
    ninetyDayGoal: 'Sleep seven hours or more on at least five nights a week and wake up without feeling drained.',
    obstacles: ['Scrolling in bed', 'Caffeine late in the day', 'An irregular bedtime on weekends'],
    firstCommitments: ['Phone out of the bedroom from tonight', 'No coffee after 2 PM', 'Walk outside for 20 minutes each morning'],
  },
  {
    slug: 'closer-to-family',
    name: 'Closer to family',
    audience: 'Busy parents and partners who want more real time with the people at home.',
    targets: {
      family: { score: 9, focus: ['quality_time', 'present_parent', 'family_traditions'] },
      friends: { score: 7, focus: ['regular_plans'] },
      faith: { score: 7, focus: ['live_values'] },
    },
    ninetyDayGoal: 'Have one screen-free family evening every week and a monthly outing we plan together.',
    obstacles: ['Work spilling into evenings', 'Everyone on their own screen', 'Weekends filled with errands'],
    firstCommitments: ['Pick this week’s family evening and put it in the calendar', 'Dinner without phones three nights this week', 'Ask each person what they would love to do together'],
  },
  {
    slug: 'career-change-in-a-year',
    name: 'Career change in a year',
    audience: 'People ready to move into a new field within a year while still working their current job.',
    targets: {
      service: { score: 8, focus: ['new_career', 'paid_more'] },
      personal_development: { score: 8, focus: ['learn_skill', 'time_management'] },
      finance: { score: 7, focus: ['emergency_fund'] },
      friends: { score: 7, focus: ['supportive_circle'] },
    },
    ninetyDayGoal: 'Finish a course in the new field and have five conversations with people who already work in it.',
    obstacles: ['No time after work', 'Doubting I can make the switch', 'Money worries about a lower first salary'],
    firstCommitments: ['Choose one course and enrol this week', 'Study five hours a week at fixed times', 'Message two people in the field for a 20-minute chat'],
  },
]

/** The content as a version holds it, in one key order (jsonb keeps its own), to compare with what is stored. */
const canonical = (body: GoalTemplateBody) =>
  JSON.stringify([
    body.name,
    body.audience,
    LIFE_AREAS.map((area) => (body.targets[area] ? [area, body.targets[area].score, body.targets[area].focus] : null)),
    body.ninetyDayGoal,
    body.obstacles,
    body.firstCommitments,
  ])

/** Loads the starters; running it again adds nothing unless a starter's content changed (then its next version). */
export async function seedGoalTemplates(db: Db, options: { now: Date; content?: readonly Starter[] }): Promise<{ templates: number; versionsAdded: number }> {
  const content = options.content ?? STARTER_TEMPLATES
  const { now } = options
  return db.transaction(async (tx) => {
    let versionsAdded = 0
    for (const { slug, ...raw } of content) {
      const body = GoalTemplateBodySchema.parse(raw)
      await tx.insert(goalTemplates).values({ slug, createdBy: null, createdAt: now }).onConflictDoNothing()
      const [template] = await tx.select().from(goalTemplates).where(eq(goalTemplates.slug, slug)).for('update').limit(1)
      const versions = await tx.select().from(goalTemplateVersions).where(eq(goalTemplateVersions.templateId, template!.id))
      const current = versions.find((version) => version.version === template!.currentVersion)
      if (current && canonical(current) === canonical(body)) continue
      const version = Math.max(0, ...versions.map((row) => row.version)) + 1
      await tx.insert(goalTemplateVersions).values({ templateId: template!.id, version, ...body, createdBy: null, createdAt: now })
      await tx.update(goalTemplates).set({ currentVersion: version }).where(eq(goalTemplates.id, template!.id))
      versionsAdded += 1
    }
    return { templates: content.length, versionsAdded }
  })
}

/** Seeds only when there is no template at all (the embedded database's first start). */
export async function seedGoalTemplatesIfEmpty(db: Db, now: Date): Promise<{ templates: number; versionsAdded: number } | null> {
  const [row] = await db.select({ n: count() }).from(goalTemplates)
  if (Number(row?.n ?? 0) > 0) return null
  return seedGoalTemplates(db, { now })
}
