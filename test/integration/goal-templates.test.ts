/**
 * Goal templates (docs/decisions/081) on a real PostgreSQL: coaches and admins write them (an edit is
 * a new version, and a version row never changes), Elite members list them and save the goal intake
 * from one (the saved goals keep pointing at the version they took), other plans hear ELITE_REQUIRED;
 * a coach offers one to their own member only (audited), who accepts or declines; the seed's
 * starters exist once however often it runs.
 */
import { and, eq, sql } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ErrorBodySchema } from '#common/errors'
import { GoalTemplateOfferResponseSchema, GoalTemplatesResponseSchema, StaffGoalTemplateResponseSchema, StaffGoalTemplatesResponseSchema, applyTemplate, type GoalTemplateBody } from '#common/goal-templates'
import { emptyGoalsForm } from '#common/goals'
import { auditEvents, coachAssignments, goals, goalTemplateOffers, goalTemplates, goalTemplateVersions } from '#server/db/schema'
import { seedGoalTemplates, seedGoalTemplatesIfEmpty } from '#server/services/goal-templates'
import { buildTestApp } from '../helpers/app'
import { fakeClock } from '../helpers/clock'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { signedInStaff, type StaffMember } from '../helpers/staff'
import { signedInUser, type SignedIn } from '../helpers/users'

let database: TestDatabase
let app: FastifyInstance
let dana: StaffMember
let lee: StaffMember
let admin: StaffMember
const clock = fakeClock(new Date('2026-12-01T15:00:00Z'))

beforeAll(async () => {
  database = await createTestDatabase()
  app = await buildTestApp({ database, clock })
  dana = await signedInStaff(app, ['coach'], { fullName: 'Dana Lee' })
  lee = await signedInStaff(app, ['coach'], { fullName: 'Lee Park' })
  admin = await signedInStaff(app, ['admin'], { fullName: 'Ada Admin' })
})

afterAll(async () => {
  await app?.close()
  await database?.destroy()
})

type Headers = Record<string, string>
const get = (url: string, headers: Headers) => app.inject({ method: 'GET', url, headers })
const send = (method: 'POST' | 'PUT', url: string, headers: Headers, payload?: unknown) =>
  app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) })
const errorOf = (response: { json(): unknown }) => ErrorBodySchema.parse(response.json()).error

const SPRING_10K: GoalTemplateBody = {
  name: 'Spring 10k',
  audience: 'Runners who can run 3 km today.',
  targets: { fitness: { score: 8, focus: ['exercise_routine', 'better_sleep'] }, fun: { score: 7, focus: ['outdoors'] } },
  ninetyDayGoal: 'Run 10 km without stopping.',
  obstacles: ['Rainy mornings'],
  firstCommitments: ['Run three times this week'],
}

async function create(by: StaffMember, body: GoalTemplateBody = SPRING_10K) {
  const response = await send('POST', '/api/staff/goal-templates', by.headers, body)
  expect(response.statusCode, response.body).toBe(201)
  return StaffGoalTemplateResponseSchema.parse(response.json()).template
}

/** The goal intake as the wizard saves it after starting from `versionId`. */
const intakeFrom = (template: Parameters<typeof applyTemplate>[1]) => ({ ...applyTemplate(emptyGoalsForm(), template), templateVersionId: template.versionId })

/** An Elite member of `coach` (the assignment written as the product makes it). */
async function memberOf(coach: StaffMember, fullName = 'Eli Elite'): Promise<SignedIn> {
  const member = await signedInUser(app, { paid: 'elite', fullName })
  await database.db.insert(coachAssignments).values({ memberUserId: member.user.id, coachUserId: coach.user.id, startedAt: clock.now(), how: 'auto' })
  return member
}

describe('writing templates', () => {
  it('coaches and admins write them; an edit is a new version and the earlier one never changes', async () => {
    const written = await create(dana)
    expect(written).toMatchObject({ canEdit: true, archivedAt: null, current: { version: 1, name: 'Spring 10k', obstacles: ['Rainy mornings'] } })
    expect(written.slug).toMatch(/^spring-10k-[0-9a-f]{6}$/)
    const v1 = written.current

    const edited = await send('PUT', `/api/staff/goal-templates/${v1.templateId}`, dana.headers, { ...SPRING_10K, ninetyDayGoal: 'Run 10 km in under an hour.' })
    expect(edited.statusCode, edited.body).toBe(200)
    const v2 = StaffGoalTemplateResponseSchema.parse(edited.json()).template.current
    expect(v2).toMatchObject({ templateId: v1.templateId, version: 2, ninetyDayGoal: 'Run 10 km in under an hour.' })
    expect(v2.versionId).not.toBe(v1.versionId)
    const [kept] = await database.db.select().from(goalTemplateVersions).where(eq(goalTemplateVersions.id, v1.versionId))
    expect(kept).toMatchObject({ version: 1, ninetyDayGoal: 'Run 10 km without stopping.' })
    // The database itself refuses to change a version.
    const change = database.db.update(goalTemplateVersions).set({ name: 'Changed' }).where(eq(goalTemplateVersions.id, v1.versionId))
    await expect(change.catch((error: { cause?: { message?: string } }) => Promise.reject(new Error(error.cause?.message)))).rejects.toThrow('goal_template_versions are never changed: write a new version')

    // Another coach may read it but not change it; an admin may.
    const listed = StaffGoalTemplatesResponseSchema.parse((await get('/api/staff/goal-templates', lee.headers)).json()).templates
    expect(listed.find((template) => template.current.templateId === v1.templateId)).toMatchObject({ canEdit: false, current: { version: 2 } })
    const refused = await send('PUT', `/api/staff/goal-templates/${v1.templateId}`, lee.headers, SPRING_10K)
    expect({ status: refused.statusCode, code: errorOf(refused).code }).toEqual({ status: 403, code: 'FORBIDDEN' })
    expect((await send('PUT', `/api/staff/goal-templates/${v1.templateId}`, admin.headers, SPRING_10K)).statusCode).toBe(200)
    expect((await create(admin, { ...SPRING_10K, name: 'Admin’s 10k' })).canEdit).toBe(true)

    // An unknown template, a bad target.
    const unknown = await send('PUT', '/api/staff/goal-templates/00000000-0000-4000-8000-000000000000', dana.headers, SPRING_10K)
    expect({ status: unknown.statusCode, field: errorOf(unknown).field }).toEqual({ status: 404, field: 'templateId' })
    const badOption = await send('POST', '/api/staff/goal-templates', dana.headers, { ...SPRING_10K, targets: { fitness: { score: 8, focus: ['pay_off_debt'] } } })
    expect({ status: badOption.statusCode, field: errorOf(badOption).field }).toEqual({ status: 400, field: 'targets.fitness.focus.0' })
    const noTarget = await send('POST', '/api/staff/goal-templates', dana.headers, { ...SPRING_10K, targets: {} })
    expect({ status: noTarget.statusCode, field: errorOf(noTarget).field }).toEqual({ status: 400, field: 'targets' })
  })

  it('is for coaches and admins only: support is refused, a member finds no such route', async () => {
    const support = await signedInStaff(app, ['support'])
    const refused = await send('POST', '/api/staff/goal-templates', support.headers, SPRING_10K)
    expect({ status: refused.statusCode, code: errorOf(refused).code }).toEqual({ status: 403, code: 'FORBIDDEN' })
    const member = await signedInUser(app, { paid: 'elite' })
    expect((await send('POST', '/api/staff/goal-templates', member.headers, SPRING_10K)).statusCode).toBe(404)
    expect((await get('/api/staff/goal-templates', member.headers)).statusCode).toBe(404)
  })

  it('archived, a template leaves the members’ list and can no longer be offered', async () => {
    const written = await create(dana, { ...SPRING_10K, name: 'Soon archived' })
    const member = await memberOf(dana)
    const names = async () => GoalTemplatesResponseSchema.parse((await get('/api/goal-templates', member.headers)).json()).templates.map((template) => template.name)
    expect(await names()).toContain('Soon archived')
    const archived = await send('POST', `/api/staff/goal-templates/${written.current.templateId}/archive`, dana.headers)
    expect(archived.statusCode).toBe(200)
    expect(StaffGoalTemplateResponseSchema.parse(archived.json()).template.archivedAt).toBe(clock.now().toISOString())
    expect(await names()).not.toContain('Soon archived')
    const offered = await send('POST', `/api/staff/goal-templates/${written.current.templateId}/offers`, dana.headers, { memberId: member.user.id })
    expect(offered.statusCode).toBe(404)
  })
})

describe('starting the goal intake from a template', () => {
  it("an Elite member's saved goals keep the version they took when the template is edited", async () => {
    const written = await create(dana, { ...SPRING_10K, name: 'Pinned 10k' })
    const member = await signedInUser(app, { paid: 'elite' })
    const listed = GoalTemplatesResponseSchema.parse((await get('/api/goal-templates', member.headers)).json()).templates
    const v1 = listed.find((template) => template.name === 'Pinned 10k')!
    expect(v1).toMatchObject({ version: 1, versionId: written.current.versionId })
    const fetched = await get(`/api/goal-templates/versions/${v1.versionId}`, member.headers)
    expect(fetched.json()).toEqual({ template: v1 })

    // The wizard prefilled from it; the member changes an answer, then saves.
    const intake = intakeFrom(v1)
    expect(intake.areas.fitness).toEqual({ selectedOptions: ['exercise_routine', 'better_sleep'], satisfactionScore: null, customNotes: 'Target: 8/10 in 90 days.' })
    expect(intake.specificGoals.goal90Days).toBe('Run 10 km without stopping.\n\nFirst commitments:\n- Run three times this week')
    intake.areas.fitness.satisfactionScore = 4
    const saved = await send('PUT', '/api/goals', member.headers, intake)
    expect(saved.statusCode, saved.body).toBe(200)

    expect((await send('PUT', `/api/staff/goal-templates/${v1.templateId}`, dana.headers, { ...SPRING_10K, name: 'Pinned 10k', obstacles: ['Snow'] })).statusCode).toBe(200)
    const rows = await database.db.select({ lifeArea: goals.lifeArea, templateVersionId: goals.templateVersionId }).from(goals).where(eq(goals.userId, member.user.id))
    expect(rows.length).toBe(9)
    expect(new Set(rows.map((row) => row.templateVersionId))).toEqual(new Set([v1.versionId]))
    const [version] = await database.db.select().from(goalTemplateVersions).where(eq(goalTemplateVersions.id, v1.versionId))
    expect(version!.obstacles).toEqual(['Rainy mornings'])

    // A later save without a template keeps what the goals came from.
    expect((await send('PUT', '/api/goals', member.headers, { ...intake, templateVersionId: undefined })).statusCode).toBe(200)
    const again = await database.db.select({ templateVersionId: goals.templateVersionId }).from(goals).where(and(eq(goals.userId, member.user.id), eq(goals.lifeArea, 'fitness')))
    expect(again).toEqual([{ templateVersionId: v1.versionId }])

    // An unknown version is refused, naming the field; nothing changes.
    const unknown = await send('PUT', '/api/goals', member.headers, { ...intake, templateVersionId: '00000000-0000-4000-8000-000000000000' })
    expect({ status: unknown.statusCode, field: errorOf(unknown).field }).toEqual({ status: 404, field: 'templateVersionId' })
  })

  it('is Elite only: Premium hears 403 ELITE_REQUIRED, and its goals are not saved from a template', async () => {
    const written = await create(dana, { ...SPRING_10K, name: 'Elite only' })
    const premium = await signedInUser(app, { paid: 'premium' })
    for (const url of ['/api/goal-templates', '/api/goal-templates/offer', `/api/goal-templates/versions/${written.current.versionId}`]) {
      const response = await get(url, premium.headers)
      expect({ url, status: response.statusCode, code: errorOf(response).code }).toEqual({ url, status: 403, code: 'ELITE_REQUIRED' })
    }
    const saved = await send('PUT', '/api/goals', premium.headers, intakeFrom(written.current))
    expect({ status: saved.statusCode, code: errorOf(saved).code }).toEqual({ status: 403, code: 'ELITE_REQUIRED' })
    expect(await database.db.select().from(goals).where(eq(goals.userId, premium.user.id))).toEqual([])
    // Without a template, Premium saves as always.
    expect((await send('PUT', '/api/goals', premium.headers, emptyGoalsForm())).statusCode).toBe(200)
  })
})

describe("a coach's offer", () => {
  it('goes to their own member only, is audited, and the member accepts or declines it', async () => {
    const written = await create(dana, { ...SPRING_10K, name: 'Offered 10k' })
    const member = await memberOf(dana, 'Mia Member')
    const leesMember = await memberOf(lee)
    const offerTo = (coach: StaffMember, memberId: string, templateId = written.current.templateId) => send('POST', `/api/staff/goal-templates/${templateId}/offers`, coach.headers, { memberId })

    // Not theirs (another coach's member, an unknown id): 404, as in the workspace.
    for (const [coach, memberId] of [
      [dana, leesMember.user.id],
      [lee, member.user.id],
      [dana, 'not-an-id'],
    ] as const) {
      const refused = await offerTo(coach, memberId)
      expect({ status: refused.statusCode, field: errorOf(refused).field }).toEqual({ status: 404, field: 'memberId' })
    }
    // Offering is a coach's: an admin is refused by the guard.
    expect((await offerTo(admin, member.user.id)).statusCode).toBe(403)
    expect(GoalTemplateOfferResponseSchema.parse((await get('/api/goal-templates/offer', member.headers)).json()).offer).toBeNull()

    const offered = await offerTo(dana, member.user.id)
    expect(offered.statusCode, offered.body).toBe(201)
    const offer = GoalTemplateOfferResponseSchema.parse(offered.json()).offer!
    expect(offer).toMatchObject({ status: 'offered', offeredBy: 'Dana Lee', template: { versionId: written.current.versionId } })
    // One open offer at a time.
    const twice = await offerTo(dana, member.user.id)
    expect({ status: twice.statusCode, field: errorOf(twice).field }).toEqual({ status: 409, field: 'memberId' })

    const [audited] = await database.db.select().from(auditEvents).where(and(eq(auditEvents.subjectUserId, member.user.id), eq(auditEvents.action, 'goal_template_offered')))
    expect(audited).toMatchObject({ actorKind: 'user', actorUserId: dana.user.id, targetType: 'goal_template', targetId: written.current.templateId, details: { version: 1 } })
    const activity = (await get('/api/account/activity', member.headers)).json() as { events: Array<{ description: string }> }
    expect(activity.events.map((event) => event.description)).toContain('Dana Lee (coach) suggested a goal template to you.')

    // The member sees it and accepts: the wizard then starts from its version.
    expect(GoalTemplateOfferResponseSchema.parse((await get('/api/goal-templates/offer', member.headers)).json()).offer).toEqual(offer)
    // Another member cannot answer it.
    expect((await send('POST', `/api/goal-templates/offers/${offer.offerId}/accept`, leesMember.headers)).statusCode).toBe(404)
    const accepted = await send('POST', `/api/goal-templates/offers/${offer.offerId}/accept`, member.headers)
    expect(accepted.statusCode, accepted.body).toBe(200)
    expect(GoalTemplateOfferResponseSchema.parse(accepted.json()).offer).toMatchObject({ status: 'accepted', template: { versionId: written.current.versionId } })
    expect(GoalTemplateOfferResponseSchema.parse((await get('/api/goal-templates/offer', member.headers)).json()).offer).toBeNull()
    const answeredAgain = await send('POST', `/api/goal-templates/offers/${offer.offerId}/decline`, member.headers)
    expect({ status: answeredAgain.statusCode, field: errorOf(answeredAgain).field }).toEqual({ status: 404, field: 'offerId' })

    // A second offer, declined.
    const next = GoalTemplateOfferResponseSchema.parse((await offerTo(dana, member.user.id)).json()).offer!
    const declined = await send('POST', `/api/goal-templates/offers/${next.offerId}/decline`, member.headers)
    expect(GoalTemplateOfferResponseSchema.parse(declined.json()).offer).toMatchObject({ status: 'declined' })
    const rows = await database.db.select({ status: goalTemplateOffers.status, answered: sql<boolean>`${goalTemplateOffers.answeredAt} is not null` }).from(goalTemplateOffers).where(eq(goalTemplateOffers.memberUserId, member.user.id))
    expect(rows.map((row) => [row.status, row.answered]).sort()).toEqual([
      ['accepted', true],
      ['declined', true],
    ])
  })
})

describe('the starter templates', () => {
  it('exist once after the seed runs twice; changed content becomes a new version', async () => {
    const first = await seedGoalTemplates(app.db, { now: clock.now() })
    expect(first.templates).toBeGreaterThanOrEqual(3)
    expect(await seedGoalTemplatesIfEmpty(app.db, clock.now())).toBeNull()
    const second = await seedGoalTemplates(app.db, { now: clock.now() })
    expect(second.versionsAdded).toBe(0)
    const starters = await database.db
      .select({ slug: goalTemplates.slug, name: goalTemplateVersions.name, version: goalTemplateVersions.version, createdBy: goalTemplates.createdBy })
      .from(goalTemplates)
      .innerJoin(goalTemplateVersions, eq(goalTemplateVersions.templateId, goalTemplates.id))
      .where(sql`${goalTemplates.createdBy} is null`)
    expect(starters.map((row) => row.name)).toEqual(expect.arrayContaining(['New manager: first 90 days', 'Marathon in 6 months', 'Debt-free in a year']))
    expect(starters).toHaveLength(first.templates)
    expect(new Set(starters.map((row) => row.slug)).size).toBe(starters.length)
    expect(starters.every((row) => row.version === 1)).toBe(true)

    // An Elite member sees them.
    const member = await signedInUser(app, { paid: 'elite' })
    const names = GoalTemplatesResponseSchema.parse((await get('/api/goal-templates', member.headers)).json()).templates.map((template) => template.name)
    expect(names).toEqual(expect.arrayContaining(['Marathon in 6 months', 'Debt-free in a year']))

    // The seed's content changed: the next version, the first kept.
    const marathon = { slug: 'marathon-in-6-months', ...SPRING_10K, name: 'Marathon in 6 months' }
    expect((await seedGoalTemplates(app.db, { now: clock.now(), content: [marathon] })).versionsAdded).toBe(1)
    expect((await seedGoalTemplates(app.db, { now: clock.now(), content: [marathon] })).versionsAdded).toBe(0)
    const versions = await database.db
      .select({ version: goalTemplateVersions.version, current: goalTemplates.currentVersion })
      .from(goalTemplateVersions)
      .innerJoin(goalTemplates, eq(goalTemplates.id, goalTemplateVersions.templateId))
      .where(eq(goalTemplates.slug, 'marathon-in-6-months'))
    expect(versions.map((row) => row.version).sort()).toEqual([1, 2])
    expect(versions[0]!.current).toBe(2)
  })
})
