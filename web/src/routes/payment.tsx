import { createFileRoute } from '@tanstack/react-router'
import { PaymentPage } from '../features/payment/payment-page'

export const Route = createFileRoute('/payment')({
  component: PaymentPage,
})
