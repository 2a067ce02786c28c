/**
 * Staff accounts (docs/decisions/072): an account with one or more roles. The roles (zod-free, in
 * staff-roles.ts, for the web's route guards) and what GET /api/staff/me answers.
 */
import { z } from 'zod'
import { EmailSchema } from './auth'
import { FULL_NAME_MAX } from './auth-constants'
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

// ---- Admins: staff accounts ----

/** One staff account as the admins' list shows it. */
export const StaffAccountSchema = z.object({
  userId: text(),
  fullName: text(),
  email: text(),
  roles: z.array(StaffRoleSchema),
  /** Whether two-factor sign-in is on (staff pages need it). */
  twoFactorOn: z.boolean(),
})
export type StaffAccount = z.infer<typeof StaffAccountSchema>

export const StaffAccountsResponseSchema = z.object({ staff: z.array(StaffAccountSchema) })

/** An admin gives roles to the person with this email: someone without an account gets one and an emailed invitation (as `npm run staff:add`). */
export const GrantStaffRolesBodySchema = z.object({
  email: EmailSchema,
  fullName: text().trim().max(FULL_NAME_MAX).optional(),
  roles: z.array(StaffRoleSchema).min(1, 'Choose at least one role.').max(STAFF_ROLES.length),
})

export const GrantStaffRolesResponseSchema = z.object({
  account: StaffAccountSchema,
  /** A new account was made, and whether its invitation went out. */
  created: z.boolean(),
  invitationSent: z.boolean().nullable(),
})

/** An admin takes roles away (the account itself stays); an admin cannot take their own admin role. */
export const RevokeStaffRolesBodySchema = z.object({
  email: EmailSchema,
  roles: z.array(StaffRoleSchema).min(1, 'Choose at least one role.').max(STAFF_ROLES.length),
})
export const RevokeStaffRolesResponseSchema = z.object({ account: StaffAccountSchema.nullable() })
