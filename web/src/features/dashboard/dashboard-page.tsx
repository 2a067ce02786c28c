import { useQuery, type UseQueryResult } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { AlertTriangleIcon, PencilIcon, RotateCwIcon } from 'lucide-react'
import { useEffect, useRef } from 'react'
import { focusAreas, lifeAreaCount, overallScore, partnerBadge, type DashboardStatsResponse } from '#common/dashboard'
import { PageShell } from '#web/features/navigation/page-shell'
import { Badge } from '#web/components/ui/badge'
import { Button } from '#web/components/ui/button'
import { Card, CardContent } from '#web/components/ui/card'
import { Spinner } from '#web/components/ui/spinner'
import { useDocumentTitle } from '#web/components/use-document-title'
import { toast, type ToastInput } from '#web/lib/toast'
import { meQueryOptions, type SessionUser } from '#web/features/auth/api'
import { subscriptionQueryOptions } from '#web/features/billing/api'
import { PaymentGraceNotice } from '#web/features/billing/grace-notice'
import { TrialNotice } from '#web/features/billing/trial-notice'
import { nextCallQueryOptions } from '#web/features/calls/api'
import { NextCallCard } from '#web/features/calls/next-call-card'
import { CoachCard } from '#web/features/coach/coach-card'
import { TemplateOfferBanner } from '#web/features/goal-templates/offer-banner'
import { dashboardGoalsQueryOptions, dashboardStatsQueryOptions, recentCallsQueryOptions } from './api'
import { CommitmentsCard } from './components/commitments-card'
import { CallsPanel, FocusPanel, LifeAreasPanel } from './components/panels'
import { StatCard } from './components/stat-card'
import { LiveCallCard } from './live-call/live-call-card'
import { useLiveCall } from './live-call/use-live-call'

const GOALS_ERROR_TOAST: ToastInput = {
  title: 'Goals Loading Error',
  description: 'Unable to load your goals. You can retry or continue with limited data.',
  variant: 'destructive',
}
const CALLS_ERROR_TOAST: ToastInput = {
  title: 'Calls Loading Error',
  description: 'Unable to load your coaching calls. You can retry or continue with available data.',
  variant: 'destructive',
}

/** Spec 2 §2: the dashboard's header has 'Logout' (the shared navigation's Log Out, with this text here). */
const DASHBOARD_LOGOUT = 'Logout'

/** A load that ended in error and is not being tried again right now. */
const failed = (query: UseQueryResult<unknown, unknown>) => query.isError && !query.isFetching

/** Shows the spec's toast once each time a load ends in error (after its retries). */
function useErrorToast(query: UseQueryResult<unknown, unknown>, input: ToastInput) {
  const shown = useRef(0)
  useEffect(() => {
    if (query.isError && query.errorUpdateCount > shown.current) {
      shown.current = query.errorUpdateCount
      void toast(input)
    }
  }, [query.isError, query.errorUpdateCount, input])
}

/** The progress dashboard (/dashboard and /home). */
export function DashboardPage() {
  useDocumentTitle('Dashboard')
  const me = useQuery(meQueryOptions())
  const goals = useQuery(dashboardGoalsQueryOptions())
  const calls = useQuery(recentCallsQueryOptions())
  const stats = useQuery(dashboardStatsQueryOptions())
  // The person's phone calls, live, over the voice gateway's socket: only here, and only where
  // calls are set up (the next-call answer says when they are not).
  const next = useQuery(nextCallQueryOptions())
  const live = useLiveCall(next.isSuccess && next.data.reason !== 'not_configured')

  useErrorToast(goals, GOALS_ERROR_TOAST)
  useErrorToast(calls, CALLS_ERROR_TOAST)

  const user = me.data
  if (!user || (goals.isPending && calls.isPending)) {
    return (
      // The page below the navigation, filled by the spinner until the first data arrives.
      <PageShell logoutLabel={DASHBOARD_LOGOUT} mainClassName="flex items-center justify-center px-4 py-16">
        <div aria-busy="true">
          <Spinner size="lg" label="Loading your dashboard..." showLabel className="flex-col text-lg" />
        </div>
      </PageShell>
    )
  }

  const goalsFailed = failed(goals)
  const callsFailed = failed(calls)
  const statsFailed = failed(stats)
  const anyFailed = goalsFailed || callsFailed || statsFailed
  // Retry reloads only the parts that failed.
  const retryFailed = () => {
    if (goalsFailed) void goals.refetch()
    if (callsFailed) void calls.refetch()
    if (statsFailed) void stats.refetch()
  }

  return (
    <PageShell logoutLabel={DASHBOARD_LOGOUT} mainClassName="px-4 py-8 sm:px-6 sm:py-10">
      <div className="mx-auto max-w-6xl space-y-8">
        <DashboardHeader user={user} stats={stats.data} statsFailed={stats.isError} anyFailed={anyFailed} onRetry={retryFailed} />

        {/* A past-due subscription inside its grace period: access continues, and the dashboard says so. */}
        <PaymentGraceNotice />
        {/* The free trial: when it ends, and (in Stripe mode) the billing portal. */}
        <TrialNotice />

        {anyFailed ? (
          <Card role="alert" className="border-amber-300 bg-amber-50 py-4">
            <CardContent className="flex flex-wrap items-center justify-between gap-4">
              <div className="flex items-start gap-3">
                <AlertTriangleIcon className="mt-0.5 size-5 shrink-0 text-amber-700" aria-hidden="true" />
                <div>
                  <h2 className="font-semibold text-amber-950">Some data couldn't be loaded</h2>
                  <p className="text-sm text-amber-900">You can retry now or continue with the data that loaded.</p>
                </div>
              </div>
              <Button variant="outline" onClick={retryFailed}>
                <RotateCwIcon aria-hidden="true" />
                Retry
              </Button>
            </CardContent>
          </Card>
        ) : null}

        <section aria-label="Your numbers" className="grid grid-cols-2 gap-4 lg:grid-cols-4">
          <StatCard
            title="Overall Score"
            state={goalsFailed ? 'failed' : goals.isSuccess ? 'ready' : 'loading'}
            value={goals.data ? overallScore(goals.data) : 0}
            suffix="/10"
          />
          <StatCard
            title="Days Active"
            state={statsFailed ? 'failed' : stats.isSuccess ? 'ready' : 'loading'}
            value={stats.data?.daysActive ?? 0}
          />
          {/* Every completed call, not only the five listed below; a dash while the calls cannot be loaded. */}
          <StatCard
            title="Calls Completed"
            state={statsFailed || callsFailed ? 'failed' : stats.isSuccess ? 'ready' : 'loading'}
            value={stats.data?.callsCompleted ?? 0}
          />
          <StatCard title="Life Areas" state={goalsFailed ? 'failed' : goals.isSuccess ? 'ready' : 'loading'} value={goals.data ? lifeAreaCount(goals.data) : 0} />
        </section>

        <LiveCallCard live={live} />

        <NextCallCard />

        {user.subscriptionTier === 'elite' ? <CoachCard /> : null}
        {user.subscriptionTier === 'elite' ? <TemplateOfferBanner /> : null}

        <CommitmentsCard timeZone={stats.data?.timezone} />

        <div className="grid gap-6 lg:grid-cols-2">
          <LifeAreasPanel goals={goals.data} failed={goalsFailed} onRetry={() => void goals.refetch()} />
          <FocusPanel areas={goals.data ? focusAreas(goals.data) : undefined} failed={goalsFailed} onRetry={() => void goals.refetch()} />
        </div>

        <CallsPanel
          calls={calls.data}
          timeZone={stats.data?.timezone}
          failed={callsFailed}
          onRetry={() => void calls.refetch()}
        />
      </div>
    </PageShell>
  )
}

function DashboardHeader({
  user,
  stats,
  statsFailed,
  anyFailed,
  onRetry,
}: {
  user: SessionUser
  stats: DashboardStatsResponse | undefined
  statsFailed: boolean
  anyFailed: boolean
  onRetry: () => void
}) {
  const subscription = useQuery(subscriptionQueryOptions())
  // 'Trial' while the free trial runs, 'Subscribed' for a subscription past it (spec 2 §4); shown once
  // check-subscription has answered (from the session alone if it fails), so it never flips.
  const onTrial = subscription.data ? subscription.data.status === 'trialing' : subscription.isError ? !user.hasSubscription : null
  const plan = onTrial === null ? null : onTrial || !user.hasSubscription ? 'Trial' : 'Subscribed'
  // The badge names the partner company once the server has said which it is.
  const badge = stats
    ? partnerBadge(stats.partnerProgram, stats.partnerCompanyName)
    : statsFailed
      ? partnerBadge(user.partnerProgram, null)
      : null
  return (
    <header className="flex flex-wrap items-start justify-between gap-4">
      <div className="space-y-2">
        <h1 className="text-3xl font-bold tracking-tight">Coaching Dashboard</h1>
        <div className="flex flex-wrap items-center gap-2" aria-label="Your membership">
          {badge ? (
            <Badge variant={badge.variant} aria-label={`Program: ${badge.label}`} data-testid="partner-badge">
              {badge.label}
            </Badge>
          ) : null}
          {plan ? (
            <Badge variant={plan === 'Subscribed' ? 'default' : 'secondary'} data-testid="subscription-badge">
              {plan}
            </Badge>
          ) : null}
        </div>
        <p className="text-lg text-muted-foreground">Welcome back, {user.fullName || user.email}!</p>
      </div>
      <div className="flex flex-wrap items-center gap-2">
        {anyFailed ? (
          <Button variant="outline" onClick={onRetry}>
            <RotateCwIcon aria-hidden="true" />
            Retry Failed
          </Button>
        ) : null}
        <Button asChild>
          <Link to="/goal-intake">
            <PencilIcon aria-hidden="true" />
            Edit Goals
          </Link>
        </Button>
      </div>
    </header>
  )
}
