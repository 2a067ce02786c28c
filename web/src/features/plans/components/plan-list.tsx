import { useQuery } from '@tanstack/react-query'
import type { ReactNode } from 'react'
import type { Plan } from '#common/plans'
import { Button } from '#web/components/ui/button'
import { Spinner } from '#web/components/ui/spinner'
import { plansQueryOptions } from '#web/features/plans/api'
import { PlanCardSkeleton, type PlanCardProps } from './plan-card'
import { PlanGrid } from './plan-grid'

type PlanListProps = {
  /** Each plan's call to action (a button on /payment). */
  action: (plan: Plan) => ReactNode
  headingLevel?: PlanCardProps['headingLevel']
  className?: string
}

/** The plans from the server (GET /api/plans, with the payment mode) as cards; placeholder cards while they load, a message with a retry if that fails. */
export function PlanList({ action, headingLevel, className }: PlanListProps) {
  const plans = useQuery(plansQueryOptions())
  return (
    <div className={className} aria-busy={plans.isPending}>
      {plans.isPending ? (
        <>
          <Spinner label="Loading plans" className="sr-only" />
          <div className="grid gap-8 lg:grid-cols-3">
            <PlanCardSkeleton />
            <PlanCardSkeleton />
            <PlanCardSkeleton />
          </div>
        </>
      ) : plans.isError ? (
        <div role="alert" className="mx-auto flex max-w-lg flex-col items-center gap-4 rounded-xl border bg-muted px-6 py-8 text-center">
          <p className="font-medium">We couldn't load our plans just now.</p>
          <Button variant="outline" onClick={() => void plans.refetch()} disabled={plans.isFetching}>
            {plans.isFetching ? 'Trying again…' : 'Try again'}
          </Button>
        </div>
      ) : (
        <PlanGrid plans={plans.data.plans} action={action} headingLevel={headingLevel} />
      )}
    </div>
  )
}
