/**
 * Staff accounts (docs/decisions/072): an account with one or more roles. The roles (zod-free, in
 * staff-roles.ts, for the web's route guards) and what GET /api/staff/me answers.
 */
import { z } from 'zod'
import { STAFF_ROLES } from './staff-roles'
import { text } from './text'

export * from './staff-roles'

export const StaffRoleSchema = z.enum(STAFF_ROLES)

/** GET /api/staff/me: the signed-in staff member, their roles, and their two-factor sign-in (always on by then). */
export const StaffMeResponseSchema = z.object({
  fullName: text(),
  email: text(),
  roles: z.array(StaffRoleSchema).min(1),
  twoFactor: z.object({
    /** When two-factor sign-in was turned on. */
    enabledAt: text(),
    /** The single-use recovery codes not used yet. */
    recoveryCodesLeft: z.number().int().nonnegative(),
  }),
})
export type StaffMe = z.infer<typeof StaffMeResponseSchema>
