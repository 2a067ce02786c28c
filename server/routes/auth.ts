import type { FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import {
  ConfirmEmailBodySchema,
  DestinationResponseSchema,
  ForgotPasswordBodySchema,
  LoginBodySchema,
  MessageResponseSchema,
  ResetPasswordBodySchema,
  SessionUserResponseSchema,
  SignInResponseSchema,
  SignupBodySchema,
} from '#common/auth'
import { ErrorBodySchema } from '#common/errors'
import { TwoFactorSignInBodySchema } from '#common/two-factor'
import { sessionUserFrom, type RequestMeta } from '#server/services/accounts'

/** Auth POSTs: 10 per minute per IP, shared by every auth endpoint (Redis-backed when configured). */
export const AUTH_POST_LIMIT = { max: 10, timeWindow: '1 minute', groupId: 'auth-post' }

const errors = { 400: ErrorBodySchema, 401: ErrorBodySchema, 403: ErrorBodySchema, 409: ErrorBodySchema, 429: ErrorBodySchema }

const meta = (request: FastifyRequest): RequestMeta => ({ ip: request.ip, userAgent: request.headers['user-agent'] })

const authRoutes: FastifyPluginAsyncZod = async (app) => {
  const { accounts, clock } = app.services

  app.post(
    '/api/auth/signup',
    {
      schema: {
        operationId: 'signUp',
        tags: ['auth'],
        summary: 'Create an account and sign in (a confirmation email is sent)',
        body: SignupBodySchema,
        response: { 201: SessionUserResponseSchema, ...errors },
      },
      config: { auth: 'none', cache: 'no-store', rateLimit: AUTH_POST_LIMIT },
    },
    async (request, reply) => {
      const { fullName, email, phoneNumber, password, partnerProgram } = request.body
      const { user, session } = await accounts.signUp({ fullName, email, phoneNumber, password, partnerProgram }, meta(request))
      app.setSessionCookie(reply, session)
      return reply.code(201).send({ user: await accounts.toSessionUser(user) })
    },
  )

  app.post(
    '/api/auth/login',
    {
      schema: {
        operationId: 'signIn',
        tags: ['auth'],
        summary:
          'Sign in with email and password (always a new session). With two-factor sign-in on, the answer is { twoFactorRequired: true } and the session waits for the code (POST /api/auth/two-factor)',
        body: LoginBodySchema,
        response: { 200: SignInResponseSchema, ...errors },
      },
      config: { auth: 'none', cache: 'no-store', rateLimit: AUTH_POST_LIMIT },
    },
    async (request, reply) => {
      const { user, session, twoFactorRequired } = await accounts.logIn(request.body, meta(request))
      app.setSessionCookie(reply, session)
      if (twoFactorRequired) return { twoFactorRequired: true as const }
      return { user: await accounts.toSessionUser(user) }
    },
  )

  app.post(
    '/api/auth/two-factor',
    {
      schema: {
        operationId: 'completeTwoFactorSignIn',
        tags: ['auth'],
        summary:
          "Sign-in's second step: the 6-digit code from the authenticator app, or a recovery code (single use), for a session waiting for it (valid 15 minutes after the password; wrong codes are limited per person)",
        body: TwoFactorSignInBodySchema,
        response: { 200: SessionUserResponseSchema, ...errors },
      },
      config: { auth: 'two-factor', cache: 'no-store', rateLimit: AUTH_POST_LIMIT },
    },
    async (request) => {
      const user = await accounts.completeTwoFactorSignIn(request.session!, request.body.code)
      return { user: await accounts.toSessionUser(user) }
    },
  )

  app.post(
    '/api/auth/logout',
    {
      schema: { operationId: 'signOut', tags: ['auth'], summary: 'Sign out: deletes the session on the server', response: { 204: z.undefined(), ...errors } },
      config: { auth: 'optional' },
    },
    async (request, reply) => {
      // A session still waiting for its two-factor code ends too.
      const session = request.session ?? request.pendingSession
      if (session) await accounts.logOut(session.id)
      app.clearSessionCookie(reply)
      return reply.code(204).send()
    },
  )

  app.get(
    '/api/me',
    {
      schema: { operationId: 'getCurrentUser', tags: ['auth'], summary: 'The signed-in user (spec 1 §3)', response: { 200: SessionUserResponseSchema, 401: ErrorBodySchema } },
      config: { auth: 'session', cache: 'no-store' },
    },
    async (request) => ({ user: sessionUserFrom(request.user, request.session?.profile ?? null, clock.now()) }),
  )

  app.post(
    '/api/auth/destination',
    {
      schema: {
        operationId: 'resolvePostLoginDestination',
        tags: ['auth'],
        summary: 'Post-login routing (spec 1 §4); records onboarding_completed when goals exist and payment is done',
        response: { 200: DestinationResponseSchema, ...errors },
      },
      config: { auth: 'session' },
    },
    async (request) => ({ path: await accounts.postLoginDestination(request.user.id) }),
  )

  app.post(
    '/api/auth/confirm-email',
    {
      schema: {
        operationId: 'confirmEmail',
        tags: ['auth'],
        summary: 'Confirm the email address with the emailed token (single use, valid 24 h)',
        body: ConfirmEmailBodySchema,
        response: { 200: SessionUserResponseSchema, ...errors },
      },
      config: { auth: 'none', rateLimit: AUTH_POST_LIMIT },
    },
    async (request) => ({ user: await accounts.toSessionUser(await accounts.confirmEmail(request.body.token)) }),
  )

  app.post(
    '/api/auth/resend-confirmation',
    {
      schema: {
        operationId: 'resendConfirmationEmail',
        tags: ['auth'],
        summary: 'Send the confirmation email again (one a minute, five an hour)',
        response: { 202: MessageResponseSchema, ...errors },
      },
      config: { auth: 'session', rateLimit: AUTH_POST_LIMIT },
    },
    async (request, reply) => {
      const user = request.user
      if (user.emailConfirmedAt) return reply.code(202).send({ message: 'Your email is already confirmed.' })
      await accounts.sendConfirmationEmail(user)
      return reply.code(202).send({ message: `We sent a new confirmation link to ${user.email}.` })
    },
  )

  app.post(
    '/api/auth/forgot-password',
    {
      schema: {
        operationId: 'requestPasswordReset',
        tags: ['auth'],
        summary: 'Email a password reset link; always answers the same',
        body: ForgotPasswordBodySchema,
        response: { 202: MessageResponseSchema, ...errors },
      },
      config: { auth: 'none', rateLimit: AUTH_POST_LIMIT },
    },
    async (request, reply) => {
      await accounts.requestPasswordReset(request.body.email)
      return reply
        .code(202)
        .send({ message: 'If an account exists for that email, we sent a link to reset the password. Please check your inbox.' })
    },
  )

  app.post(
    '/api/auth/reset-password',
    {
      schema: {
        operationId: 'resetPassword',
        tags: ['auth'],
        summary:
          'Set a new password with the emailed token (a reset link: single use, valid 1 h; a staff invitation: valid 7 days); signs out every other session. With two-factor sign-in on, the new session waits for the code ({ twoFactorRequired: true })',
        body: ResetPasswordBodySchema,
        response: { 200: SignInResponseSchema, ...errors },
      },
      config: { auth: 'none', cache: 'no-store', rateLimit: AUTH_POST_LIMIT },
    },
    async (request, reply) => {
      const { user, session, twoFactorRequired } = await accounts.resetPassword(request.body.token, request.body.password, meta(request))
      app.setSessionCookie(reply, session)
      if (twoFactorRequired) return { twoFactorRequired: true as const }
      return { user: await accounts.toSessionUser(user) }
    },
  )
}

export default authRoutes
