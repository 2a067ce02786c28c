/**
 * The plans of /payment and what choosing one does:
 * - testing mode (no Stripe keys on the server): the toast 'Testing Mode Active', the plan recorded
 *   on the server as a testing activation, hasCompletedPayment set, and /opt-in after 1 s;
 * - Stripe mode: the 'Complete Your Subscription' dialog with Stripe's embedded checkout.
 * Also handles the return from Stripe (`/payment?session_id=…`) for payment methods that redirect.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query'
import { Link, useNavigate, useSearch } from '@tanstack/react-router'
import { CheckCircle2Icon, FlaskConicalIcon } from 'lucide-react'
import { lazy, Suspense, useCallback, useEffect, useRef, useState } from 'react'
import type { SessionUser } from '#common/auth'
import { TRIAL_DAYS, type Plan, type PlanId } from '#common/plans'
import { Button } from '#web/components/ui/button'
import { useDocumentTitle } from '#web/components/use-document-title'
import { isApiError } from '#web/lib/api-client'
import { toast } from '#web/lib/toast'
import { authKeys, meQueryOptions } from '#web/features/auth/api'
import { PendingLabel } from '#web/features/auth/components/pending-label'
import { plansQueryOptions } from '#web/features/plans/api'
import { PlanList } from '#web/features/plans/components/plan-list'
import { subscriptionQueryOptions } from './api'
import { activateTestingPlan, fetchCheckoutStatus } from './api.requests'
import { billingDate, useCustomerPortal } from './use-customer-portal'
import { runSubscriptionCheck } from './subscription-check'

/** Spec 1 §9: after choosing a plan, /opt-in follows 1 s later. */
const REDIRECT_DELAY_MS = 1000

// Stripe.js and the dialog load only in Stripe mode, when a plan is chosen.
const CheckoutDialog = lazy(() => import('./checkout-dialog').then((module) => ({ default: module.CheckoutDialog })))

const paymentError = (description: string) => void toast({ title: 'Payment Error', description, variant: 'destructive' })

/** The plans of /payment; `session_id` in the address is Stripe's return from a redirecting checkout. */
export function PlanSelection() {
  useDocumentTitle('Choose your plan')
  const queryClient = useQueryClient()
  const navigate = useNavigate()
  const returnedSessionId = useSearch({ from: '/_authenticated/payment', select: (search) => search.session_id })
  const plans = useQuery(plansQueryOptions())
  const user = useQuery(meQueryOptions()).data
  // Also before any payment: whether a plan chosen now starts with the free trial.
  const subscription = useQuery({ ...subscriptionQueryOptions(), enabled: Boolean(user) }).data
  const [activating, setActivating] = useState<PlanId | null>(null)
  const [checkoutPlan, setCheckoutPlan] = useState<Plan | null>(null)
  const portal = useCustomerPortal()
  const redirectTimer = useRef<number | undefined>(undefined)
  useEffect(() => () => window.clearTimeout(redirectTimer.current), [])

  const markPaid = useCallback(
    (plan: PlanId, end: string | null) => {
      queryClient.setQueryData<SessionUser | null>(authKeys.me, (current) =>
        current ? { ...current, hasCompletedPayment: true, hasSubscription: true, subscriptionTier: plan, subscriptionEnd: end ?? current.subscriptionEnd } : current,
      )
    },
    [queryClient],
  )

  const goToOptIn = useCallback(() => {
    window.clearTimeout(redirectTimer.current)
    redirectTimer.current = window.setTimeout(() => void navigate({ to: '/opt-in' }), REDIRECT_DELAY_MS)
  }, [navigate])

  const subscribed = useCallback(
    (plan: Plan) => {
      setCheckoutPlan(null)
      markPaid(plan.id, null)
      void runSubscriptionCheck(queryClient, { force: true })
      void toast({ title: 'Payment Successful', description: `Your ${plan.name} plan is active. Welcome aboard!` })
      goToOptIn()
    },
    [goToOptIn, markPaid, queryClient],
  )

  // Back from Stripe (redirect-based payment methods): the server re-reads the session.
  const handledReturn = useRef<string | null>(null)
  useEffect(() => {
    if (!returnedSessionId || handledReturn.current === returnedSessionId || !plans.data) return
    handledReturn.current = returnedSessionId
    void (async () => {
      try {
        const status = await fetchCheckoutStatus(returnedSessionId)
        const plan = plans.data.plans.find((candidate) => candidate.id === status.subscription_tier)
        if (status.status === 'complete' && status.subscribed && plan) subscribed(plan)
        else if (status.status === 'complete') {
          void toast({ title: 'Payment received', description: 'Your plan will be active in a moment.' })
        } else paymentError('Your payment was not completed. Please choose a plan to try again.')
      } catch (error) {
        paymentError(error instanceof Error ? error.message : 'Failed to initialize payment')
      } finally {
        void navigate({ to: '/payment', search: {}, replace: true })
      }
    })()
  }, [navigate, plans.data, returnedSessionId, subscribed])

  async function activateForTesting(plan: Plan) {
    setActivating(plan.id)
    try {
      const result = await activateTestingPlan(plan.id)
      void toast({ title: 'Testing Mode Active', description: 'Subscription activated without payment for testing' })
      markPaid(result.subscription_tier, result.subscription_end)
      void runSubscriptionCheck(queryClient, { force: true })
      goToOptIn()
    } catch (error) {
      if (isApiError(error) && error.status === 401) {
        queryClient.setQueryData(authKeys.me, null)
        void toast({ title: 'Authentication required', description: 'Please log in to subscribe', variant: 'destructive' })
      } else paymentError(error instanceof Error ? error.message : 'Failed to initialize payment')
      setActivating(null)
    }
  }

  function choose(plan: Plan) {
    if (!user) {
      void toast({ title: 'Authentication required', description: 'Please log in to subscribe', variant: 'destructive' })
      return
    }
    if (plans.data?.paymentMode === 'stripe') setCheckoutPlan(plan)
    else void activateForTesting(plan)
  }

  const mode = plans.data?.paymentMode
  const currentTier = user?.hasCompletedPayment ? (plans.data?.plans.find((plan) => plan.id === user.subscriptionTier)?.name ?? null) : null

  return (
    <div className="mx-auto max-w-6xl">
      <div className="mx-auto max-w-2xl text-center">
        <h1 className="text-3xl font-bold tracking-tight sm:text-4xl">Choose your plan</h1>
        <p className="mt-3 text-lg text-muted-foreground">
          Every plan is billed monthly and includes your daily coaching calls.{' '}
          {subscription?.trial_available === false
            ? 'You have had your free trial, so the plan you choose starts today.'
            : `New members start with a ${TRIAL_DAYS}-day free trial.`}
        </p>
        {mode === 'testing' ? (
          <p className="mt-6 flex items-start gap-3 rounded-lg border border-brand-coach/40 bg-card px-4 py-3 text-left text-sm">
            <FlaskConicalIcon className="mt-0.5 size-4 shrink-0 text-brand-coach" aria-hidden="true" />
            <span>
              <strong>Testing mode.</strong> Payments are not set up on this server: choosing a plan activates it right away, without
              payment.
            </span>
          </p>
        ) : null}
        {user?.hasCompletedPayment ? (
          <div className="mt-6 flex flex-col items-center gap-3 rounded-lg border bg-card px-4 py-4 text-sm sm:flex-row sm:text-left">
            <CheckCircle2Icon className="size-5 shrink-0 text-success" aria-hidden="true" />
            <p className="flex-1">
              {currentTier && subscription?.status === 'trialing' && subscription.trial_end ? (
                <>
                  Your free trial of the <strong>{currentTier}</strong> plan runs until {billingDate.format(new Date(subscription.trial_end))}.
                </>
              ) : currentTier ? (
                <>
                  Your <strong>{currentTier}</strong> plan is active.
                </>
              ) : (
                'Your payment is complete.'
              )}
            </p>
            <div className="flex gap-2">
              {mode === 'stripe' && user.hasSubscription ? (
                <Button variant="outline" size="sm" onClick={() => void portal.open()} disabled={portal.opening}>
                  <PendingLabel pending={portal.opening} idle="Manage billing" busy="Opening..." />
                </Button>
              ) : null}
              <Button asChild size="sm">
                <Link to="/dashboard">Go to dashboard</Link>
              </Button>
            </div>
          </div>
        ) : null}
      </div>

      <PlanList
        className="mt-12"
        headingLevel="h2"
        action={(plan) => (
          <Button
            size="lg"
            variant={plan.mostPopular ? 'default' : 'outline'}
            disabled={activating !== null}
            aria-label={`Choose ${plan.name}, ${plan.priceMonthly} dollars per month`}
            onClick={() => choose(plan)}
          >
            <PendingLabel pending={activating === plan.id} idle={`Choose ${plan.name}`} busy="Activating..." />
          </Button>
        )}
      />

      {mode === 'stripe' ? (
        <Suspense fallback={null}>
          <CheckoutDialog plan={checkoutPlan} onClose={() => setCheckoutPlan(null)} onSubscribed={subscribed} />
        </Suspense>
      ) : null}
    </div>
  )
}
