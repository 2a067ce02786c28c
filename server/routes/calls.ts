import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { CallDetailResponseSchema, CallScheduleResponseSchema, CallsDiagnosticsResponseSchema, NextCallResponseSchema, UpdateCallScheduleSchema } from '#common/calls'
import { ErrorBodySchema } from '#common/errors'
import { text } from '#common/text'
import { perUserLimit } from '../lib/route-hooks'

/** Saving the schedule: 30 a minute per user is far above any person's pace. */
const SAVE_LIMIT = perUserLimit('calls-schedule', 30)

const errors = { 401: ErrorBodySchema, 403: ErrorBodySchema, 429: ErrorBodySchema }

const CallParamsSchema = z.object({ id: text() })

/**
 * The daily coaching calls as the person sees them: the next call (or why none), one call's
 * detail and timeline, and the schedule they control. Signed-in, paid users only; every read is
 * filtered by the session user, so another user's call is a 404.
 */
const callsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { calls } = app.services

  app.get(
    '/api/calls/diagnostics',
    {
      schema: {
        operationId: 'getCallDiagnostics',
        tags: ['calls'],
        summary:
          "The diagnostics page's daily-calls section: whether calls can be placed, the webhook URL, failures on our side in the last 24 hours by reason, Vapi's messages parked after failing every try (count and latest, never their content), and the user's latest call",
        response: { 200: CallsDiagnosticsResponseSchema, ...errors },
      },
      config: { auth: 'paid', cache: 'no-store' },
    },
    async (request) => calls.diagnostics(request.user.id),
  )

  app.get(
    '/api/calls/next',
    {
      schema: {
        operationId: 'getNextCall',
        tags: ['calls'],
        summary:
          "The signed-in user's next coaching call (instant, slot, kind, local date and time, zone), or why none is scheduled: payment, onboarding, phone, consent, paused, no_call_time or not_configured",
        response: { 200: NextCallResponseSchema, ...errors, 404: ErrorBodySchema },
      },
      config: { auth: 'paid', cache: 'no-store' },
    },
    async (request) => calls.next(request.user.id),
  )

  app.get(
    '/api/calls/schedule',
    {
      schema: {
        operationId: 'getCallSchedule',
        tags: ['calls'],
        summary: "The signed-in user's call schedule: daily call time and zone, evening check-in time (Premium, Elite), pause, calls on or off",
        response: { 200: CallScheduleResponseSchema, ...errors, 404: ErrorBodySchema },
      },
      config: { auth: 'paid', cache: 'no-store' },
    },
    async (request) => calls.getSchedule(request.user.id),
  )

  app.put(
    '/api/calls/schedule',
    {
      schema: {
        operationId: 'updateCallSchedule',
        tags: ['calls'],
        summary:
          "Save the call schedule (the daily time also becomes the goal intake's preferred call time); 400 naming the field for a zone that is not an IANA zone, a time off the half hour, an evening time without the evening check-in, or a pause not ending after today and within a year",
        body: UpdateCallScheduleSchema,
        response: { 200: CallScheduleResponseSchema, 400: ErrorBodySchema, ...errors, 404: ErrorBodySchema },
      },
      config: { auth: 'paid', cache: 'no-store', rateLimit: SAVE_LIMIT },
    },
    async (request) => calls.updateSchedule(request.user.id, request.body, { ip: request.ip, userAgent: request.headers['user-agent'] ?? null }),
  )

  app.get(
    '/api/calls/:id',
    {
      schema: {
        operationId: 'getCall',
        tags: ['calls'],
        summary: "One of the signed-in user's calls with its timeline (events by time); 404 for another user's call or an id that is not a call's",
        params: CallParamsSchema,
        response: { 200: CallDetailResponseSchema, 400: ErrorBodySchema, ...errors, 404: ErrorBodySchema },
      },
      config: { auth: 'paid', cache: 'no-store' },
    },
    async (request) => calls.detail(request.user.id, request.params.id),
  )
}

export default callsRoutes
