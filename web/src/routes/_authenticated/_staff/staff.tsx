import { createFileRoute } from '@tanstack/react-router'
import { STAFF_ROLES } from '#common/staff-roles'
import { requireStaffRole } from '#web/features/staff/guards'
import { StaffPage } from '#web/features/staff/staff-page'

/** /staff: any staff role (docs/decisions/072). */
export const Route = createFileRoute('/_authenticated/_staff/staff')({
  beforeLoad: requireStaffRole(...STAFF_ROLES),
  component: StaffPage,
})
