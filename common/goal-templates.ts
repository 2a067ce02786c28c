/**
 * Goal templates (docs/decisions/081): what coaches and admins write (a name, who it is for, the
 * life-area targets, a suggested 90-day goal, obstacles to watch, first commitments), the versions
 * members start the goal intake from, a coach's offer of one to a member, and how a version fills
 * the wizard's answers. Shared by the server and the web.
 */
import { z } from 'zod'
import { LIFE_AREAS, SATISFACTION_MAX, SATISFACTION_MIN, type LifeArea } from './domain'
import { LIFE_AREA_STEPS, type GoalsForm } from './goals'
import { text } from './text'

export const TEMPLATE_NAME_MAX = 80
export const TEMPLATE_AUDIENCE_MAX = 200
/** With the commitments below it, the 90-day goal the wizard is given stays under GOAL_TEXT_MAX (1,000). */
export const TEMPLATE_GOAL_MAX = 400
const TEMPLATE_ITEM_MAX = 100
const TEMPLATE_ITEMS_MAX = 5

const bounded = (what: string, max: number) =>
  text()
    .trim()
    .min(1, `Write ${what}.`)
    .max(max, `${what[0]!.toUpperCase()}${what.slice(1)} must be at most ${max} characters.`)

const items = (what: string) =>
  z
    .array(bounded(what, TEMPLATE_ITEM_MAX))
    .max(TEMPLATE_ITEMS_MAX, `At most ${TEMPLATE_ITEMS_MAX}.`)
    .refine((list) => new Set(list).size === list.length, 'Each once.')

/** One life area's target: the score to reach (1 to 10) and the wizard's focus options of that area. */
function targetSchema(area: (typeof LIFE_AREA_STEPS)[number]) {
  const ids = area.options.map((option) => option.id) as [string, ...string[]]
  return z.strictObject({
    score: z.number().int().min(SATISFACTION_MIN).max(SATISFACTION_MAX),
    focus: z
      .array(z.enum(ids, { error: `Unknown ${area.title} option` }))
      .max(ids.length)
      .refine((values) => new Set(values).size === values.length, 'Each option once.'),
  })
}

const targetShape = Object.fromEntries(LIFE_AREA_STEPS.map((area) => [area.id, targetSchema(area).optional()])) as {
  [K in LifeArea]: z.ZodOptional<ReturnType<typeof targetSchema>>
}

/** The life areas a template aims at (at least one), each with its target score and focus options. */
export const GoalTemplateTargetsSchema = z
  .strictObject(targetShape)
  .refine((targets) => Object.values(targets).some(Boolean), 'Give at least one life area a target.')
export type GoalTemplateTargets = z.infer<typeof GoalTemplateTargetsSchema>

/** A template as staff write it: creating one, or editing it (which makes its next version). */
export const GoalTemplateBodySchema = z.strictObject({
  name: bounded('a name', TEMPLATE_NAME_MAX),
  audience: bounded('who it is for', TEMPLATE_AUDIENCE_MAX),
  targets: GoalTemplateTargetsSchema,
  ninetyDayGoal: bounded('the 90-day goal', TEMPLATE_GOAL_MAX),
  obstacles: items('an obstacle'),
  firstCommitments: items('a commitment'),
})
export type GoalTemplateBody = z.infer<typeof GoalTemplateBodySchema>

/** One version of a template, as it was written (versions never change). */
export const GoalTemplateVersionSchema = z.object({
  versionId: text(),
  templateId: text(),
  version: z.number().int(),
  name: text(),
  audience: text(),
  targets: GoalTemplateTargetsSchema,
  ninetyDayGoal: text(),
  obstacles: z.array(text()),
  firstCommitments: z.array(text()),
  createdAt: text(),
})
export type GoalTemplateVersion = z.infer<typeof GoalTemplateVersionSchema>

/** GET /api/goal-templates: the published templates (not archived), each at its current version. */
export const GoalTemplatesResponseSchema = z.object({ templates: z.array(GoalTemplateVersionSchema) })
export const GoalTemplateVersionResponseSchema = z.object({ template: GoalTemplateVersionSchema })
export const GoalTemplateVersionParamsSchema = z.object({ versionId: text() })

/** A template in the staff's list: its current version, whether it is archived, and whether this staff member may change it. */
export const StaffGoalTemplateSchema = z.object({
  slug: text(),
  archivedAt: text().nullable(),
  /** Its author, or an admin. */
  canEdit: z.boolean(),
  current: GoalTemplateVersionSchema,
})
export type StaffGoalTemplate = z.infer<typeof StaffGoalTemplateSchema>
export const StaffGoalTemplatesResponseSchema = z.object({ templates: z.array(StaffGoalTemplateSchema) })
export const StaffGoalTemplateResponseSchema = z.object({ template: StaffGoalTemplateSchema })
export const GoalTemplateParamsSchema = z.object({ templateId: text() })

/** A coach offers a template (its current version) to one of their members. */
export const GoalTemplateOfferBodySchema = z.strictObject({ memberId: text() })

export const GOAL_TEMPLATE_OFFER_STATUSES = ['offered', 'accepted', 'declined'] as const

/** The member's open offer: who suggested which version. */
export const GoalTemplateOfferSchema = z.object({
  offerId: text(),
  status: z.enum(GOAL_TEMPLATE_OFFER_STATUSES),
  /** The coach's name; null once their account is gone. */
  offeredBy: text().nullable(),
  offeredAt: text(),
  template: GoalTemplateVersionSchema,
})
export type GoalTemplateOffer = z.infer<typeof GoalTemplateOfferSchema>
export const GoalTemplateOfferResponseSchema = z.object({ offer: GoalTemplateOfferSchema.nullable() })
export const GoalTemplateOfferParamsSchema = z.object({ offerId: text() })

/** "Dana suggested a template: Marathon in 6 months" (the coach's first name). */
export const offerHeadline = (offer: GoalTemplateOffer) =>
  `${offer.offeredBy ? offer.offeredBy.split(/\s+/)[0] : 'Your coach'} suggested a template: ${offer.template.name}`

/** The 90-day goal's text in the wizard: the goal, then the first commitments as a list. */
function templateGoalText(template: Pick<GoalTemplateVersion, 'ninetyDayGoal' | 'firstCommitments'>): string {
  if (template.firstCommitments.length === 0) return template.ninetyDayGoal
  return `${template.ninetyDayGoal}\n\nFirst commitments:\n${template.firstCommitments.map((item) => `- ${item}`).join('\n')}`
}

/**
 * The wizard's answers started from a template: each targeted area's focus options and its target
 * (in the area's notes), the 90-day goal with the first commitments, the obstacles. What only the
 * member knows stays theirs: how satisfied they are now, work, the 12-month and 5-year goals, the
 * call time. Every answer stays editable in the wizard.
 */
export function applyTemplate(form: GoalsForm, template: GoalTemplateVersion): GoalsForm {
  const areas = { ...form.areas }
  for (const area of LIFE_AREAS) {
    const target = template.targets[area]
    if (target) areas[area] = { ...areas[area], selectedOptions: [...target.focus], customNotes: `Target: ${target.score}/10 in 90 days.` }
  }
  return {
    ...form,
    areas,
    specificGoals: {
      ...form.specificGoals,
      goal90Days: templateGoalText(template),
      obstacles: template.obstacles.map((item) => `- ${item}`).join('\n'),
    },
  }
}
