import { Link } from '@tanstack/react-router'
import { useKnownUser } from '#web/components/app-shell'
import { Button } from '#web/components/ui/button'
import { PLANS } from '#common/plan-catalogue'
import { PlanGrid } from '#web/features/plans/components/plan-grid'

/**
 * The three plans, embedded: the same catalogue GET /api/plans serves (common/plan-catalogue.ts),
 * so the prerendered page shows them at once and the landing page never asks the API (docs/decisions/052).
 */
export function PlansSection() {
  // Someone the app knows is signed in picks on /payment, not on the sign-in screen.
  const user = useKnownUser()
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

        <PlanGrid
          className="mt-14"
          plans={PLANS}
          action={(plan) => (
            <Button asChild size="lg" variant={plan.mostPopular ? 'default' : 'outline'}>
              <Link to={user ? '/payment' : '/auth'}>Get started with {plan.name}</Link>
            </Button>
          )}
        />
      </div>
    </section>
  )
}
