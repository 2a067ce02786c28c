/**
 * The past-due notice (billing issue): while a Stripe subscription is past due and inside its
 * 7-day grace period, access continues and this says until when, with a way to fix the card.
 * Renders nothing otherwise. For the dashboard: `<PaymentGraceNotice />`.
 */
import { useQuery } from '@tanstack/react-query'
import { AlertTriangleIcon } from 'lucide-react'
import { Button } from '#web/components/ui/button'
import { PendingLabel } from '#web/features/auth/components/pending-label'
import { subscriptionQueryOptions } from './api'
import { billingDate, useCustomerPortal } from './use-customer-portal'

export function PaymentGraceNotice() {
  const subscription = useQuery(subscriptionQueryOptions())
  const portal = useCustomerPortal()
  const data = subscription.data
  if (!data?.in_grace_period || !data.grace_period_end) return null

  return (
    <div role="status" className="flex flex-col gap-3 rounded-lg border border-destructive/40 bg-destructive/5 p-4 sm:flex-row sm:items-center">
      <AlertTriangleIcon className="size-5 shrink-0 text-destructive" aria-hidden="true" />
      <p className="flex-1 text-sm">
        <strong>Your last payment didn't go through.</strong> Your coaching continues until{' '}
        {billingDate.format(new Date(data.grace_period_end))} while we retry it. Update your payment method to keep it going.
      </p>
      <Button size="sm" variant="outline" onClick={() => void portal.open()} disabled={portal.opening}>
        <PendingLabel pending={portal.opening} idle="Update payment method" busy="Opening..." />
      </Button>
    </div>
  )
}
