import { createFileRoute } from '@tanstack/react-router'
import { requireStaffRole } from '#web/features/staff/guards'
import { opsSnapshotQueryOptions } from '#web/features/ops/api'
import { OpsPage } from '#web/features/ops/ops-page'

/** /ops: operators only (docs/decisions/075). */
export const Route = createFileRoute('/_authenticated/_staff/ops')({
  beforeLoad: requireStaffRole('operator'),
  // The snapshot starts loading with the route's code; the page shows its own loading and error states.
  loader: ({ context }) => {
    context.queryClient.ensureQueryData(opsSnapshotQueryOptions()).catch(() => undefined)
  },
  component: OpsPage,
})
