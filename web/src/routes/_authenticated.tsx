import { createFileRoute } from '@tanstack/react-router'
import { GuardCheckFailed } from '#web/features/auth/components/access-check-failed'
import { AccessPending } from '#web/features/auth/components/access-views'
import { AuthenticatedLayout } from '#web/features/auth/components/guarded-layouts'
import { requireSession } from '#web/features/auth/guards'

/** The screens for signed-in users; a pathless layout, so URLs stay as they are. */
export const Route = createFileRoute('/_authenticated')({
  beforeLoad: requireSession,
  // A first load shows the root's pending view (routes/__root.tsx); navigating here from another
  // screen keeps that screen until this one is ready. This one shows only when the check runs
  // again after a failure (GuardCheckFailed's retry).
  pendingComponent: AccessPending,
  pendingMs: Infinity,
  errorComponent: GuardCheckFailed,
  component: AuthenticatedLayout,
})
