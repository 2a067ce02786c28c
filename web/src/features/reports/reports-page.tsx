import { useQuery } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { ArrowLeftIcon, CalendarRangeIcon, RefreshCwIcon } from 'lucide-react'
import { weekLabel } from '#common/reports'
import { Button } from '#web/components/ui/button'
import { Card, CardContent } from '#web/components/ui/card'
import { Spinner } from '#web/components/ui/spinner'
import { useDocumentTitle } from '#web/components/use-document-title'
import { PageShell } from '#web/features/navigation/page-shell'
import { reportsQueryOptions } from './api'

const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`

/** /reports: every weekly report the person has had, newest first, each opening its week. */
export function ReportsPage() {
  useDocumentTitle('Weekly Reports')
  const query = useQuery(reportsQueryOptions())

  let body: React.ReactNode
  if (query.isPending) {
    body = (
      <div className="flex justify-center py-16">
        <Spinner size="lg" label="Loading your weekly reports..." showLabel />
      </div>
    )
  } else if (query.isError) {
    body = (
      <div role="alert" className="flex flex-col items-start gap-3 py-8">
        <p className="font-medium text-destructive">Unable to load your weekly reports</p>
        <Button variant="outline" onClick={() => void query.refetch()} disabled={query.isFetching}>
          <RefreshCwIcon aria-hidden="true" />
          Try Again
        </Button>
      </div>
    )
  } else if (query.data.reports.length === 0) {
    body = (
      <Card>
        <CardContent className="py-6">
          <p className="text-muted-foreground">No reports yet. Your first weekly report arrives on Sunday at 6:00 PM, your time.</p>
        </CardContent>
      </Card>
    )
  } else {
    body = (
      <ol className="space-y-3" aria-label="Your weekly reports">
        {query.data.reports.map((report) => (
          <li key={report.weekEnding}>
            <Card className="py-4" data-testid="report-row">
              <CardContent className="flex flex-wrap items-center justify-between gap-3">
                <div className="space-y-1">
                  <p className="font-semibold">
                    <Link
                      to="/reports/$week"
                      params={{ week: report.weekEnding }}
                      className="rounded-sm text-primary underline-offset-4 hover:underline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring"
                    >
                      {weekLabel(report.weekEnding)}
                    </Link>
                  </p>
                  <p className="text-sm text-muted-foreground">
                    {plural(report.callsCompleted, 'call')} completed · {plural(report.minutesTalked, 'minute')} talked · {plural(report.commitmentsKept, 'commitment')} kept
                    {report.callsMissed > 0 ? ` · ${plural(report.callsMissed, 'call')} missed` : ''}
                  </p>
                </div>
                <CalendarRangeIcon className="size-5 text-muted-foreground" aria-hidden="true" />
              </CardContent>
            </Card>
          </li>
        ))}
      </ol>
    )
  }

  return (
    <PageShell mainClassName="px-4 py-8 sm:px-6 sm:py-10">
      <div className="mx-auto max-w-3xl space-y-6">
        <Button asChild variant="ghost" className="-ml-3">
          <Link to="/dashboard">
            <ArrowLeftIcon aria-hidden="true" />
            Back to Dashboard
          </Link>
        </Button>
        <header className="space-y-2">
          <h1 className="text-3xl font-bold tracking-tight">Weekly Reports</h1>
          <p className="text-lg text-muted-foreground">Every Sunday at 6:00 PM your coach sums up your week: your calls, your commitments, your mood and your life areas.</p>
        </header>
        {body}
      </div>
    </PageShell>
  )
}
