/**
 * /ops (operators): how the service stands now, refreshed every 10 seconds: the phone calls by
 * status in the last hour and today and the answer rate against a week ago, lateness and Vapi's
 * lines, the queues, parked webhook messages (with 'Retry') and stuck calls, and texts refused by
 * code. The same snapshot `npm run calls:status` prints.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import type { ReactNode } from 'react'
import type { OpsSnapshot } from '#common/ops'
import { NotFoundPage } from '#web/components/not-found'
import { Badge } from '#web/components/ui/badge'
import { Button } from '#web/components/ui/button'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '#web/components/ui/card'
import { Spinner } from '#web/components/ui/spinner'
import { useDocumentTitle } from '#web/components/use-document-title'
import { PageShell } from '#web/features/navigation/page-shell'
import { useStaffRefusal } from '#web/features/staff/staff-access'
import { toast } from '#web/lib/toast'
import { opsSnapshotQueryOptions, retryParkedEvent } from './api'

const percent = (rate: number | null) => (rate === null ? '—' : `${Math.round(rate * 1000) / 10}%`)
const seconds = (value: number | null) => (value === null ? '—' : `${value} s`)
const when = (iso: string) =>
  new Date(iso).toLocaleString(undefined, {
    dateStyle: 'medium',
    timeStyle: 'medium',
  })
const STATUS_WORDS: Record<string, string> = {
  scheduled: 'Scheduled',
  dialling: 'Dialling',
  queued: 'Queued',
  ringing: 'Ringing',
  in_progress: 'In progress',
  completed: 'Completed',
  no_answer: 'No answer',
  busy: 'Busy',
  voicemail: 'Voicemail',
  failed: 'Failed',
  cancelled: 'Cancelled',
  skipped: 'Skipped',
}

export function OpsPage() {
  useDocumentTitle('Operations')
  const snapshot = useQuery(opsSnapshotQueryOptions())
  // Refused later (two-factor sign-in turned off in another tab, the role taken away): as the guard would.
  const refusal = useStaffRefusal(snapshot.error)
  if (refusal === 'not-found') return <NotFoundPage />
  if (refusal === 'setup') return null
  return (
    <PageShell mainClassName="px-4 py-8 sm:px-6 sm:py-10">
      <div className="mx-auto max-w-6xl space-y-6">
        <header className="flex flex-wrap items-baseline justify-between gap-2">
          <h1 className="text-2xl font-bold tracking-tight">Operations</h1>
          <p className="text-sm text-muted-foreground" aria-live="polite">
            {snapshot.data ? `As of ${when(snapshot.data.at)}, refreshed every 10 seconds` : null}
          </p>
        </header>
        {snapshot.isPending ? (
          <p className="flex items-center gap-2 text-muted-foreground">
            <Spinner /> Loading the service's state…
          </p>
        ) : snapshot.isError ? (
          <p role="alert" className="text-destructive">
            The service's state could not be loaded: {snapshot.error.message}
          </p>
        ) : (
          <Snapshot snapshot={snapshot.data} />
        )}
      </div>
    </PageShell>
  )
}

function Section({ title, description, children }: { title: string; description?: string; children: ReactNode }) {
  return (
    <Card>
      <CardHeader>
        <CardTitle as="h2">{title}</CardTitle>
        {description ? <CardDescription>{description}</CardDescription> : null}
      </CardHeader>
      <CardContent>{children}</CardContent>
    </Card>
  )
}

function Figure({ label, value }: { label: string; value: string }) {
  return (
    <div>
      <dt className="text-sm text-muted-foreground">{label}</dt>
      <dd className="text-2xl font-semibold tabular-nums">{value}</dd>
    </div>
  )
}

function StatusList({ rows }: { rows: OpsSnapshot['calls']['today'] }) {
  if (rows.length === 0) return <p className="text-muted-foreground">None</p>
  return (
    <ul className="flex flex-wrap gap-2">
      {rows.map((row) => (
        <li key={row.status}>
          <Badge variant="secondary">
            {STATUS_WORDS[row.status] ?? row.status}: {row.count}
          </Badge>
        </li>
      ))}
    </ul>
  )
}

function Snapshot({ snapshot }: { snapshot: OpsSnapshot }) {
  const { today, lastWeek } = snapshot.calls.answerRate
  return (
    <div className="grid gap-6 lg:grid-cols-2">
      <Section title="Calls" description="Phone calls due in the window, by their status now.">
        <div className="space-y-4">
          <div>
            <h3 className="mb-2 font-medium">Last hour</h3>
            <StatusList rows={snapshot.calls.lastHour} />
          </div>
          <div>
            <h3 className="mb-2 font-medium">Today (UTC)</h3>
            <StatusList rows={snapshot.calls.today} />
          </div>
          <dl className="grid grid-cols-2 gap-4">
            <Figure label={`Answered today (${today.reached} of ${today.reached + today.notReached})`} value={percent(today.rate)} />
            <Figure label={`Same hours last week (${lastWeek.reached} of ${lastWeek.reached + lastWeek.notReached})`} value={percent(lastWeek.rate)} />
          </dl>
        </div>
      </Section>
      <Section
        title="Lateness and lines"
        description={`Due to dialled, over the ${snapshot.lateness.dialled} calls dialled in the last hour; Vapi's lines now.`}
      >
        <dl className="grid grid-cols-2 gap-4 sm:grid-cols-3">
          <Figure label="Lateness p50" value={seconds(snapshot.lateness.p50Seconds)} />
          <Figure label="Lateness p99" value={seconds(snapshot.lateness.p99Seconds)} />
          <Figure label="Lines in use" value={snapshot.lines ? `${snapshot.lines.inUse} of ${snapshot.lines.limit}` : 'Unknown'} />
          <Figure label="Calls waiting for a line" value={snapshot.lines ? String(snapshot.lines.waiting) : 'Unknown'} />
        </dl>
      </Section>
      <Section title="Queues" description="Job runs ready to run and not started, and how long the oldest has waited.">
        {snapshot.queues.length === 0 ? (
          <p className="text-muted-foreground">No queues are known to this process.</p>
        ) : (
          <table className="w-full text-left text-sm">
            <thead>
              <tr className="border-b">
                <th scope="col" className="py-2">
                  Queue
                </th>
                <th scope="col" className="py-2 text-right">
                  Waiting
                </th>
                <th scope="col" className="py-2 text-right">
                  Oldest
                </th>
              </tr>
            </thead>
            <tbody>
              {snapshot.queues.map((queue) => (
                <tr key={queue.queue} className="border-b last:border-0">
                  <td className="py-2 font-mono">{queue.queue}</td>
                  <td className="py-2 text-right tabular-nums">{queue.waiting}</td>
                  <td className="py-2 text-right tabular-nums">{queue.oldestWaitingSeconds} s</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Section>
      <Section title="Texts refused" description="Texts Twilio refused or did not deliver in the last 24 hours, by error code.">
        {snapshot.textsRefused.length === 0 ? (
          <p className="text-muted-foreground">None</p>
        ) : (
          <ul className="flex flex-wrap gap-2">
            {snapshot.textsRefused.map((row) => (
              <li key={row.code}>
                <Badge variant="secondary">
                  {row.code}: {row.count}
                </Badge>
              </li>
            ))}
          </ul>
        )}
      </Section>
      <ParkedEvents webhooks={snapshot.webhooks} />
      <Section title="Stuck calls" description="Calls still live five minutes past their longest end: the sweep is asking Vapi about them.">
        {snapshot.stuckCalls.length === 0 ? (
          <p className="text-muted-foreground">None</p>
        ) : (
          <ul className="space-y-1 text-sm">
            {snapshot.stuckCalls.map((call) => (
              <li key={call.id}>
                <span className="font-mono">{call.id}</span> {STATUS_WORDS[call.status] ?? call.status}, {call.minutesPastEnd} minutes past its end
              </li>
            ))}
          </ul>
        )}
      </Section>
    </div>
  )
}

function ParkedEvents({ webhooks }: { webhooks: OpsSnapshot['webhooks'] }) {
  const queryClient = useQueryClient()
  const retry = useMutation({
    mutationFn: retryParkedEvent,
    onSuccess: (_answer, id) => {
      void toast({ title: `Webhook message ${id} will be applied again` })
      void queryClient.invalidateQueries({
        queryKey: opsSnapshotQueryOptions().queryKey,
      })
    },
    onError: (error) =>
      void toast({
        title: 'The message could not be retried',
        description: error.message,
        variant: 'destructive',
      }),
  })
  return (
    <Section
      title={`Parked webhook messages (${webhooks.parkedCount})`}
      description="Vapi's messages that failed to apply 10 times: applied again only when an operator says so."
    >
      {webhooks.parked.length === 0 ? (
        <p className="text-muted-foreground">None</p>
      ) : (
        <ul className="space-y-3">
          {webhooks.parked.map((event) => (
            <li key={event.id} className="flex flex-wrap items-start justify-between gap-2 border-b pb-3 last:border-0">
              <div className="min-w-0 text-sm">
                <p className="font-medium">
                  #{event.id} {event.type}
                </p>
                <p className="text-muted-foreground">
                  Parked {when(event.parkedAt)} after {event.attempts} tries
                </p>
                {event.lastError ? <p className="break-words font-mono text-xs">{event.lastError}</p> : null}
              </div>
              <Button
                size="sm"
                variant="outline"
                disabled={retry.isPending}
                onClick={() => retry.mutate(event.id)}
                aria-label={`Retry webhook message ${event.id}`}
              >
                Retry
              </Button>
            </li>
          ))}
        </ul>
      )}
    </Section>
  )
}
