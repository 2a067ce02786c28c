/**
 * The account page's "Account activity" (docs/decisions/072): the audit log's events about the
 * person, newest first: who did what (you, staff named with their roles, the server's command
 * line), in words, and when.
 */
import { useQuery } from '@tanstack/react-query'
import { RefreshCwIcon } from 'lucide-react'
import { SectionCard } from '#web/components/section-card'
import { Button } from '#web/components/ui/button'
import { Spinner } from '#web/components/ui/spinner'
import { formatDateTime } from '#web/lib/date-time'
import { activityQueryOptions } from './api'

export function ActivitySection() {
  const activity = useQuery(activityQueryOptions())
  return (
    <SectionCard title="Account activity" description="Changes to your account's security and staff roles, and who made them.">
      {activity.isPending ? (
        <Spinner label="Loading your account activity..." showLabel />
      ) : activity.isError ? (
        <div role="alert" className="flex flex-col items-start gap-3">
          <p className="font-medium text-destructive">Unable to load your account activity</p>
          <Button variant="outline" onClick={() => void activity.refetch()} disabled={activity.isFetching}>
            <RefreshCwIcon aria-hidden="true" />
            Try Again
          </Button>
        </div>
      ) : activity.data.length === 0 ? (
        <p className="text-sm text-muted-foreground">Nothing yet.</p>
      ) : (
        <ul className="divide-y rounded-md border" aria-label="Account activity" data-testid="account-activity">
          {activity.data.map((event) => (
            <li key={event.id} className="flex flex-col gap-0.5 px-4 py-3">
              <span>{event.description}</span>
              <time dateTime={event.at} className="text-sm text-muted-foreground">
                {formatDateTime(event.at)}
              </time>
            </li>
          ))}
        </ul>
      )}
    </SectionCard>
  )
}
