/**
 * Goal templates (docs/decisions/081): coaches and admins write them (an edit is a new version, a
 * version never changes), Elite members start the goal intake from one, and a coach offers one to
 * a member of theirs, who accepts (the wizard opens prefilled) or declines. The offer is audited.
 */
import { randomBytes } from 'node:crypto'
import { and, asc, eq, isNull, sql } from 'drizzle-orm'
import type { GoalTemplateBody, GoalTemplateOffer, GoalTemplateVersion, StaffGoalTemplate } from '#common/goal-templates'
import type { StaffRole } from '#common/staff'
import { isUuid } from '#common/uuid'
import type { Db, DbExecutor } from '#server/db/client'
import { coachAssignments, goalTemplateOffers, goalTemplates, goalTemplateVersions, users, type GoalTemplateVersionRow } from '#server/db/schema'
import { AppError } from '#server/lib/app-error'
import type { Clock } from '#server/lib/clock'
import { audit } from '#server/services/audit'
import { getAccess } from '#server/services/billing'

export { seedGoalTemplates, seedGoalTemplatesIfEmpty } from './seed'

const templateNotFound = () => new AppError('NOT_FOUND', 'No goal template has that id.', { field: 'templateId' })
const versionNotFound = (field = 'versionId') => new AppError('NOT_FOUND', 'No goal template version has that id.', { field })
const eliteRequired = () => new AppError('ELITE_REQUIRED', 'Goal templates come with the Elite plan. Upgrade your plan to start from one.')

function versionView(row: GoalTemplateVersionRow): GoalTemplateVersion {
  return {
    versionId: row.id,
    templateId: row.templateId,
    version: row.version,
    name: row.name,
    audience: row.audience,
    targets: row.targets,
    ninetyDayGoal: row.ninetyDayGoal,
    obstacles: row.obstacles,
    firstCommitments: row.firstCommitments,
    createdAt: row.createdAt.toISOString(),
  }
}

/** The version's content as the insert takes it (the body, already validated and trimmed). */
const versionValues = (body: GoalTemplateBody) => ({
  name: body.name,
  audience: body.audience,
  targets: body.targets,
  ninetyDayGoal: body.ninetyDayGoal,
  obstacles: body.obstacles,
  firstCommitments: body.firstCommitments,
})

/** Whether the person's plan now is Elite and paid (the paid rule of billing). */
async function isElite(db: DbExecutor, userId: string, now: Date): Promise<boolean> {
  const access = await getAccess(db, userId, now)
  return access.paid && access.tier === 'elite'
}

/**
 * The goal intake's save names the version it started from: it must exist (404 naming
 * templateVersionId) and the member be Elite (403 ELITE_REQUIRED).
 */
export async function assertTemplateVersionUsable(db: DbExecutor, userId: string, versionId: string, now: Date): Promise<void> {
  if (!(await isElite(db, userId, now))) throw eliteRequired()
  const [row] = await db.select({ id: goalTemplateVersions.id }).from(goalTemplateVersions).where(eq(goalTemplateVersions.id, versionId)).limit(1)
  if (!row) throw versionNotFound('templateVersionId')
}

/** Each template with the row of its current version. */
const withCurrent = (db: DbExecutor) =>
  db
    .select({ template: goalTemplates, current: goalTemplateVersions })
    .from(goalTemplates)
    .innerJoin(goalTemplateVersions, and(eq(goalTemplateVersions.templateId, goalTemplates.id), eq(goalTemplateVersions.version, goalTemplates.currentVersion)))

/** "marathon-in-6-months-3f9a1c": readable, and unique without asking. */
const slugOf = (name: string) =>
  `${
    name
      .toLowerCase()
      .normalize('NFKD')
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 48) || 'template'
  }-${randomBytes(3).toString('hex')}`

export function createGoalTemplates(deps: { db: Db; clock: Clock }) {
  const { db, clock } = deps

  async function assertElite(memberId: string): Promise<void> {
    if (!(await isElite(db, memberId, clock.now()))) throw eliteRequired()
  }

  const staffView = (row: { template: typeof goalTemplates.$inferSelect; current: GoalTemplateVersionRow }, staffId: string, roles: readonly StaffRole[]): StaffGoalTemplate => ({
    slug: row.template.slug,
    archivedAt: row.template.archivedAt?.toISOString() ?? null,
    canEdit: roles.includes('admin') || row.template.createdBy === staffId,
    current: versionView(row.current),
  })

  /** The template, locked for a change by its author or an admin (403 for other staff). */
  async function editable(tx: DbExecutor, staffId: string, roles: readonly StaffRole[], templateId: string) {
    if (!isUuid(templateId)) throw templateNotFound()
    const [template] = await tx.select().from(goalTemplates).where(eq(goalTemplates.id, templateId)).for('update').limit(1)
    if (!template) throw templateNotFound()
    if (!roles.includes('admin') && template.createdBy !== staffId) throw new AppError('FORBIDDEN', "Only the template's author or an administrator can change it.")
    return template
  }

  async function staffTemplate(tx: DbExecutor, staffId: string, roles: readonly StaffRole[], templateId: string): Promise<StaffGoalTemplate> {
    const [row] = await withCurrent(tx).where(eq(goalTemplates.id, templateId)).limit(1)
    return staffView(row!, staffId, roles)
  }

  async function offerView(row: typeof goalTemplateOffers.$inferSelect): Promise<GoalTemplateOffer> {
    const [version] = await db.select().from(goalTemplateVersions).where(eq(goalTemplateVersions.id, row.templateVersionId)).limit(1)
    const [coach] = row.offeredBy ? await db.select({ fullName: users.fullName }).from(users).where(eq(users.id, row.offeredBy)).limit(1) : []
    return { offerId: row.id, status: row.status, offeredBy: coach?.fullName ?? null, offeredAt: row.createdAt.toISOString(), template: versionView(version!) }
  }

  return {
    /** GET /api/goal-templates: the templates not archived, each at its current version (Elite). */
    async published(memberId: string): Promise<GoalTemplateVersion[]> {
      await assertElite(memberId)
      const rows = await withCurrent(db).where(isNull(goalTemplates.archivedAt)).orderBy(asc(goalTemplateVersions.name), asc(goalTemplates.id))
      return rows.map((row) => versionView(row.current))
    },

    /** One version, for the wizard to start from (any version: an offer may name one since edited or archived). */
    async version(memberId: string, versionId: string): Promise<GoalTemplateVersion> {
      await assertElite(memberId)
      if (!isUuid(versionId)) throw versionNotFound()
      const [row] = await db.select().from(goalTemplateVersions).where(eq(goalTemplateVersions.id, versionId)).limit(1)
      if (!row) throw versionNotFound()
      return versionView(row)
    },

    /** The member's open offer from their coach, or null. */
    async openOffer(memberId: string): Promise<GoalTemplateOffer | null> {
      await assertElite(memberId)
      const [row] = await db
        .select()
        .from(goalTemplateOffers)
        .where(and(eq(goalTemplateOffers.memberUserId, memberId), eq(goalTemplateOffers.status, 'offered')))
        .limit(1)
      return row ? offerView(row) : null
    },

    /** The member accepts (the wizard then opens from the offer's version) or declines their open offer. */
    async answer(memberId: string, offerId: string, status: 'accepted' | 'declined'): Promise<GoalTemplateOffer> {
      await assertElite(memberId)
      const notOpen = () => new AppError('NOT_FOUND', 'You have no open offer with that id.', { field: 'offerId' })
      if (!isUuid(offerId)) throw notOpen()
      const [row] = await db
        .update(goalTemplateOffers)
        .set({ status, answeredAt: clock.now() })
        .where(and(eq(goalTemplateOffers.id, offerId), eq(goalTemplateOffers.memberUserId, memberId), eq(goalTemplateOffers.status, 'offered')))
        .returning()
      if (!row) throw notOpen()
      return offerView(row)
    },

    staff: {
      /** Every template (the archived last), at its current version. */
      async list(staffId: string, roles: readonly StaffRole[]): Promise<StaffGoalTemplate[]> {
        const rows = await withCurrent(db).orderBy(sql`${goalTemplates.archivedAt} is not null`, asc(goalTemplateVersions.name), asc(goalTemplates.id))
        return rows.map((row) => staffView(row, staffId, roles))
      },

      async create(staffId: string, roles: readonly StaffRole[], body: GoalTemplateBody): Promise<StaffGoalTemplate> {
        return db.transaction(async (tx) => {
          const now = clock.now()
          const [template] = await tx.insert(goalTemplates).values({ slug: slugOf(body.name), createdBy: staffId, createdAt: now }).returning({ id: goalTemplates.id })
          await tx.insert(goalTemplateVersions).values({ templateId: template!.id, version: 1, ...versionValues(body), createdBy: staffId, createdAt: now })
          return staffTemplate(tx, staffId, roles, template!.id)
        })
      },

      /** An edit is the template's next version; the earlier ones stay as they were. */
      async edit(staffId: string, roles: readonly StaffRole[], templateId: string, body: GoalTemplateBody): Promise<StaffGoalTemplate> {
        return db.transaction(async (tx) => {
          const template = await editable(tx, staffId, roles, templateId)
          const version = template.currentVersion + 1
          await tx.insert(goalTemplateVersions).values({ templateId, version, ...versionValues(body), createdBy: staffId, createdAt: clock.now() })
          await tx.update(goalTemplates).set({ currentVersion: version }).where(eq(goalTemplates.id, templateId))
          return staffTemplate(tx, staffId, roles, templateId)
        })
      },

      /** Archived: members no longer see it; what they took from it, and open offers of it, stay. */
      async archive(staffId: string, roles: readonly StaffRole[], templateId: string): Promise<StaffGoalTemplate> {
        return db.transaction(async (tx) => {
          const template = await editable(tx, staffId, roles, templateId)
          if (!template.archivedAt) await tx.update(goalTemplates).set({ archivedAt: clock.now() }).where(eq(goalTemplates.id, templateId))
          return staffTemplate(tx, staffId, roles, templateId)
        })
      },

      /**
       * A coach offers a template's current version to one of their current members (anyone
       * else's: 404, as in the workspace); one open offer per member (409). Audited.
       */
      async offer(coachId: string, templateId: string, memberId: string): Promise<GoalTemplateOffer> {
        if (!isUuid(memberId)) throw new AppError('NOT_FOUND', 'This member is not one of yours.', { field: 'memberId' })
        const [mine] = await db
          .select({ id: coachAssignments.id })
          .from(coachAssignments)
          .where(and(eq(coachAssignments.memberUserId, memberId), eq(coachAssignments.coachUserId, coachId), isNull(coachAssignments.endedAt)))
          .limit(1)
        if (!mine) throw new AppError('NOT_FOUND', 'This member is not one of yours.', { field: 'memberId' })
        if (!isUuid(templateId)) throw templateNotFound()
        const [current] = await withCurrent(db)
          .where(and(eq(goalTemplates.id, templateId), isNull(goalTemplates.archivedAt)))
          .limit(1)
        if (!current) throw templateNotFound()
        const row = await db.transaction(async (tx) => {
          const now = clock.now()
          const [offer] = await tx
            .insert(goalTemplateOffers)
            .values({ memberUserId: memberId, templateVersionId: current.current.id, offeredBy: coachId, createdAt: now })
            .onConflictDoNothing()
            .returning()
          if (!offer) throw new AppError('CONFLICT', 'This member has a template to answer already.', { field: 'memberId' })
          await audit.record(tx, {
            actor: { kind: 'user', userId: coachId },
            action: 'goal_template_offered',
            subjectUserId: memberId,
            target: { type: 'goal_template', id: templateId },
            details: { version: current.current.version },
            at: now,
          })
          return offer
        })
        return offerView(row)
      },
    },
  }
}

