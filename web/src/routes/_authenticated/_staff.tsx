import { createFileRoute } from '@tanstack/react-router'
import { requireStaff } from '#web/features/staff/guards'
import { StaffAccessError, StaffLayout } from '#web/features/staff/staff-layout'

/**
 * The staff pages (docs/decisions/072); a pathless layout, so URLs stay as they are. Its guard asks
 * GET /api/staff/me: a member sees the not-found page, staff without two-factor sign-in are sent to
 * set it up; each page under it names its roles (requireStaffRole).
 */
export const Route = createFileRoute('/_authenticated/_staff')({
  beforeLoad: requireStaff,
  errorComponent: StaffAccessError,
  component: StaffLayout,
})
