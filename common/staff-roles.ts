/**
 * The staff roles (docs/decisions/072), free of zod: the web's route guards (in the entry chunk)
 * read them; common/staff.ts re-exports them with the schemas.
 */

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
