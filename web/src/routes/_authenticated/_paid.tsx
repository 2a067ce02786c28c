import { createFileRoute } from '@tanstack/react-router'
import { PaidLayout } from '../../features/auth/components/guarded-layouts'
import { requirePayment } from '../../features/auth/guards'

/** The screens that also need a completed payment (spec 1 §2, §6); without one, /payment. */
export const Route = createFileRoute('/_authenticated/_paid')({
  beforeLoad: requirePayment,
  component: PaidLayout,
})
