import { useQuery } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { RefreshCwIcon } from 'lucide-react'
import { lazy, Suspense, type ReactNode } from 'react'
import { Button } from '#web/components/ui/button'
import { Card, CardContent } from '#web/components/ui/card'
import { Spinner } from '#web/components/ui/spinner'
import { useDocumentTitle } from '#web/components/use-document-title'
import { isApiError } from '#web/lib/api-client'
import { PageShell } from '#web/features/navigation/page-shell'
import { progressQueryOptions } from './api'

/** The charts and their library (recharts) load only when there is something to draw. */
const ProgressCharts = lazy(() => import('./progress-charts'))

function Loading({ label }: { label: string }) {
  return (
    <div className="flex justify-center py-16">
      <Spinner size="lg" label={label} showLabel />
    </div>
  )
}

/**
 * /progress: Premium and Elite's detailed analytics, the last twelve weeks as four charts (calls
 * per week, mood over time, life area coverage, commitments kept), each with its figures as a
 * table. A Basic member is told, in plain words, that it comes with the higher plans.
 */
export function ProgressPage() {
  useDocumentTitle('Your Progress')
  const query = useQuery(progressQueryOptions())

  let body: ReactNode
  if (query.isPending) {
    body = <Loading label="Loading your progress..." />
  } else if (isApiError(query.error) && query.error.code === 'PLAN_UPGRADE_REQUIRED') {
    body = (
      <Card data-testid="progress-upgrade">
        <CardContent className="space-y-4 py-6">
          <h2 className="text-xl font-semibold">Detailed analytics come with Premium and Elite</h2>
          <p className="text-muted-foreground">
            Your plan includes your weekly progress reports. Upgrade to Premium or Elite to see charts of your calls, mood, life areas and commitments over the last twelve weeks.
          </p>
          <div className="flex flex-wrap gap-3">
            <Button asChild>
              <Link to="/payment">Compare Plans</Link>
            </Button>
            <Button asChild variant="outline">
              <Link to="/reports">Weekly Reports</Link>
            </Button>
          </div>
        </CardContent>
      </Card>
    )
  } else if (query.isError) {
    body = (
      <div role="alert" className="flex flex-col items-start gap-3 py-8">
        <p className="font-medium text-destructive">Unable to load your progress</p>
        <p className="text-muted-foreground">{query.error instanceof Error ? query.error.message : 'Please try again.'}</p>
        <Button variant="outline" onClick={() => void query.refetch()} disabled={query.isFetching}>
          <RefreshCwIcon aria-hidden="true" />
          Try Again
        </Button>
      </div>
    )
  } else {
    body = (
      <Suspense fallback={<Loading label="Drawing your charts..." />}>
        <ProgressCharts progress={query.data} />
      </Suspense>
    )
  }

  return (
    <PageShell mainClassName="px-4 py-8 sm:px-6 sm:py-10">
      <div className="mx-auto max-w-5xl space-y-6">
        <header className="space-y-2">
          <h1 className="text-3xl font-bold tracking-tight">Your Progress</h1>
          <p className="text-lg text-muted-foreground">Your last twelve weeks, each from Sunday 6:00 PM to Sunday 6:00 PM, your time.</p>
        </header>
        {body}
      </div>
    </PageShell>
  )
}
