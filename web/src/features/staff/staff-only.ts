import type { QueryClient } from '@tanstack/react-query'
import type { StaffRole } from '#common/staff-roles'
import type { StaffMe } from './api'

/**
 * A staff page's beforeLoad: `beforeLoad: staffOnly(['operator'])` (null: any staff role). Route
 * options sit in the entry chunk every page pays for (docs/decisions/020), so this is all a staff
 * route carries there: the guard itself (guards.ts) loads when a staff page opens.
 */
export function staffOnly(roles: readonly StaffRole[] | null) {
  return (options: { context: { queryClient: QueryClient }; location: { href: string } }): Promise<{ staff: StaffMe }> =>
    import('./guards').then((guards) => guards.requireStaffRole(roles, options))
}
