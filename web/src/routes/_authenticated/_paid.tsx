import { createFileRoute } from '@tanstack/react-router'
import { PaidLayout } from '../../features/auth/components/guarded-layouts'
import { requirePayment } from '../../features/auth/guards'

/** The screens that also need a completed payment; without one, /payment. */
export const Route = createFileRoute('/_authenticated/_paid')({
  beforeLoad: requirePayment,
  component: PaidLayout,
})
