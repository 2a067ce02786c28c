import { createFileRoute } from '@tanstack/react-router'
import { PaymentPage } from '#web/features/payment/payment-page'

/** `session_id`: Stripe's return after a checkout that needed a redirect (plain TS: route options load with the entry). */
export type PaymentSearch = { session_id?: string }

export const Route = createFileRoute('/_authenticated/payment')({
  validateSearch: (search: Record<string, unknown>): PaymentSearch =>
    typeof search.session_id === 'string' && /^cs_[A-Za-z0-9_]{1,200}$/.test(search.session_id) ? { session_id: search.session_id } : {},
  component: PaymentPage,
})
