import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { CheckIcon, ListChecksIcon, RotateCwIcon } from 'lucide-react'
import { useId } from 'react'
import { keptRateText, type CommitmentsResponse } from '#common/commitments'
import { Button } from '#web/components/ui/button'
import { Card, CardContent, CardHeader, CardTitle } from '#web/components/ui/card'
import { Spinner } from '#web/components/ui/spinner'
import { toast } from '#web/lib/toast'
import { commitmentsQueryOptions, markCommitmentDone } from '#web/features/dashboard/api'

/**
 * "Your Commitments": what the person said they would do in their calls and has not settled yet,
 * each with "Mark done", and the share kept over the last 30 days. The next call asks about the
 * open ones; marking one done here settles it first.
 */
export function CommitmentsCard({ timeZone }: { timeZone: string | undefined }) {
  const titleId = useId()
  const rateId = useId()
  const queryClient = useQueryClient()
  const query = useQuery(commitmentsQueryOptions())
  const done = useMutation({
    mutationFn: (id: string) => markCommitmentDone(id),
    onSuccess: (result) => {
      queryClient.setQueryData<CommitmentsResponse>(commitmentsQueryOptions().queryKey, (current) =>
        current ? { open: current.open.filter((item) => item.id !== result.commitment.id), keptRate: result.keptRate } : current,
      )
      void toast({ title: 'Marked done', description: result.commitment.text })
    },
    onError: (error) => void toast({ title: 'Could not mark it done', description: error.message, variant: 'destructive' }),
  })

  let body: React.ReactNode
  if (query.isPending) {
    body = (
      <div className="flex justify-center py-4">
        <Spinner label="Loading your commitments" />
      </div>
    )
  } else if (query.isError) {
    body = (
      <div className="flex flex-wrap items-center gap-3">
        <p className="text-sm font-medium text-destructive">Unable to load your commitments</p>
        <Button variant="outline" size="sm" onClick={() => void query.refetch()} disabled={query.isFetching}>
          <RotateCwIcon aria-hidden="true" />
          Try Again
        </Button>
      </div>
    )
  } else {
    const { open, keptRate } = query.data
    const rate = keptRateText(keptRate)
    const dateFormat = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', ...(timeZone ? { timeZone } : {}) })
    body = (
      <div className="grid gap-6 sm:grid-cols-[minmax(0,1fr)_12rem]">
        {open.length === 0 ? (
          <p className="text-muted-foreground">No open commitments. Your coach will help you set one on your next call.</p>
        ) : (
          <ul className="divide-y" aria-label="Open commitments">
            {open.map((item) => (
              <li key={item.id} className="flex flex-wrap items-center justify-between gap-3 py-3 first:pt-0 last:pb-0" data-testid="commitment-row">
                <div className="min-w-0 flex-1">
                  <p className="font-medium">{item.text}</p>
                  <p className="text-sm text-muted-foreground">
                    From your{' '}
                    <Link
                      to="/calls/$callId"
                      params={{ callId: item.callId }}
                      className="rounded-sm text-primary underline-offset-4 hover:underline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring"
                    >
                      call on <time dateTime={item.madeAt}>{dateFormat.format(new Date(item.madeAt))}</time>
                    </Link>
                  </p>
                </div>
                <Button
                  variant="outline"
                  size="sm"
                  aria-label={`Mark done: ${item.text}`}
                  disabled={done.isPending && done.variables === item.id}
                  onClick={() => done.mutate(item.id)}
                >
                  <CheckIcon aria-hidden="true" />
                  Mark done
                </Button>
              </li>
            ))}
          </ul>
        )}
        <div className="rounded-lg border bg-muted/40 p-4" role="group" aria-labelledby={rateId}>
          <p id={rateId} className="text-sm font-medium text-muted-foreground">
            Kept rate
          </p>
          <p className="text-3xl font-bold tracking-tight" data-testid="kept-rate">
            {rate.value}
          </p>
          <p className="text-sm text-muted-foreground">{rate.detail}</p>
        </div>
      </div>
    )
  }

  return (
    <Card role="region" aria-labelledby={titleId} className="gap-4" data-testid="commitments-card">
      <CardHeader className="flex-row flex-wrap items-center justify-between gap-2">
        <CardTitle as="h2" id={titleId} className="flex items-center gap-2">
          <ListChecksIcon className="size-5 text-primary" aria-hidden="true" />
          Your Commitments
        </CardTitle>
        <Button asChild variant="link" className="h-auto px-0">
          <Link to="/reports">Weekly reports</Link>
        </Button>
      </CardHeader>
      <CardContent>{body}</CardContent>
    </Card>
  )
}
