import { createFileRoute } from '@tanstack/react-router'
import { PaidLayout } from '#web/features/auth/components/guarded-layouts'
import { requirePayment } from '#web/features/auth/guards'

/** The screens that also need a completed payment; without one, /payment. */
export const Route = createFileRoute('/_authenticated/_paid')({
  beforeLoad: requirePayment,
  component: PaidLayout,
})
