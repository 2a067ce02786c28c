/**
 * The account page's billing (issue 16): the plan, when its free trial ends, when it renews or (cancelled) ends, the
 * Stripe customer portal (Stripe mode), and in payment testing mode a plain statement that no
 * payment is being taken. Someone who has not chosen a plan is shown the way to the plans.
 */
import { useQuery } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { FlaskConicalIcon } from 'lucide-react'
import { PLANS } from '#common/plan-catalogue'
import { SectionCard } from '#web/components/section-card'
import { Button } from '#web/components/ui/button'
import { Spinner } from '#web/components/ui/spinner'
import { PendingLabel } from '#web/features/auth/components/pending-label'
import { subscriptionQueryOptions } from '#web/features/billing/api'
import { billingDate, useCustomerPortal } from '#web/features/billing/use-customer-portal'
import { formatPrice } from '#web/features/plans/format'

const date = (iso: string) => billingDate.format(new Date(iso))

export function BillingSection() {
  const subscription = useQuery(subscriptionQueryOptions())
  const portal = useCustomerPortal()
  const data = subscription.data
  const plan = PLANS.find((candidate) => candidate.id === data?.subscription_tier)
  const stripe = data?.payment_mode === 'stripe'

  return (
    <SectionCard title="Billing" description="Your plan and payments.">
      {subscription.isError ? (
        <p role="alert" className="text-sm font-medium text-destructive">
          Unable to load your plan. Please reload the page.
        </p>
      ) : !data ? (
        <Spinner label="Loading your plan..." showLabel />
      ) : (
        <div className="space-y-4" data-testid="billing-summary">
          {data.paid ? (
            <dl className="grid gap-3 sm:grid-cols-2">
              <div>
                <dt className="text-sm text-muted-foreground">Plan</dt>
                <dd className="font-medium">{plan ? `${plan.name}, ${formatPrice(plan.priceMonthly)} a month` : 'Active'}</dd>
              </div>
              {data.status === 'trialing' && data.trial_end ? (
                <div>
                  <dt className="text-sm text-muted-foreground">Free trial</dt>
                  <dd className="font-medium">Until {date(data.trial_end)}</dd>
                </div>
              ) : data.in_grace_period && data.grace_period_end ? (
                <div>
                  <dt className="text-sm text-muted-foreground">Last payment</dt>
                  <dd className="font-medium">Failed; your plan continues until {date(data.grace_period_end)} while we retry it</dd>
                </div>
              ) : data.subscription_end && !data.cancel_at ? (
                <div>
                  <dt className="text-sm text-muted-foreground">{data.status === 'active' ? 'Renews on' : 'Current period ends'}</dt>
                  <dd className="font-medium">{date(data.subscription_end)}</dd>
                </div>
              ) : null}
              {data.cancel_at ? (
                <div>
                  <dt className="text-sm text-muted-foreground">Cancelled</dt>
                  <dd className="font-medium">Your plan ends on {date(data.cancel_at)}; no further payment will be taken</dd>
                </div>
              ) : null}
            </dl>
          ) : (
            <div className="flex flex-col items-start gap-3">
              <p>You have not chosen a plan yet. Your daily coaching calls, texts, call schedule and weekly reports start with one.</p>
              <Button asChild>
                <Link to="/payment">Choose a plan</Link>
              </Button>
            </div>
          )}
          {stripe && data.source === 'stripe' ? (
            <div className="flex flex-col items-start gap-2">
              <p className="text-sm text-muted-foreground">Change your plan or card, see your invoices, or cancel in the billing portal.</p>
              <Button variant="outline" onClick={() => void portal.open()} disabled={portal.opening}>
                <PendingLabel pending={portal.opening} idle="Manage billing" busy="Opening..." />
              </Button>
            </div>
          ) : null}
          {data.payment_mode === 'testing' ? (
            <p className="flex items-start gap-2 rounded-lg border border-amber-300 bg-amber-50 p-3 text-sm text-amber-950" data-testid="billing-testing-mode">
              <FlaskConicalIcon className="mt-0.5 size-4 shrink-0" aria-hidden="true" />
              <span>
                <strong>Payments are not being taken.</strong> This server runs in payment testing mode: plans are activated without payment, and
                nothing is charged.
              </span>
            </p>
          ) : null}
        </div>
      )}
    </SectionCard>
  )
}
