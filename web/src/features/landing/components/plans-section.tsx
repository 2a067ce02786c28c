import { useQuery } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { Button } from '../../../components/ui/button'
import { Spinner } from '../../../components/ui/spinner'
import { plansQueryOptions } from '../../plans/api'
import { PlanCard, PlanCardSkeleton } from '../../plans/components/plan-card'

/** The three plans, fetched from the server; a skeleton while loading, a short message if that fails. */
export function PlansSection() {
  const plans = useQuery(plansQueryOptions())

  return (
    <section id="plans" aria-labelledby="plans-heading" className="scroll-mt-20 bg-card py-20 sm:py-24">
      <div className="mx-auto max-w-6xl px-4 sm:px-6">
        <div className="mx-auto max-w-2xl text-center">
          <h2 id="plans-heading" className="text-3xl font-bold tracking-tight sm:text-4xl">
            Choose the coaching that fits you
          </h2>
          <p className="mt-4 text-lg text-muted-foreground">
            Every plan is billed monthly and includes your daily coaching calls. Pick one when you create your
            account.
          </p>
        </div>

        <div className="mt-14" aria-busy={plans.isPending}>
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
            <div
              role="alert"
              className="mx-auto flex max-w-lg flex-col items-center gap-4 rounded-xl border bg-muted px-6 py-8 text-center"
            >
              <p className="font-medium">We couldn't load our plans just now.</p>
              <p className="text-sm text-muted-foreground">
                Please check your connection and try again, or create your account and choose a plan there.
              </p>
              <Button variant="outline" onClick={() => void plans.refetch()} disabled={plans.isFetching}>
                {plans.isFetching ? 'Trying again…' : 'Try again'}
              </Button>
            </div>
          ) : (
            <ul className="grid items-stretch gap-8 lg:grid-cols-3" aria-label="Plans">
              {plans.data.map((plan) => (
                <li key={plan.id}>
                  <PlanCard
                    plan={plan}
                    action={
                      <Button asChild size="lg" variant={plan.mostPopular ? 'default' : 'outline'}>
                        <Link to="/auth">
                          Get started with {plan.name}
                        </Link>
                      </Button>
                    }
                  />
                </li>
              ))}
            </ul>
          )}
        </div>
      </div>
    </section>
  )
}
