import { createFileRoute } from '@tanstack/react-router'
import { OpsPage } from '#web/features/ops/ops-page'
import { StaffAccessError } from '#web/features/staff/staff-access'
import { staffOnly } from '#web/features/staff/staff-only'

/**
 * /ops: operators only (docs/decisions/075). Like every staff page, its guard asks GET
 * /api/staff/me (features/staff/guards.ts): a member sees the not-found page, staff without
 * two-factor sign-in are sent to set it up first, other staff are told the page is for operators.
 * The page asks for the snapshot once the guard has let them in.
 */
export const Route = createFileRoute('/_authenticated/ops')({
  beforeLoad: staffOnly(['operator']),
  errorComponent: StaffAccessError,
  component: OpsPage,
})
