import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { ErrorBodySchema } from '#common/errors'
import {
  GoalTemplateBodySchema,
  GoalTemplateOfferBodySchema,
  GoalTemplateOfferParamsSchema,
  GoalTemplateOfferResponseSchema,
  GoalTemplateParamsSchema,
  GoalTemplatesResponseSchema,
  GoalTemplateVersionParamsSchema,
  GoalTemplateVersionResponseSchema,
  StaffGoalTemplateResponseSchema,
  StaffGoalTemplatesResponseSchema,
} from '#common/goal-templates'
import { perUserLimit } from '../lib/route-hooks'

const WRITE_LIMIT = perUserLimit('goal-templates-write', 60)
const memberErrors = { 401: ErrorBodySchema, 403: ErrorBodySchema, 429: ErrorBodySchema }
const staffErrors = { 403: ErrorBodySchema, 404: ErrorBodySchema, 429: ErrorBodySchema }

/**
 * Goal templates (docs/decisions/081): Elite members list them, start the goal intake from a
 * version and answer their coach's offer (other plans: 403 ELITE_REQUIRED); coaches and admins
 * write them (an edit is a new version) and archive them; a coach offers one to a member of theirs.
 */
const goalTemplateRoutes: FastifyPluginAsyncZod = async (app) => {
  const { goalTemplates } = app.services

  app.get(
    '/api/goal-templates',
    {
      schema: {
        operationId: 'listGoalTemplates',
        tags: ['goal templates'],
        summary: 'The published goal templates, each at its current version (Elite; other plans 403 ELITE_REQUIRED)',
        response: { 200: GoalTemplatesResponseSchema, ...memberErrors },
      },
      config: { auth: 'paid', cache: 'no-store' },
    },
    async (request) => ({ templates: await goalTemplates.published(request.user.id) }),
  )

  app.get(
    '/api/goal-templates/versions/:versionId',
    {
      schema: {
        operationId: 'getGoalTemplateVersion',
        tags: ['goal templates'],
        summary: 'One version of a template, to start the goal intake from (Elite); versions never change',
        params: GoalTemplateVersionParamsSchema,
        response: { 200: GoalTemplateVersionResponseSchema, 400: ErrorBodySchema, 404: ErrorBodySchema, ...memberErrors },
      },
      config: { auth: 'paid', cache: 'no-store' },
    },
    async (request) => ({ template: await goalTemplates.version(request.user.id, request.params.versionId) }),
  )

  app.get(
    '/api/goal-templates/offer',
    {
      schema: {
        operationId: 'getGoalTemplateOffer',
        tags: ['goal templates'],
        summary: "The template the member's coach suggested and the member has not answered yet, or null (Elite)",
        response: { 200: GoalTemplateOfferResponseSchema, ...memberErrors },
      },
      config: { auth: 'paid', cache: 'no-store' },
    },
    async (request) => ({ offer: await goalTemplates.openOffer(request.user.id) }),
  )

  for (const [action, status] of [
    ['accept', 'accepted'],
    ['decline', 'declined'],
  ] as const) {
    app.post(
      `/api/goal-templates/offers/:offerId/${action}`,
      {
        schema: {
          operationId: `${action}GoalTemplateOffer`,
          tags: ['goal templates'],
          summary:
            action === 'accept'
              ? "Accepts the coach's offer: the goal intake then opens prefilled from its version (Elite). 404 when no open offer has the id"
              : "Declines the coach's offer (Elite). 404 when no open offer has the id",
          params: GoalTemplateOfferParamsSchema,
          response: { 200: GoalTemplateOfferResponseSchema, 400: ErrorBodySchema, 404: ErrorBodySchema, ...memberErrors },
        },
        config: { auth: 'paid', cache: 'no-store', rateLimit: WRITE_LIMIT },
      },
      async (request) => ({ offer: await goalTemplates.answer(request.user.id, request.params.offerId, status) }),
    )
  }

  app.get(
    '/api/staff/goal-templates',
    {
      schema: {
        operationId: 'listStaffGoalTemplates',
        tags: ['goal templates'],
        summary: 'Every goal template at its current version, the archived last, with whether this staff member may change it (coaches and admins)',
        response: { 200: StaffGoalTemplatesResponseSchema, ...staffErrors },
      },
      config: { auth: 'staff', role: ['coach', 'admin'], cache: 'no-store' },
    },
    async (request) => ({ templates: await goalTemplates.staff.list(request.user.id, request.staffRoles) }),
  )

  app.post(
    '/api/staff/goal-templates',
    {
      schema: {
        operationId: 'createGoalTemplate',
        tags: ['goal templates'],
        summary: 'Writes a goal template: name, who it is for, life-area targets, a 90-day goal, obstacles and first commitments (its version 1; coaches and admins)',
        body: GoalTemplateBodySchema,
        response: { 201: StaffGoalTemplateResponseSchema, 400: ErrorBodySchema, ...staffErrors },
      },
      config: { auth: 'staff', role: ['coach', 'admin'], cache: 'no-store', rateLimit: WRITE_LIMIT },
    },
    async (request, reply) => reply.code(201).send({ template: await goalTemplates.staff.create(request.user.id, request.staffRoles, request.body) }),
  )

  app.put(
    '/api/staff/goal-templates/:templateId',
    {
      schema: {
        operationId: 'updateGoalTemplate',
        tags: ['goal templates'],
        summary: "Edits a template: its next version, the earlier ones unchanged (its author or an admin; other staff 403 FORBIDDEN)",
        params: GoalTemplateParamsSchema,
        body: GoalTemplateBodySchema,
        response: { 200: StaffGoalTemplateResponseSchema, 400: ErrorBodySchema, ...staffErrors },
      },
      config: { auth: 'staff', role: ['coach', 'admin'], cache: 'no-store', rateLimit: WRITE_LIMIT },
    },
    async (request) => ({ template: await goalTemplates.staff.edit(request.user.id, request.staffRoles, request.params.templateId, request.body) }),
  )

  app.post(
    '/api/staff/goal-templates/:templateId/archive',
    {
      schema: {
        operationId: 'archiveGoalTemplate',
        tags: ['goal templates'],
        summary: 'Archives a template: members no longer see it; what they took from it stays (its author or an admin)',
        params: GoalTemplateParamsSchema,
        response: { 200: StaffGoalTemplateResponseSchema, 400: ErrorBodySchema, ...staffErrors },
      },
      config: { auth: 'staff', role: ['coach', 'admin'], cache: 'no-store', rateLimit: WRITE_LIMIT },
    },
    async (request) => ({ template: await goalTemplates.staff.archive(request.user.id, request.staffRoles, request.params.templateId) }),
  )

  app.post(
    '/api/staff/goal-templates/:templateId/offers',
    {
      schema: {
        operationId: 'offerGoalTemplate',
        tags: ['goal templates'],
        summary:
          "A coach offers a template's current version to one of their members, who accepts or declines; written to the member's audit log. 404 for anyone else's member, 409 while the member has an offer to answer",
        params: GoalTemplateParamsSchema,
        body: GoalTemplateOfferBodySchema,
        response: { 201: GoalTemplateOfferResponseSchema, 400: ErrorBodySchema, ...staffErrors, 409: ErrorBodySchema },
      },
      config: { auth: 'staff', role: 'coach', cache: 'no-store', rateLimit: WRITE_LIMIT },
    },
    async (request, reply) => reply.code(201).send({ offer: await goalTemplates.staff.offer(request.user.id, request.params.templateId, request.body.memberId) }),
  )
}

export default goalTemplateRoutes
