import { CheckIcon } from 'lucide-react'
import type { ReactNode } from 'react'
import type { Plan } from '#common/plans'
import { Badge } from '#web/components/ui/badge'
import { Card, CardContent, CardDescription, CardFooter, CardHeader, CardTitle } from '#web/components/ui/card'
import { cn } from '#web/lib/utils'
import { formatPrice } from '#web/features/plans/format'

export type PlanCardProps = {
  plan: Plan
  /** The card's call to action (a link on the landing page, a button on /payment). */
  action: ReactNode
  /** Heading level of the plan name, so the card fits the page's outline. */
  headingLevel?: 'h2' | 'h3'
  className?: string
}

/** One plan: name, monthly price, its features and an action. The most popular plan is highlighted. */
export function PlanCard({ plan, action, headingLevel = 'h3', className }: PlanCardProps) {
  const titleId = `plan-${plan.id}-title`
  return (
    <Card
      aria-labelledby={titleId}
      role="group"
      className={cn(
        'relative h-full',
        plan.mostPopular && 'border-2 border-brand-coach shadow-lg lg:-my-3 lg:py-9',
        className,
      )}
    >
      {plan.mostPopular ? (
        <Badge variant="highlight" className="absolute -top-3 left-1/2 -translate-x-1/2 px-3 py-1 tracking-wide">
          MOST POPULAR
        </Badge>
      ) : null}
      <CardHeader>
        <CardTitle as={headingLevel} id={titleId} className="text-xl">
          {plan.name}
        </CardTitle>
        <CardDescription>
          <span className="text-4xl font-extrabold tracking-tight text-foreground">{formatPrice(plan.priceMonthly)}</span>
          <span className="ml-1 text-base text-muted-foreground">
            <span aria-hidden="true">/month</span>
            <span className="sr-only">per month</span>
          </span>
        </CardDescription>
      </CardHeader>
      <CardContent className="flex-1">
        <ul className="space-y-3" aria-label={`${plan.name} plan features`}>
          {plan.features.map((feature) => (
            <li key={feature} className="flex items-start gap-2.5 text-sm">
              <CheckIcon className="mt-0.5 size-4 shrink-0 text-success" aria-hidden="true" />
              <span>{feature}</span>
            </li>
          ))}
        </ul>
      </CardContent>
      <CardFooter className="flex-col items-stretch">{action}</CardFooter>
    </Card>
  )
}

/** Placeholder cards with the plan cards' shape, shown while plans load. */
export function PlanCardSkeleton() {
  return (
    <Card aria-hidden="true" className="h-full animate-pulse">
      <CardHeader>
        <div className="h-6 w-24 rounded bg-muted" />
        <div className="mt-2 h-10 w-32 rounded bg-muted" />
      </CardHeader>
      <CardContent className="flex-1 space-y-3">
        {[0, 1, 2, 3].map((i) => (
          <div key={i} className="h-4 rounded bg-muted" style={{ width: `${85 - i * 12}%` }} />
        ))}
      </CardContent>
      <CardFooter>
        <div className="h-10 w-full rounded-md bg-muted" />
      </CardFooter>
    </Card>
  )
}
