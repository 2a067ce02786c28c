import { createFileRoute } from '@tanstack/react-router'
import { LandingPage } from '../features/landing/landing-page'
import { plansQueryOptions } from '../features/plans/api'

export const Route = createFileRoute('/')({
  // Start fetching the plans with the route's code; the page renders at once and the
  // plans section shows its own loading and error states, so a failure never blocks the page.
  loader: ({ context }) => {
    context.queryClient.ensureQueryData(plansQueryOptions()).catch(() => undefined)
  },
  component: LandingPage,
})
