import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import {
  AdjustPlanBodySchema,
  AdjustPlanResponseSchema,
  AvailabilityResponseSchema,
  AvailabilitySchema,
  CoachSessionsResponseSchema,
  HoldBodySchema,
  HoldResponseSchema,
  MeetingBodySchema,
  MemberSessionsResponseSchema,
  SessionResponseSchema,
  SessionSummaryBodySchema,
  SlotsQuerySchema,
  SlotsResponseSchema,
} from '#common/coach-sessions'
import { ErrorBodySchema } from '#common/errors'
import { text } from '#common/text'
import { perUserLimit } from '../lib/route-hooks'

/** Holding a slot is the write a person repeats while choosing; a few a minute is plenty. */
const HOLD_LIMIT = perUserLimit('coach-session-hold', 20)
const WRITE_LIMIT = perUserLimit('coach-session-write', 30)
const SessionParamsSchema = z.object({ sessionId: text().max(64) }).strict()
const HoldParamsSchema = z.object({ holdId: text().max(64) }).strict()
const MemberParamsSchema = z.object({ memberId: text().max(64) }).strict()
const memberErrors = { 401: ErrorBodySchema, 403: ErrorBodySchema, 409: ErrorBodySchema, 429: ErrorBodySchema }
const staffErrors = { 403: ErrorBodySchema, 404: ErrorBodySchema, 429: ErrorBodySchema }

/**
 * Elite's 1-on-1 sessions (docs/decisions/082): the member books their month's session (and their
 * onboarding session) from their coach's free slots through a 5-minute hold, moves or cancels it;
 * the coach keeps their hours, chooses how they meet, marks a no-show and writes the summary.
 */
const coachSessionRoutes: FastifyPluginAsyncZod = async (app) => {
  const { coachSessions } = app.services

  app.get(
    '/api/coach/sessions',
    {
      schema: {
        operationId: 'getCoachSessions',
        tags: ['coach'],
        summary: "An Elite member's 1-on-1 sessions, whether this month's is used, and the onboarding offer. 403 ELITE_REQUIRED on other plans, 409 while a coach is being matched",
        response: { 200: MemberSessionsResponseSchema, ...memberErrors },
      },
      config: { auth: 'paid', cache: 'no-store' },
    },
    async (request) => coachSessions.forMember(request.user.id),
  )

  app.get(
    '/api/coach/sessions/slots',
    {
      schema: {
        operationId: 'getCoachSessionSlots',
        tags: ['coach'],
        summary: "The coach's free 45-minute slots (from their minimum notice to their booking horizon), as instants; the member's and the coach's zones",
        querystring: SlotsQuerySchema,
        response: { 200: SlotsResponseSchema, 400: ErrorBodySchema, ...memberErrors },
      },
      config: { auth: 'paid', cache: 'no-store' },
    },
    async (request) => coachSessions.slots(request.user.id, request.query.kind),
  )

  app.post(
    '/api/coach/sessions/holds',
    {
      schema: {
        operationId: 'holdCoachSessionSlot',
        tags: ['coach'],
        summary: 'Holds a slot for 5 minutes while the member confirms (to book it, or to move a booked session there). 409 SLOT_TAKEN when another member has it, SESSION_ALREADY_USED when the month is used, SESSION_CHANGE_CLOSED for a move within 24 hours',
        body: HoldBodySchema,
        response: { 201: HoldResponseSchema, 400: ErrorBodySchema, 404: ErrorBodySchema, ...memberErrors },
      },
      config: { auth: 'paid', cache: 'no-store', rateLimit: HOLD_LIMIT },
    },
    async (request, reply) => reply.code(201).send(await coachSessions.hold(request.user.id, request.body)),
  )

  app.post(
    '/api/coach/sessions/holds/:holdId/confirm',
    {
      schema: {
        operationId: 'confirmCoachSession',
        tags: ['coach'],
        summary: 'Books the held slot (or moves the session it was held for there); the member and the coach get the invitation by email. 409 HOLD_EXPIRED after 5 minutes',
        params: HoldParamsSchema,
        response: { 200: SessionResponseSchema, 404: ErrorBodySchema, ...memberErrors },
      },
      config: { auth: 'paid', cache: 'no-store', rateLimit: WRITE_LIMIT },
    },
    async (request) => ({ session: await coachSessions.confirm(request.user.id, request.params.holdId) }),
  )

  app.post(
    '/api/coach/sessions/:sessionId/cancel',
    {
      schema: {
        operationId: 'cancelCoachSession',
        tags: ['coach'],
        summary: "Cancels a booked session: 24 hours or more ahead, the month's session is given back; later, it counts as used. The cancellation goes to both calendars",
        params: SessionParamsSchema,
        response: { 200: SessionResponseSchema, 404: ErrorBodySchema, ...memberErrors },
      },
      config: { auth: 'paid', cache: 'no-store', rateLimit: WRITE_LIMIT },
    },
    async (request) => ({ session: await coachSessions.cancel(request.user.id, request.params.sessionId) }),
  )

  app.get(
    '/api/staff/coach/sessions',
    {
      schema: {
        operationId: 'getCoachWorkspaceSessions',
        tags: ['coach workspace'],
        summary: "The coach's sessions from yesterday on, with each member's number only from 15 minutes before a phone session to its end",
        response: { 200: CoachSessionsResponseSchema, ...staffErrors },
      },
      config: { auth: 'staff', role: 'coach', cache: 'no-store' },
    },
    async (request) => ({ sessions: await coachSessions.coach.list(request.user.id) }),
  )

  app.get(
    '/api/staff/coach/availability',
    {
      schema: { operationId: 'getCoachAvailability', tags: ['coach workspace'], summary: "The coach's weekly hours for sessions, exceptions, buffer, notice and horizon", response: { 200: AvailabilityResponseSchema, ...staffErrors } },
      config: { auth: 'staff', role: 'coach', cache: 'no-store' },
    },
    async (request) => coachSessions.coach.availability(request.user.id),
  )

  app.put(
    '/api/staff/coach/availability',
    {
      schema: {
        operationId: 'setCoachAvailability',
        tags: ['coach workspace'],
        summary: "Replaces the coach's weekly hours (in their profile's zone), exceptions, buffer, notice and horizon; booked sessions stay",
        body: AvailabilitySchema,
        response: { 200: AvailabilityResponseSchema, 400: ErrorBodySchema, ...staffErrors },
      },
      config: { auth: 'staff', role: 'coach', cache: 'no-store', rateLimit: WRITE_LIMIT },
    },
    async (request) => coachSessions.coach.setAvailability(request.user.id, request.body),
  )

  app.put(
    '/api/staff/coach/sessions/:sessionId/meeting',
    {
      schema: {
        operationId: 'setCoachSessionMeeting',
        tags: ['coach workspace'],
        summary: "How the coach meets the member: a call to their proven number, or the coach's https video link (the invitation goes again)",
        params: SessionParamsSchema,
        body: MeetingBodySchema,
        response: { 204: z.null(), 400: ErrorBodySchema, 409: ErrorBodySchema, ...staffErrors },
      },
      config: { auth: 'staff', role: 'coach', cache: 'no-store', rateLimit: WRITE_LIMIT },
    },
    async (request, reply) => {
      await coachSessions.coach.setMeeting(request.user.id, request.params.sessionId, request.body)
      return reply.code(204).send(null)
    },
  )

  app.post(
    '/api/staff/coach/sessions/:sessionId/no-show',
    {
      schema: {
        operationId: 'markCoachSessionNoShow',
        tags: ['coach workspace'],
        summary: "The member did not come (once the session started): the month's session is used. Audited",
        params: SessionParamsSchema,
        response: { 204: z.null(), 409: ErrorBodySchema, ...staffErrors },
      },
      config: { auth: 'staff', role: 'coach', cache: 'no-store', rateLimit: WRITE_LIMIT },
    },
    async (request, reply) => {
      await coachSessions.coach.markNoShow(request.user.id, request.params.sessionId)
      return reply.code(204).send(null)
    },
  )

  app.put(
    '/api/staff/coach/members/:memberId/plan',
    {
      schema: {
        operationId: 'adjustMemberPlan',
        tags: ['coach workspace'],
        summary: "White-glove onboarding: the coach changes one of their members' 90-day goal, obstacles or daily call time (what is left out stays). Each change is on the member's account page and in the audit log",
        params: MemberParamsSchema,
        body: AdjustPlanBodySchema,
        response: { 200: AdjustPlanResponseSchema, 400: ErrorBodySchema, 409: ErrorBodySchema, ...staffErrors },
      },
      config: { auth: 'staff', role: 'coach', cache: 'no-store', rateLimit: WRITE_LIMIT },
    },
    async (request) => ({ changed: await coachSessions.coach.adjustPlan(request.user.id, request.params.memberId, request.body) }),
  )

  app.put(
    '/api/staff/coach/sessions/:sessionId/summary',
    {
      schema: {
        operationId: 'writeCoachSessionSummary',
        tags: ['coach workspace'],
        summary: 'After the session: its summary and the commitments agreed (the member sees them). Audited',
        params: SessionParamsSchema,
        body: SessionSummaryBodySchema,
        response: { 204: z.null(), 400: ErrorBodySchema, 409: ErrorBodySchema, ...staffErrors },
      },
      config: { auth: 'staff', role: 'coach', cache: 'no-store', rateLimit: WRITE_LIMIT },
    },
    async (request, reply) => {
      await coachSessions.coach.complete(request.user.id, request.params.sessionId, request.body)
      return reply.code(204).send(null)
    },
  )
}

export default coachSessionRoutes
