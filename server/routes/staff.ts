import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { ErrorBodySchema } from '#common/errors'
import {
  GrantStaffRolesBodySchema,
  GrantStaffRolesResponseSchema,
  RevokeStaffRolesBodySchema,
  RevokeStaffRolesResponseSchema,
  STAFF_ROLES,
  StaffAccountsResponseSchema,
  StaffMeResponseSchema,
} from '#common/staff'
import { AppError } from '../lib/app-error'
import { perUserLimit } from '../lib/route-hooks'

/** Granting and removing roles: an admin's pace, and a new account emails an invitation. */
const ADMIN_WRITE_LIMIT = perUserLimit('staff-admin-write', 20)

/**
 * /api/staff: staff accounts' operations (docs/decisions/072). Each declares the roles it accepts
 * (`config: { auth: 'staff', role }`); the guard answers anyone who is not staff 404, staff without
 * two-factor sign-in 403 TWO_FACTOR_REQUIRED, and staff without the role 403 FORBIDDEN.
 */
const staffRoutes: FastifyPluginAsyncZod = async (app) => {
  const { staff } = app.services

  app.get(
    '/api/staff/me',
    {
      schema: {
        operationId: 'getStaffMember',
        tags: ['staff'],
        summary: 'The signed-in staff member: name, email, roles, and their two-factor sign-in (since when, recovery codes left)',
        response: { 200: StaffMeResponseSchema, 403: ErrorBodySchema, 404: ErrorBodySchema, 429: ErrorBodySchema },
      },
      config: { auth: 'staff', role: STAFF_ROLES, cache: 'no-store' },
    },
    async (request) => staff.me(request.user.id, request.staffRoles),
  )

  const adminErrors = { 403: ErrorBodySchema, 404: ErrorBodySchema, 429: ErrorBodySchema }

  app.get(
    '/api/staff/admin/staff',
    {
      schema: {
        operationId: 'listStaffAccounts',
        tags: ['staff'],
        summary: 'Every staff account with its roles and whether two-factor sign-in is on (admins)',
        response: { 200: StaffAccountsResponseSchema, ...adminErrors },
      },
      config: { auth: 'staff', role: 'admin', cache: 'no-store' },
    },
    async () => ({ staff: await staff.accounts() }),
  )

  app.post(
    '/api/staff/admin/staff',
    {
      schema: {
        operationId: 'grantStaffRoles',
        tags: ['staff'],
        summary:
          'Gives roles to the person with this email (admins), as `npm run staff:add` does: someone without an account gets one and an emailed invitation to choose a password; each grant is in their audit log',
        body: GrantStaffRolesBodySchema,
        response: { 200: GrantStaffRolesResponseSchema, 400: ErrorBodySchema, ...adminErrors },
      },
      config: { auth: 'staff', role: 'admin', cache: 'no-store', rateLimit: ADMIN_WRITE_LIMIT },
    },
    async (request) => {
      const result = await staff.add(request.body, { kind: 'user', userId: request.user.id })
      const account = await staff.account(result.user.email)
      return { account: account!, created: result.created, invitationSent: result.invitation === null ? null : result.invitation.sent }
    },
  )

  app.post(
    '/api/staff/admin/staff/revoke',
    {
      schema: {
        operationId: 'revokeStaffRoles',
        tags: ['staff'],
        summary: "Takes roles away from the person with this email (admins); the account stays. An admin cannot take their own admin role (409). Each removal is in their audit log",
        body: RevokeStaffRolesBodySchema,
        response: { 200: RevokeStaffRolesResponseSchema, 400: ErrorBodySchema, ...adminErrors, 409: ErrorBodySchema },
      },
      config: { auth: 'staff', role: 'admin', cache: 'no-store', rateLimit: ADMIN_WRITE_LIMIT },
    },
    async (request) => {
      if (request.body.email === request.user.email && request.body.roles.includes('admin')) {
        throw new AppError('CONFLICT', 'You cannot take away your own admin role: ask another administrator.', { field: 'roles' })
      }
      const result = await staff.remove(request.body, { kind: 'user', userId: request.user.id })
      return { account: await staff.account(result.user.email) }
    },
  )
}

export default staffRoutes
