import type { ReactNode } from 'react'
import type { Plan } from '#common/plans'
import { cn } from '#web/lib/utils'
import { PlanCard, type PlanCardProps } from './plan-card'

type PlanGridProps = {
  plans: readonly Plan[]
  /** Each plan's call to action (a link on the landing page, a button on /payment). */
  action: (plan: Plan) => ReactNode
  headingLevel?: PlanCardProps['headingLevel']
  className?: string
}

/** The plans as a list of cards: the landing page's embedded catalogue, or the server's answer on /payment (PlanList). */
export function PlanGrid({ plans, action, headingLevel, className }: PlanGridProps) {
  return (
    <ul className={cn('grid items-stretch gap-8 lg:grid-cols-3', className)} aria-label="Plans">
      {plans.map((plan) => (
        <li key={plan.id}>
          <PlanCard plan={plan} headingLevel={headingLevel} action={action(plan)} />
        </li>
      ))}
    </ul>
  )
}
