import { createFileRoute } from '@tanstack/react-router'
import { StaffPage } from '#web/features/staff/staff-page'
import { staffOnly } from '#web/features/staff/staff-only'

/**
 * /staff (docs/decisions/072), for every staff role. Like every staff page, its guard asks GET
 * /api/staff/me (features/staff/guards.ts): a member sees the not-found page, staff without
 * two-factor sign-in are sent to set it up first.
 */
export const Route = createFileRoute('/_authenticated/staff')({
  beforeLoad: staffOnly(null),
  component: StaffPage,
})
