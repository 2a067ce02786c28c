import { createFileRoute } from '@tanstack/react-router'
import { OpsPage } from '#web/features/ops/ops-page'
import { StaffAccessError } from '#web/features/staff/staff-access'

/**
 * /ops: operators only (docs/decisions/075). Like every staff page, its guard asks GET
 * /api/staff/me (features/staff/guards.ts, loaded only when a staff page opens): a member sees the
 * not-found page, staff without two-factor sign-in are sent to set it up first, other staff are
 * told the page is for operators. The snapshot starts loading once the guard has let them in.
 */
export const Route = createFileRoute('/_authenticated/ops')({
  beforeLoad: (options) => import('#web/features/staff/guards').then((guards) => guards.requireStaffRole(['operator'], options)),
  loader: ({ context }) => {
    void import('#web/features/ops/api').then(({ opsSnapshotQueryOptions }) => context.queryClient.ensureQueryData(opsSnapshotQueryOptions()).catch(() => undefined))
  },
  errorComponent: StaffAccessError,
  component: OpsPage,
})
