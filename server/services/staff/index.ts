/**
 * Staff (docs/decisions/072): accounts with one or more roles (coach, support, operator, admin).
 * The route guard asks `rolesOf` on staff routes only; `npm run staff:add` and `staff:remove`
 * grant and remove roles (each change in the audit log); GET /api/staff/me answers `me`.
 */
import { and, asc, count, eq, isNotNull, isNull, sql } from 'drizzle-orm'
import type { StaffAccount, StaffMe, StaffRole } from '#common/staff'
import { staffRoles, twoFactorCredentials, twoFactorRecoveryCodes, users } from '#server/db/schema'
import { AppError } from '#server/lib/app-error'
import type { AuditActor } from '#server/services/audit'
import { isStaffRole } from '#common/staff'
import { addStaff, removeStaff, rolesOf, type StaffDeps } from './roles'

export { INVITATION_TTL_DAYS } from './roles'

export function createStaff(deps: StaffDeps) {
  const { db } = deps
  return {
    /** The person's roles (none: not staff). */
    rolesOf: (userId: string) => rolesOf(db, userId),
    /** GET /api/staff/me: who, with which roles, and their two-factor sign-in. */
    async me(userId: string, roles: readonly StaffRole[]): Promise<StaffMe> {
      const [row] = await db
        .select({ fullName: users.fullName, email: users.email, enabledAt: twoFactorCredentials.enabledAt })
        .from(users)
        .innerJoin(twoFactorCredentials, and(eq(twoFactorCredentials.userId, users.id), isNotNull(twoFactorCredentials.enabledAt)))
        .where(eq(users.id, userId))
        .limit(1)
      if (!row?.enabledAt || roles.length === 0) throw new AppError('NOT_FOUND')
      const [left] = await db
        .select({ n: count() })
        .from(twoFactorRecoveryCodes)
        .where(and(eq(twoFactorRecoveryCodes.userId, userId), isNull(twoFactorRecoveryCodes.usedAt)))
      return { fullName: row.fullName, email: row.email, roles: [...roles], twoFactor: { enabledAt: row.enabledAt.toISOString(), recoveryCodesLeft: left?.n ?? 0 } }
    },
    add: (input: { email: string; fullName?: string | undefined; roles: readonly StaffRole[] }, actor: AuditActor) => addStaff(deps, input, actor),
    /** The admins' list: every account with a staff role, its roles and whether two-factor sign-in is on. */
    async accounts(): Promise<StaffAccount[]> {
      const rows = await db
        .select({
          userId: users.id,
          fullName: users.fullName,
          email: users.email,
          roles: sql<string[]>`array_agg(${staffRoles.role} order by ${staffRoles.role})`,
          twoFactorOn: sql<boolean>`bool_or(${twoFactorCredentials.enabledAt} is not null)`,
        })
        .from(staffRoles)
        .innerJoin(users, eq(users.id, staffRoles.userId))
        .leftJoin(twoFactorCredentials, eq(twoFactorCredentials.userId, users.id))
        .groupBy(users.id)
        .orderBy(asc(users.fullName), asc(users.id))
      return rows.map((row) => ({ ...row, roles: row.roles.filter(isStaffRole), twoFactorOn: row.twoFactorOn === true }))
    },
    /** One account by email, as the admins' list shows it (null when it holds no role). */
    async account(email: string): Promise<StaffAccount | null> {
      return (await this.accounts()).find((account) => account.email === email) ?? null
    },
    remove: (input: { email: string; roles: readonly StaffRole[] }, actor: AuditActor) => removeStaff(deps, input, actor),
  }
}
