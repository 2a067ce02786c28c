import { useQuery } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { ArrowLeftIcon, ArrowDownRightIcon, ArrowRightIcon, ArrowUpRightIcon, RefreshCwIcon } from 'lucide-react'
import { type ReactNode } from 'react'
import { SATISFACTION_MAX } from '#common/domain'
import { moodText, scoreChangeText, weekLabel, type WeeklyReportView } from '#common/reports'
import { Button } from '#web/components/ui/button'
import { SectionCard } from '#web/components/section-card'
import { Spinner } from '#web/components/ui/spinner'
import { useDocumentTitle } from '#web/components/use-document-title'
import { isApiError } from '#web/lib/api-client'
import { PageShell } from '#web/features/navigation/page-shell'
import { areaTitle, zoneLabel } from '#web/features/calls/format'
import { reportQueryOptions } from './api'

/** /reports/$week: one week's report, as the email sent it, with its charts. */
export function ReportPage({ week }: { week: string }) {
  const query = useQuery(reportQueryOptions(week))
  const missing = isApiError(query.error) && (query.error.status === 404 || query.error.status === 400)

  if (query.isPending) {
    return (
      <ReportShell title="Loading report">
        <div className="flex justify-center py-24">
          <Spinner size="lg" label="Loading your report..." showLabel />
        </div>
      </ReportShell>
    )
  }
  if (query.isError) {
    return (
      <ReportShell title={missing ? 'Report Not Found' : 'Weekly Report'}>
        <div role={missing ? undefined : 'alert'} className="mx-auto flex max-w-md flex-col items-center gap-4 py-16 text-center">
          <h1 className="text-2xl font-bold tracking-tight">{missing ? 'Report Not Found' : 'Unable to load this report'}</h1>
          <p className="text-muted-foreground">{missing ? 'There is no weekly report of yours for this week.' : query.error instanceof Error ? query.error.message : 'Please try again.'}</p>
          <div className="flex gap-3">
            {missing ? null : (
              <Button onClick={() => void query.refetch()} disabled={query.isFetching}>
                <RefreshCwIcon aria-hidden="true" />
                Try Again
              </Button>
            )}
            <AllReports variant="outline" />
          </div>
        </div>
      </ReportShell>
    )
  }
  return <ReportLoaded report={query.data} />
}

function ReportShell({ title, children }: { title: string; children: ReactNode }) {
  useDocumentTitle(title)
  return (
    <PageShell mainClassName="px-4 py-8 sm:px-6 sm:py-10">
      <div className="mx-auto max-w-5xl">{children}</div>
    </PageShell>
  )
}

function AllReports({ variant = 'ghost' }: { variant?: 'ghost' | 'outline' }) {
  return (
    <Button asChild variant={variant} className={variant === 'ghost' ? '-ml-3' : undefined}>
      <Link to="/reports">
        <ArrowLeftIcon aria-hidden="true" />
        All Weekly Reports
      </Link>
    </Button>
  )
}

function Figure({ term, value, detail }: { term: string; value: string; detail?: string }) {
  return (
    <div className="rounded-lg border bg-card p-4" data-testid={`figure-${term.toLowerCase().replace(/\s+/g, '-')}`}>
      <dt className="text-sm font-medium text-muted-foreground">{term}</dt>
      <dd className="mt-1 text-3xl font-bold tracking-tight">{value}</dd>
      {detail ? <dd className="mt-1 text-sm text-muted-foreground">{detail}</dd> : null}
    </div>
  )
}

const weekday = (localDate: string) => new Date(`${localDate}T12:00:00Z`).toLocaleDateString('en-US', { weekday: 'short', month: 'short', day: 'numeric', timeZone: 'UTC' })

/** The mood of each call this week as bars (1–10); each bar's value is in its text, for every reader. */
function MoodChart({ points }: { points: WeeklyReportView['content']['mood']['points'] }) {
  if (points.length === 0) return <p className="text-muted-foreground">No call this week recorded a mood.</p>
  return (
    <figure className="space-y-2">
      <ol className="flex h-48 items-end gap-3 border-b border-l px-2 pb-0" aria-label="Mood by call, out of 10">
        {points.map((point) => (
          <li key={point.at} className="flex h-full flex-1 flex-col items-center justify-end gap-1" data-testid="mood-bar">
            <span className="text-sm font-semibold">{point.mood}</span>
            <span className="w-full max-w-12 rounded-t-md bg-primary" style={{ height: `${(point.mood / 10) * 80}%` }} aria-hidden="true" />
            <span className="sr-only">
              {weekday(point.localDate)}: mood {point.mood} out of 10
            </span>
          </li>
        ))}
      </ol>
      <div className="flex gap-3 px-2" aria-hidden="true">
        {points.map((point) => (
          <span key={point.at} className="flex-1 text-center text-xs text-muted-foreground">
            {weekday(point.localDate)}
          </span>
        ))}
      </div>
      <figcaption className="text-sm text-muted-foreground">Your mood in each call, from 1 to 10.</figcaption>
    </figure>
  )
}

const TrendIcon = ({ trend }: { trend: WeeklyReportView['content']['mood']['trend'] }) =>
  trend === 'up' ? (
    <ArrowUpRightIcon className="size-5 text-emerald-700" aria-hidden="true" />
  ) : trend === 'down' ? (
    <ArrowDownRightIcon className="size-5 text-amber-700" aria-hidden="true" />
  ) : trend === 'steady' ? (
    <ArrowRightIcon className="size-5 text-muted-foreground" aria-hidden="true" />
  ) : null

function ReportLoaded({ report }: { report: WeeklyReportView }) {
  const label = weekLabel(report.weekEnding)
  useDocumentTitle(`Weekly Report, ${label}`)
  const { content } = report
  const mostDiscussed = Math.max(1, ...content.areasDiscussed.map((item) => item.calls))

  return (
    <PageShell mainClassName="px-4 py-8 sm:px-6 sm:py-10">
      <div className="mx-auto max-w-5xl space-y-6">
        <AllReports />
        <header className="space-y-2">
          <h1 className="text-3xl font-bold tracking-tight">Your Week</h1>
          <p className="text-lg text-muted-foreground">
            {label} · made Sunday at 6:00 PM {zoneLabel(report.timeZone)}
          </p>
        </header>

        <dl className="grid grid-cols-2 gap-4 lg:grid-cols-4" aria-label="This week in numbers">
          <Figure term="Calls completed" value={String(content.calls.completed)} />
          <Figure term="Calls missed" value={String(content.calls.missed)} />
          <Figure term="Minutes talked" value={String(content.calls.minutesTalked)} />
          <Figure
            term="Commitments kept"
            value={String(content.commitments.kept)}
            detail={`${content.commitments.missed} missed · ${content.commitments.made} made · ${content.commitments.open} open`}
          />
        </dl>

        <div className="grid gap-6 lg:grid-cols-2">
          <SectionCard title="Mood">
            <div className="space-y-4">
              <p className="flex items-center gap-2 font-medium" data-testid="mood-trend">
                <TrendIcon trend={content.mood.trend} />
                {moodText(content.mood)}
              </p>
              <MoodChart points={content.mood.points} />
            </div>
          </SectionCard>

          <SectionCard title="Life Areas Discussed">
            {content.areasDiscussed.length === 0 ? (
              <p className="text-muted-foreground">No life area came up in this week's calls.</p>
            ) : (
              <ul className="space-y-3">
                {content.areasDiscussed.map((item) => (
                  <li key={item.area} className="space-y-1" data-testid="area-discussed">
                    <div className="flex justify-between text-sm">
                      <span className="font-medium">{areaTitle(item.area)}</span>
                      <span className="text-muted-foreground">
                        {item.calls} {item.calls === 1 ? 'call' : 'calls'}
                      </span>
                    </div>
                    <span className="block h-2.5 overflow-hidden rounded-full bg-secondary" aria-hidden="true">
                      <span className="block h-full rounded-full bg-primary" style={{ width: `${(item.calls / mostDiscussed) * 100}%` }} />
                    </span>
                  </li>
                ))}
              </ul>
            )}
          </SectionCard>
        </div>

        <SectionCard title="Life Area Scores">
          <table className="w-full text-left text-sm">
            <caption className="sr-only">Each life area's score this week against the week before</caption>
            <thead>
              <tr className="border-b text-muted-foreground">
                <th scope="col" className="py-2 pr-4 font-medium">
                  Life area
                </th>
                <th scope="col" className="py-2 pr-4 font-medium">
                  This week
                </th>
                <th scope="col" className="py-2 pr-4 font-medium">
                  Week before
                </th>
                <th scope="col" className="py-2 font-medium">
                  Change
                </th>
              </tr>
            </thead>
            <tbody>
              {content.scores.map((score) => (
                <tr key={score.area} className="border-b last:border-0" data-testid={`score-${score.area}`}>
                  <th scope="row" className="py-2 pr-4 font-medium">
                    {areaTitle(score.area)}
                  </th>
                  <td className="py-2 pr-4">
                    <span className="flex items-center gap-2">
                      <span className="w-10 tabular-nums">{score.score === null ? '—' : `${score.score}/${SATISFACTION_MAX}`}</span>
                      <span className="hidden h-2 w-24 overflow-hidden rounded-full bg-secondary sm:block" aria-hidden="true">
                        <span className="block h-full bg-primary" style={{ width: `${((score.score ?? 0) / SATISFACTION_MAX) * 100}%` }} />
                      </span>
                    </span>
                  </td>
                  <td className="py-2 pr-4 tabular-nums">{score.previous === null ? '—' : `${score.previous}/${SATISFACTION_MAX}`}</td>
                  <td className="py-2">
                    {score.change === null ? <span className="text-muted-foreground">—</span> : score.change === 0 ? 'No change' : score.change > 0 ? `Up ${score.change}` : `Down ${-score.change}`}
                    <span className="sr-only"> ({scoreChangeText(score)})</span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </SectionCard>
      </div>
    </PageShell>
  )
}
