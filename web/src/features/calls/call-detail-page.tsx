import { useQuery } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { ArrowLeftIcon, RefreshCwIcon } from 'lucide-react'
import { type ReactNode } from 'react'
import type { CallDetailResponse } from '#common/calls'
import { SATISFACTION_MAX } from '#common/domain'
import { PageShell } from '#web/features/navigation/page-shell'
import { Badge } from '#web/components/ui/badge'
import { Button } from '#web/components/ui/button'
import { SectionCard } from '#web/components/section-card'
import { Spinner } from '#web/components/ui/spinner'
import { useDocumentTitle } from '#web/components/use-document-title'
import { isApiError } from '#web/lib/api-client'
import { callDetailQueryOptions } from './api'
import {
  areaTitle,
  callKindLabel,
  durationText,
  endedReasonText,
  eventText,
  lateText,
  localDateIn,
  longDate,
  preciseTimeIn,
  skipReasonText,
  statusText,
  timeIn,
  zoneLabel,
} from './format'

/** /calls/$callId: one call's timeline, duration, areas, summary, mood and energy, commitments and transcript. */
export function CallDetailPage({ callId }: { callId: string }) {
  const query = useQuery(callDetailQueryOptions(callId))
  const missing = isApiError(query.error) && query.error.status === 404

  if (query.isPending) {
    return (
      <CallShell title="Loading call">
        <div className="flex justify-center py-24">
          <Spinner size="lg" label="Loading call..." showLabel />
        </div>
      </CallShell>
    )
  }
  if (missing) {
    return (
      <CallShell title="Call Not Found">
        <div className="mx-auto flex max-w-md flex-col items-center py-16 text-center">
          <h1 className="text-2xl font-bold tracking-tight sm:text-3xl">Call Not Found</h1>
          <p className="mt-3 text-muted-foreground">This call does not exist, or it is not one of yours.</p>
          <div className="mt-8">
            <BackToDashboard variant="outline" />
          </div>
        </div>
      </CallShell>
    )
  }
  if (query.isError) {
    return (
      <CallShell title="Call">
        <div role="alert" className="mx-auto flex max-w-md flex-col items-center gap-4 py-16 text-center">
          <h1 className="text-2xl font-bold tracking-tight">Unable to load this call</h1>
          <p className="text-muted-foreground">{query.error.message}</p>
          <div className="flex gap-3">
            <Button onClick={() => void query.refetch()} disabled={query.isFetching}>
              <RefreshCwIcon aria-hidden="true" />
              Try Again
            </Button>
            <BackToDashboard variant="outline" />
          </div>
        </div>
      </CallShell>
    )
  }
  return <CallLoaded call={query.data} />
}

function CallShell({ title, children }: { title: string; children: ReactNode }) {
  useDocumentTitle(title)
  return (
    <PageShell mainClassName="px-4 py-8 sm:px-6 sm:py-10">
      <div className="mx-auto max-w-5xl">{children}</div>
    </PageShell>
  )
}

function BackToDashboard({ variant = 'ghost' }: { variant?: 'ghost' | 'outline' }) {
  return (
    <Button asChild variant={variant} className={variant === 'ghost' ? '-ml-3' : undefined}>
      <Link to="/dashboard">
        <ArrowLeftIcon aria-hidden="true" />
        Back to Dashboard
      </Link>
    </Button>
  )
}

/** What happened to the call, in one sentence, when it did not simply complete. */
function outcome(call: CallDetailResponse): string | null {
  if (call.completionStatus === 'skipped') return `Skipped because ${skipReasonText(call.skipReason)}.`
  if (call.completionStatus === 'completed' || !call.endedReason) return null
  const words = endedReasonText(call.endedReason)
  return `Ended: ${words.charAt(0).toUpperCase()}${words.slice(1)}.`
}

function CallLoaded({ call }: { call: CallDetailResponse }) {
  const kind = callKindLabel(call.slot, call.kind)
  const zone = call.timeZone
  const date = longDate(localDateIn(new Date(call.callDate), zone ?? Intl.DateTimeFormat().resolvedOptions().timeZone))
  useDocumentTitle(`${kind}, ${date}`)
  const said = outcome(call)
  const late = lateText(call.lateSeconds, call.lateReason)
  const reached = call.completionStatus === 'completed' || call.startedAt !== null

  return (
    <PageShell mainClassName="px-4 py-8 sm:px-6 sm:py-10">
      <div className="mx-auto max-w-5xl space-y-6">
        <BackToDashboard />
        <header className="space-y-2">
          <div className="flex flex-wrap items-center gap-3">
            <h1 className="text-3xl font-bold tracking-tight">{kind}</h1>
            <Badge variant={call.completionStatus === 'completed' ? 'default' : 'secondary'} data-testid="call-status">
              {statusText(call.completionStatus)}
            </Badge>
          </div>
          <p className="text-lg text-muted-foreground">
            <time dateTime={call.callDate}>
              {date}, {timeIn(call.callDate, zone)}
              {zone ? ` ${zoneLabel(zone)}` : ''}
            </time>
            {call.attempt > 0 ? ` · retry ${call.attempt} of 2` : ''}
          </p>
          {said ? <p className="font-medium">{said}</p> : null}
          {late ? (
            <p className="text-muted-foreground" data-testid="call-late">
              {late}.
            </p>
          ) : null}
        </header>

        <dl className="grid grid-cols-2 gap-4 sm:grid-cols-3">
          <Figure term="Duration" value={durationText(call.callDuration)} />
          <Figure term="Mood" value={call.mood === null ? '—' : `${call.mood}/${SATISFACTION_MAX}`} missing={call.mood === null} />
          <Figure term="Energy" value={call.energy === null ? '—' : `${call.energy}/${SATISFACTION_MAX}`} missing={call.energy === null} />
        </dl>

        <div className="grid gap-6 lg:grid-cols-[3fr_2fr]">
          <div className="space-y-6">
            <SectionCard title="Summary">
              {call.summary ? (
                <p className="leading-relaxed">{call.summary}</p>
              ) : (
                <p className="text-muted-foreground">
                  {reached ? 'The summary of this call has not arrived yet.' : 'There is no summary: the conversation did not take place.'}
                </p>
              )}
            </SectionCard>
            <SectionCard title="Areas discussed">
              {call.areasDiscussed.length > 0 ? (
                <ul className="flex flex-wrap gap-2">
                  {call.areasDiscussed.map((area) => (
                    <li key={area}>
                      <Badge variant="outline">{areaTitle(area)}</Badge>
                    </li>
                  ))}
                </ul>
              ) : (
                <p className="text-muted-foreground">No life areas were recorded for this call.</p>
              )}
            </SectionCard>
            <SectionCard title="Commitments">
              {call.commitments.length > 0 ? (
                <ul className="list-disc space-y-1 pl-5">
                  {call.commitments.map((commitment, index) => (
                    <li key={`${index}-${commitment}`}>{commitment}</li>
                  ))}
                </ul>
              ) : (
                <p className="text-muted-foreground">No commitments were recorded for this call.</p>
              )}
            </SectionCard>
          </div>
          <SectionCard title="Timeline">
            {call.events.length > 0 ? (
              <ol className="space-y-3" data-testid="call-timeline">
                {call.events.map((event, index) => (
                  <li key={`${index}-${event.type}`} className="relative pl-5">
                    {/* The dot, and the line down to the next step. */}
                    <span className="absolute top-1.5 left-0 size-2.5 rounded-full bg-primary" aria-hidden="true" />
                    {index < call.events.length - 1 ? (
                      <span className="absolute top-5 -bottom-3 left-[0.25rem] w-px bg-border" aria-hidden="true" />
                    ) : null}
                    <p className="font-medium">{eventText(event, call)}</p>
                    <p className="text-sm text-muted-foreground">
                      <time dateTime={event.at}>{preciseTimeIn(event.at, zone)}</time>
                    </p>
                  </li>
                ))}
              </ol>
            ) : (
              <p className="text-muted-foreground">Nothing has happened with this call yet.</p>
            )}
          </SectionCard>
        </div>

        <SectionCard title="Transcript">
          {call.transcript ? (
            <p className="leading-relaxed whitespace-pre-wrap" data-testid="call-transcript">
              {call.transcript}
            </p>
          ) : (
            <p className="text-muted-foreground">There is no transcript for this call.</p>
          )}
        </SectionCard>
      </div>
    </PageShell>
  )
}

function Figure({ term, value, missing = false }: { term: string; value: string; missing?: boolean }) {
  return (
    <div className="rounded-xl border bg-card p-4 shadow-sm">
      <dt className="text-sm font-medium text-muted-foreground">{term}</dt>
      <dd className="text-2xl font-bold tracking-tight">
        {missing ? (
          <>
            <span aria-hidden="true">{value}</span>
            <span className="sr-only">Not recorded</span>
          </>
        ) : (
          value
        )}
      </dd>
    </div>
  )
}
