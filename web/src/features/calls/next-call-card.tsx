import { useQuery } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { CalendarClockIcon, PauseCircleIcon, PhoneOffIcon, RotateCwIcon, SettingsIcon } from 'lucide-react'
import { useId } from 'react'
import { Button } from '#web/components/ui/button'
import { Card, CardContent, CardHeader, CardTitle } from '#web/components/ui/card'
import { Spinner } from '#web/components/ui/spinner'
import { VerifyNumberFromAccount } from '#web/features/account/verify-number'
import { nextCallQueryOptions } from './api'
import { callKindLabel, localDateIn, longDate, nextCallText, noCallExplanation } from './format'

/**
 * The dashboard's "Next call": when the coach calls next ("Tomorrow, 7:30 AM Eastern"), or why no
 * call is scheduled and where to change that ("Verify your number" on the spot for a number not
 * proven yet); a link to the call schedule either way.
 */
export function NextCallCard() {
  const titleId = useId()
  const query = useQuery(nextCallQueryOptions())
  const now = new Date()

  let body: React.ReactNode
  if (query.isPending) {
    body = (
      <div className="flex justify-center py-2">
        <Spinner label="Loading your next call" />
      </div>
    )
  } else if (query.isError) {
    body = (
      <div className="flex flex-wrap items-center gap-3">
        <p className="text-sm font-medium text-destructive">Unable to load your next call</p>
        <Button variant="outline" size="sm" onClick={() => void query.refetch()} disabled={query.isFetching}>
          <RotateCwIcon aria-hidden="true" />
          Try Again
        </Button>
      </div>
    )
  } else {
    const { next, reason, pausedUntil, startNumber } = query.data
    const today = localDateIn(now, next?.timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone)
    if (next) {
      body = (
        <div className="space-y-1">
          <p className="text-2xl font-bold tracking-tight" data-testid="next-call-when">
            <time dateTime={next.at}>{nextCallText(next, now)}</time>
          </p>
          <p className="text-sm text-muted-foreground">{callKindLabel(next.slot, next.kind)}</p>
          {pausedUntil ? (
            <p className="flex items-center gap-1.5 text-sm text-amber-900">
              <PauseCircleIcon className="size-4 shrink-0" aria-hidden="true" />
              Calls are paused until {longDate(pausedUntil, today)}.
            </p>
          ) : null}
        </div>
      )
    } else {
      const why = noCallExplanation(reason, pausedUntil, today, startNumber)
      body = (
        <div className="flex items-start gap-3">
          <PhoneOffIcon className="mt-1 size-5 shrink-0 text-muted-foreground" aria-hidden="true" />
          <div className="space-y-1">
            <p className="text-lg font-semibold" data-testid="next-call-when">
              {why.title}
            </p>
            <p className="text-sm text-muted-foreground">{why.description}</p>
            {why.verify ? <VerifyNumberFromAccount /> : null}
            {why.action ? (
              <Button asChild variant="link" className="h-auto px-0">
                <Link to={why.action.to}>{why.action.label}</Link>
              </Button>
            ) : null}
          </div>
        </div>
      )
    }
  }

  return (
    <Card role="region" aria-labelledby={titleId} className="gap-4" data-testid="next-call-card">
      <CardHeader className="flex-row flex-wrap items-center justify-between gap-2">
        <CardTitle as="h2" id={titleId} className="flex items-center gap-2">
          <CalendarClockIcon className="size-5 text-primary" aria-hidden="true" />
          Next call
        </CardTitle>
        <Button asChild variant="outline" size="sm">
          <Link to="/calls/schedule">
            <SettingsIcon aria-hidden="true" />
            Call schedule
          </Link>
        </Button>
      </CardHeader>
      <CardContent>{body}</CardContent>
    </Card>
  )
}
