import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import {
  AccountResponseSchema,
  ChangeEmailBodySchema,
  ChangePasswordBodySchema,
  ChangePhoneBodySchema,
  ConfirmEmailChangeBodySchema,
  ConfirmEmailChangeResponseSchema,
  ConfirmPhoneBodySchema,
  SessionParamsSchema,
  SessionsResponseSchema,
  SignedOutResponseSchema,
  UpdateProfileBodySchema,
} from '#common/account'
import { AccountActivityResponseSchema } from '#common/audit'
import { ErrorBodySchema } from '#common/errors'
import {
  RecoveryCodesBodySchema,
  RecoveryCodesResponseSchema,
  TwoFactorDisableBodySchema,
  TwoFactorEnableBodySchema,
  TwoFactorSetupBodySchema,
  TwoFactorSetupResponseSchema,
  TwoFactorStatusResponseSchema,
} from '#common/two-factor'
import { AccountUsageResponseSchema } from '#common/usage'
import { perUserLimit } from '../lib/route-hooks'
import { AUTH_POST_LIMIT } from './auth'

const errors = { 400: ErrorBodySchema, 401: ErrorBodySchema, 403: ErrorBodySchema, 404: ErrorBodySchema, 409: ErrorBodySchema, 429: ErrorBodySchema, 503: ErrorBodySchema }

/** The account page's changes: 20 a minute per person, shared by them. */
const WRITE_LIMIT = perUserLimit('account-write', 20)
/**
 * Writes that check the current password (argon2): 5 valid requests a minute per person, on top
 * of the hourly count of wrong passwords.
 */
const PASSWORD_LIMIT = perUserLimit('account-password', 5, 'preHandler')
/** The code of a new phone number: 10 tries a minute per person (and 5 per code). */
const CODE_LIMIT = perUserLimit('account-code', 10, 'preHandler')
/** Two-factor codes on the account page: 10 a minute per person, on top of the per-person count of wrong codes. */
const TWO_FACTOR_LIMIT = perUserLimit('account-two-factor', 10, 'preHandler')

/**
 * /api/account: the account page (issue 16, docs/decisions/050). Every operation needs the session
 * and acts on its user alone (another person's session is 404); state changes are same-origin only
 * (the CSRF hook); bad input is a 400 naming the field.
 */
const accountRoutes: FastifyPluginAsyncZod = async (app) => {
  const { accounts } = app.services

  app.get(
    '/api/account',
    {
      schema: {
        operationId: 'getAccount',
        tags: ['account'],
        summary: 'The profile: name, email, phone, and the email or phone change waiting for its confirmation',
        response: { 200: AccountResponseSchema, 401: ErrorBodySchema, 429: ErrorBodySchema },
      },
      config: { auth: 'session', cache: 'no-store' },
    },
    async (request) => accounts.account(request.user.id),
  )

  app.get(
    '/api/account/usage',
    {
      schema: {
        operationId: 'getUsage',
        tags: ['account'],
        summary:
          "This month's and today's use of the plan's in-app budget (voice minutes in the app, messages to the assistant), the limits, what is left and when each comes back, in the person's time zone",
        response: { 200: AccountUsageResponseSchema, 401: ErrorBodySchema, 429: ErrorBodySchema },
      },
      config: { auth: 'session', cache: 'no-store' },
    },
    async (request) => app.services.usage.summary(request.user.id),
  )

  app.patch(
    '/api/account/profile',
    {
      schema: { operationId: 'updateProfile', tags: ['account'], summary: 'Change the name (sign-up’s rules)', body: UpdateProfileBodySchema, response: { 200: AccountResponseSchema, ...errors } },
      config: { auth: 'session', cache: 'no-store', rateLimit: WRITE_LIMIT },
    },
    async (request) => accounts.updateName(request.user.id, request.body.fullName),
  )

  app.post(
    '/api/account/email',
    {
      schema: {
        operationId: 'requestEmailChange',
        tags: ['account'],
        summary:
          'Ask to change the email (current password required): a link goes to the new address, the old one is told and keeps working until the link is followed (one a minute, five an hour)',
        body: ChangeEmailBodySchema,
        response: { 202: AccountResponseSchema, ...errors },
      },
      config: { auth: 'session', cache: 'no-store', rateLimit: PASSWORD_LIMIT },
    },
    async (request, reply) => reply.code(202).send(await accounts.requestEmailChange(request.user, request.body)),
  )

  app.post(
    '/api/account/email/confirm',
    {
      schema: {
        operationId: 'confirmEmailChange',
        tags: ['account'],
        summary: 'Follow the link emailed to the new address (single use, valid 24 h; no session needed): it becomes the account’s email, confirmed',
        body: ConfirmEmailChangeBodySchema,
        response: { 200: ConfirmEmailChangeResponseSchema, ...errors },
      },
      config: { auth: 'none', cache: 'no-store', rateLimit: AUTH_POST_LIMIT },
    },
    async (request) => {
      const { email } = await accounts.confirmEmailChange(request.body.token)
      return { email }
    },
  )

  app.post(
    '/api/account/phone',
    {
      schema: {
        operationId: 'requestPhoneChange',
        tags: ['account'],
        summary:
          'Ask to change the phone number (current password required; a US or Canadian number; a confirmed email): a 6-digit code is texted to it (written to the log without Twilio, outside production); calls and texts keep going to the current number until it is entered (one a minute, five an hour per person; three an hour and ten a day per number)',
        body: ChangePhoneBodySchema,
        response: { 202: AccountResponseSchema, ...errors },
      },
      config: { auth: 'session', cache: 'no-store', rateLimit: PASSWORD_LIMIT },
    },
    async (request, reply) => reply.code(202).send(await accounts.requestPhoneChange(request.user, request.body)),
  )

  app.post(
    '/api/account/phone/resend',
    {
      schema: {
        operationId: 'resendPhoneChangeCode',
        tags: ['account'],
        summary: 'Text a new code for the phone change waiting for one (the old code stops working; the same limits as the first)',
        response: { 202: AccountResponseSchema, ...errors },
      },
      config: { auth: 'session', cache: 'no-store', rateLimit: WRITE_LIMIT },
    },
    async (request, reply) => reply.code(202).send(await accounts.resendPhoneChangeCode(request.user)),
  )

  app.post(
    '/api/account/phone/verification',
    {
      schema: {
        operationId: 'requestPhoneVerification',
        tags: ['account'],
        summary:
          'Verify the current number: a 6-digit code is texted to it (a confirmed email; never to a number that texted STOP; one a minute, five an hour per person; three an hour and ten a day per number). Nothing is called or texted before the number is proven',
        response: { 202: AccountResponseSchema, ...errors },
      },
      config: { auth: 'session', cache: 'no-store', rateLimit: WRITE_LIMIT },
    },
    async (request, reply) => reply.code(202).send(await accounts.requestPhoneProof(request.user)),
  )

  app.post(
    '/api/account/phone/verification/confirm',
    {
      schema: {
        operationId: 'confirmPhoneVerification',
        tags: ['account'],
        summary: 'Enter the code texted to the current number (valid 10 minutes, 5 tries): the number is proven, and calls and texts can reach it',
        body: ConfirmPhoneBodySchema,
        response: { 200: AccountResponseSchema, ...errors },
      },
      config: { auth: 'session', cache: 'no-store', rateLimit: CODE_LIMIT },
    },
    async (request) => accounts.confirmPhoneProof(request.user.id, request.body.code),
  )

  app.post(
    '/api/account/phone/confirm',
    {
      schema: {
        operationId: 'confirmPhoneChange',
        tags: ['account'],
        summary: 'Enter the texted code (valid 10 minutes, 5 tries): the new number becomes where calls and texts go',
        body: ConfirmPhoneBodySchema,
        response: { 200: AccountResponseSchema, ...errors },
      },
      config: { auth: 'session', cache: 'no-store', rateLimit: CODE_LIMIT },
    },
    async (request) => accounts.confirmPhoneChange(request.user.id, request.body.code),
  )

  const CANCEL_SUMMARIES = {
    email: 'Cancel the email change waiting for its link (the link stops working)',
    phone: 'Cancel the phone change waiting for its code (the code stops working)',
  } as const
  const CANCEL_OPERATION_IDS = { email: 'cancelEmailChange', phone: 'cancelPhoneChange' } as const
  for (const kind of ['email', 'phone'] as const) {
    app.delete(
      `/api/account/${kind}`,
      {
        schema: { operationId: CANCEL_OPERATION_IDS[kind], tags: ['account'], summary: CANCEL_SUMMARIES[kind], response: { 200: AccountResponseSchema, ...errors } },
        config: { auth: 'session', cache: 'no-store', rateLimit: WRITE_LIMIT },
      },
      async (request) => accounts.cancelChange(request.user.id, kind),
    )
  }

  app.post(
    '/api/account/password',
    {
      schema: {
        operationId: 'changePassword',
        tags: ['account'],
        summary: 'Change the password (the current one required, sign-up’s rules for the new one): every other session is signed out and an email tells the person',
        body: ChangePasswordBodySchema,
        response: { 200: SignedOutResponseSchema, ...errors },
      },
      config: { auth: 'session', cache: 'no-store', rateLimit: PASSWORD_LIMIT },
    },
    async (request) => accounts.changePassword(request.user, request.sessionId, request.body),
  )

  app.get(
    '/api/account/two-factor',
    {
      schema: {
        operationId: 'getTwoFactor',
        tags: ['account'],
        summary: 'Two-factor sign-in: whether it is on, since when, and how many recovery codes are left',
        response: { 200: TwoFactorStatusResponseSchema, 401: ErrorBodySchema, 429: ErrorBodySchema },
      },
      config: { auth: 'session', cache: 'no-store' },
    },
    async (request) => accounts.twoFactorStatus(request.user.id),
  )

  app.post(
    '/api/account/two-factor/setup',
    {
      schema: {
        operationId: 'beginTwoFactorSetup',
        tags: ['account'],
        summary:
          'Start turning on two-factor sign-in (current password required): a new key for an authenticator app, as a QR code and as text. It is not on until a code from the app confirms it; asking again replaces a key not confirmed yet',
        body: TwoFactorSetupBodySchema,
        response: { 200: TwoFactorSetupResponseSchema, ...errors },
      },
      config: { auth: 'session', cache: 'no-store', rateLimit: PASSWORD_LIMIT },
    },
    async (request) => accounts.beginTwoFactorSetup(request.user, request.body.currentPassword),
  )

  app.post(
    '/api/account/two-factor',
    {
      schema: {
        operationId: 'enableTwoFactor',
        tags: ['account'],
        summary:
          'Turn on two-factor sign-in with a code from the app holding the new key: every other session is signed out, and 10 single-use recovery codes are returned, shown this once',
        body: TwoFactorEnableBodySchema,
        response: { 200: RecoveryCodesResponseSchema, ...errors },
      },
      config: { auth: 'session', cache: 'no-store', rateLimit: TWO_FACTOR_LIMIT },
    },
    async (request) => accounts.enableTwoFactor(request.user, request.sessionId, request.body.code),
  )

  app.post(
    '/api/account/two-factor/disable',
    {
      schema: {
        operationId: 'disableTwoFactor',
        tags: ['account'],
        summary: 'Turn off two-factor sign-in: the current password and a code (from the app, or a recovery code); the key and the recovery codes are deleted',
        body: TwoFactorDisableBodySchema,
        response: { 200: TwoFactorStatusResponseSchema, ...errors },
      },
      config: { auth: 'session', cache: 'no-store', rateLimit: PASSWORD_LIMIT },
    },
    async (request) => accounts.disableTwoFactor(request.user, request.sessionId, request.body),
  )

  app.post(
    '/api/account/two-factor/recovery-codes',
    {
      schema: {
        operationId: 'regenerateRecoveryCodes',
        tags: ['account'],
        summary: 'New recovery codes for a code (from the app, or a recovery code): the earlier ones stop working; the 10 new ones are shown this once',
        body: RecoveryCodesBodySchema,
        response: { 200: RecoveryCodesResponseSchema, ...errors },
      },
      config: { auth: 'session', cache: 'no-store', rateLimit: TWO_FACTOR_LIMIT },
    },
    async (request) => accounts.regenerateRecoveryCodes(request.user.id, request.body.code),
  )

  app.get(
    '/api/account/activity',
    {
      schema: {
        operationId: 'getAccountActivity',
        tags: ['account'],
        summary: "The audit log's events about the person's account, newest first (at most 100): who did what (staff named with their roles) and when",
        response: { 200: AccountActivityResponseSchema, 401: ErrorBodySchema, 429: ErrorBodySchema },
      },
      config: { auth: 'session', cache: 'no-store' },
    },
    async (request) => ({ events: await app.services.audit.aboutPerson(request.user.id) }),
  )

  app.get(
    '/api/account/sessions',
    {
      schema: {
        operationId: 'listSessions',
        tags: ['account'],
        summary: 'The signed-in sessions: browser and OS (from the user agent), created and last seen (to within 5 minutes); the current one marked',
        response: { 200: SessionsResponseSchema, 401: ErrorBodySchema, 429: ErrorBodySchema },
      },
      config: { auth: 'session', cache: 'no-store' },
    },
    async (request) => ({ sessions: await accounts.listSessions(request.user.id, request.sessionId) }),
  )

  app.delete(
    '/api/account/sessions/:id',
    {
      schema: {
        operationId: 'signOutSession',
        tags: ['account'],
        summary: 'Sign out one of the user’s sessions (404 for anyone else’s); the current one signs this browser out',
        params: SessionParamsSchema,
        response: { 204: z.undefined(), ...errors },
      },
      config: { auth: 'session', rateLimit: WRITE_LIMIT },
    },
    async (request, reply) => {
      await accounts.signOutSession(request.user.id, request.params.id)
      if (request.params.id === request.sessionId) app.clearSessionCookie(reply)
      return reply.code(204).send()
    },
  )

  app.post(
    '/api/account/sessions/sign-out-others',
    {
      schema: { operationId: 'signOutOtherSessions', tags: ['account'], summary: 'Sign out every other session of the user', response: { 200: SignedOutResponseSchema, ...errors } },
      config: { auth: 'session', cache: 'no-store', rateLimit: WRITE_LIMIT },
    },
    async (request) => ({ signedOut: await accounts.signOutOtherSessions(request.user.id, request.sessionId) }),
  )
}

export default accountRoutes
