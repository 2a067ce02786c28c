/**
 * Staff accounts (docs/decisions/072): an account with one or more roles. The roles, their names in
 * words, and what GET /api/staff/me answers. Zod-free constants first, so the web's route guards
 * (in the entry chunk) can read them without loading zod.
 */
import { z } from 'zod'
import { text } from './text'

/** Every staff role. A route declares the ones it accepts (`config: { auth: 'staff', role }`). */
export const STAFF_ROLES = ['coach', 'support', 'operator', 'admin'] as const
export type StaffRole = (typeof STAFF_ROLES)[number]

/** A role as the product names it to a person ("Dana Lee (operator)"). */
export const STAFF_ROLE_NAMES: Readonly<Record<StaffRole, string>> = {
  coach: 'coach',
  support: 'support',
  operator: 'operator',
  admin: 'administrator',
}

export const isStaffRole = (value: unknown): value is StaffRole => STAFF_ROLES.some((role) => role === value)

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
