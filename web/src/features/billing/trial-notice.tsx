/**
 * The free trial on the dashboard: while the subscription is `trialing`, when the trial ends and
 * what happens then, with the billing portal in Stripe mode (to change the plan or cancel before
 * the first charge). Renders nothing otherwise. For the dashboard: `<TrialNotice />`.
 */
import { useQuery } from '@tanstack/react-query'
import { SparklesIcon } from 'lucide-react'
import { Button } from '#web/components/ui/button'
import { PendingLabel } from '#web/features/auth/components/pending-label'
import { subscriptionQueryOptions } from './api'
import { billingDate, useCustomerPortal } from './use-customer-portal'

export function TrialNotice() {
  const subscription = useQuery(subscriptionQueryOptions())
  const portal = useCustomerPortal()
  const data = subscription.data
  if (data?.status !== 'trialing' || !data.trial_end) return null
  const stripe = data.source === 'stripe' && data.payment_mode === 'stripe'

  return (
    <div role="status" className="flex flex-col gap-3 rounded-lg border border-primary/30 bg-primary/5 p-4 sm:flex-row sm:items-center">
      <SparklesIcon className="size-5 shrink-0 text-primary" aria-hidden="true" />
      <p className="flex-1 text-sm">
        <strong>Your free trial ends on {billingDate.format(new Date(data.trial_end))}.</strong>{' '}
        {stripe
          ? 'After that, your plan continues on the card you gave at checkout. You can change or cancel it before then.'
          : 'After that, your plan simply continues: payments are in testing mode on this server.'}
      </p>
      {stripe ? (
        <Button size="sm" variant="outline" onClick={() => void portal.open()} disabled={portal.opening}>
          <PendingLabel pending={portal.opening} idle="Manage billing" busy="Opening..." />
        </Button>
      ) : null}
    </div>
  )
}
