import { createFileRoute } from '@tanstack/react-router'
import { WorkspacePage } from '#web/features/coach/workspace-page'
import { StaffAccessError } from '#web/features/staff/staff-access'
import { staffOnly } from '#web/features/staff/staff-only'

/**
 * /coach (docs/decisions/078): the coach workspace (coaches), and coaches' capacity and
 * assignments (admins). Its search (`?member=…`) is read by the page itself.
 */
export const Route = createFileRoute('/_authenticated/coach')({
  beforeLoad: staffOnly(['coach', 'admin']),
  errorComponent: StaffAccessError,
  component: WorkspacePage,
})
