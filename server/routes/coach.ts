import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import {
  AssignCoachBodySchema,
  AssignCoachResponseSchema,
  CoachesResponseSchema,
  CoachMemberDetailSchema,
  CoachMemberParamsSchema,
  CoachMembersResponseSchema,
  CoachNoteBodySchema,
  CoachNoteParamsSchema,
  CoachNoteResponseSchema,
  CoachParamsSchema,
  CoachProfileSchema,
  MyCoachResponseSchema,
  UpdateCapacityBodySchema,
  UpdateCoachProfileBodySchema,
} from '#common/coach'
import { ErrorBodySchema } from '#common/errors'
import { perUserLimit } from '../lib/route-hooks'

const WRITE_LIMIT = perUserLimit('coach-write', 60)
const staffErrors = { 403: ErrorBodySchema, 404: ErrorBodySchema, 429: ErrorBodySchema }

/**
 * Elite's human coach (docs/decisions/078): the member's coach (GET /api/coach), the coach's
 * workspace (their own members only; role coach), and the admins' view of coaches' capacity and
 * assignments (role admin). The staff guard answers anyone else 404, or 403.
 */
const coachRoutes: FastifyPluginAsyncZod = async (app) => {
  const { coach } = app.services

  app.get(
    '/api/coach',
    {
      schema: {
        operationId: 'getMyCoach',
        tags: ['coach'],
        summary: "An Elite member's coach (assigned now to the coach with the most room if they have none): name, bio, working hours and reply-time promise; or that one is being matched; or not-elite",
        response: { 200: MyCoachResponseSchema, 401: ErrorBodySchema, 429: ErrorBodySchema },
      },
      config: { auth: 'session', cache: 'no-store' },
    },
    async (request) => coach.mine(request.user.id),
  )

  app.get(
    '/api/staff/coach/profile',
    {
      schema: { operationId: 'getCoachProfile', tags: ['coach workspace'], summary: "The coach's own profile, as their members see it", response: { 200: CoachProfileSchema, ...staffErrors } },
      config: { auth: 'staff', role: 'coach', cache: 'no-store' },
    },
    async (request) => coach.ownProfile(request.user.id),
  )

  app.put(
    '/api/staff/coach/profile',
    {
      schema: {
        operationId: 'updateCoachProfile',
        tags: ['coach workspace'],
        summary: "Changes the coach's bio, working days and hours (in their time zone) and reply-time promise",
        body: UpdateCoachProfileBodySchema,
        response: { 200: CoachProfileSchema, 400: ErrorBodySchema, ...staffErrors },
      },
      config: { auth: 'staff', role: 'coach', cache: 'no-store', rateLimit: WRITE_LIMIT },
    },
    async (request) => coach.updateOwnProfile(request.user.id, request.body),
  )

  app.get(
    '/api/staff/coach/members',
    {
      schema: {
        operationId: 'listCoachMembers',
        tags: ['coach workspace'],
        summary: "The coach's current members: score, last completed call, and whether they went quiet",
        response: { 200: CoachMembersResponseSchema, ...staffErrors },
      },
      config: { auth: 'staff', role: 'coach', cache: 'no-store' },
    },
    async (request) => ({ members: await coach.members(request.user.id) }),
  )

  app.get(
    '/api/staff/coach/members/:memberId',
    {
      schema: {
        operationId: 'getCoachMember',
        tags: ['coach workspace'],
        summary: "One of the coach's members: goals and scores, the last calls' summaries, commitments, weekly reports, the next call, and the coach's private notes; written to the member's audit log. 404 for anyone else's member",
        params: CoachMemberParamsSchema,
        response: { 200: CoachMemberDetailSchema, 400: ErrorBodySchema, ...staffErrors },
      },
      config: { auth: 'staff', role: 'coach', cache: 'no-store', rateLimit: { max: 120, timeWindow: '1 minute' } },
    },
    async (request) => coach.member(request.user.id, request.params.memberId),
  )

  app.post(
    '/api/staff/coach/members/:memberId/notes',
    {
      schema: {
        operationId: 'addCoachNote',
        tags: ['coach workspace'],
        summary: 'A private note on one of the coach\'s members: never shown to the member nor in their export',
        params: CoachMemberParamsSchema,
        body: CoachNoteBodySchema,
        response: { 201: CoachNoteResponseSchema, 400: ErrorBodySchema, ...staffErrors },
      },
      config: { auth: 'staff', role: 'coach', cache: 'no-store', rateLimit: WRITE_LIMIT },
    },
    async (request, reply) => reply.code(201).send({ note: await coach.notes.add(request.user.id, request.params.memberId, request.body.body) }),
  )

  app.put(
    '/api/staff/coach/members/:memberId/notes/:noteId',
    {
      schema: {
        operationId: 'updateCoachNote',
        tags: ['coach workspace'],
        summary: 'Changes a private note',
        params: CoachNoteParamsSchema,
        body: CoachNoteBodySchema,
        response: { 200: CoachNoteResponseSchema, 400: ErrorBodySchema, ...staffErrors },
      },
      config: { auth: 'staff', role: 'coach', cache: 'no-store', rateLimit: WRITE_LIMIT },
    },
    async (request) => ({ note: await coach.notes.update(request.user.id, request.params.memberId, request.params.noteId, request.body.body) }),
  )

  app.delete(
    '/api/staff/coach/members/:memberId/notes/:noteId',
    {
      schema: {
        operationId: 'deleteCoachNote',
        tags: ['coach workspace'],
        summary: 'Deletes a private note',
        params: CoachNoteParamsSchema,
        response: { 204: z.undefined(), 400: ErrorBodySchema, ...staffErrors },
      },
      config: { auth: 'staff', role: 'coach', cache: 'no-store', rateLimit: WRITE_LIMIT },
    },
    async (request, reply) => {
      await coach.notes.remove(request.user.id, request.params.memberId, request.params.noteId)
      return reply.code(204).send()
    },
  )

  app.get(
    '/api/staff/admin/coaches',
    {
      schema: {
        operationId: 'listCoaches',
        tags: ['coach workspace'],
        summary: 'Every coach with their current members and capacity, and how many Elite members wait for a coach (admins)',
        response: { 200: CoachesResponseSchema, ...staffErrors },
      },
      config: { auth: 'staff', role: 'admin', cache: 'no-store' },
    },
    async () => coach.admin.coaches(),
  )

  app.put(
    '/api/staff/admin/coaches/:coachId/capacity',
    {
      schema: {
        operationId: 'setCoachCapacity',
        tags: ['coach workspace'],
        summary: 'How many members a coach takes (0 to 500; admins). Members over it keep their coach; new ones go elsewhere',
        params: CoachParamsSchema,
        body: UpdateCapacityBodySchema,
        response: { 200: CoachesResponseSchema, 400: ErrorBodySchema, ...staffErrors },
      },
      config: { auth: 'staff', role: 'admin', cache: 'no-store', rateLimit: WRITE_LIMIT },
    },
    async (request) => coach.admin.setCapacity(request.params.coachId, request.body.maxMembers),
  )

  app.post(
    '/api/staff/admin/coach-assignments',
    {
      schema: {
        operationId: 'assignCoach',
        tags: ['coach workspace'],
        summary: "Gives an Elite member (by email) a coach; their earlier coach's assignment ends and stays in the history; written to the member's audit log (admins)",
        body: AssignCoachBodySchema,
        response: { 200: AssignCoachResponseSchema, 400: ErrorBodySchema, ...staffErrors, 409: ErrorBodySchema },
      },
      config: { auth: 'staff', role: 'admin', cache: 'no-store', rateLimit: WRITE_LIMIT },
    },
    async (request) => coach.admin.assign(request.user.id, request.body.memberEmail, request.body.coachId),
  )
}

export default coachRoutes
