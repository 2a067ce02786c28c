import { createFileRoute } from '@tanstack/react-router'
import { StaffPage } from '#web/features/staff/staff-page'

/**
 * /staff (docs/decisions/072), for every staff role. Like every staff page, its guard asks GET
 * /api/staff/me (features/staff/guards.ts, loaded only when a staff page opens: route options are
 * in the entry chunk): a member sees the not-found page, staff without two-factor sign-in are sent
 * to set it up first.
 */
export const Route = createFileRoute('/_authenticated/staff')({
  beforeLoad: (options) => import('#web/features/staff/guards').then((guards) => guards.requireStaffRole(null, options)),
  component: StaffPage,
})
