import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { ErrorBodySchema } from '#common/errors'
import { STAFF_ROLES, StaffMeResponseSchema } from '#common/staff'

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
}

export default staffRoutes
