import { createFileRoute } from '@tanstack/react-router'
import { progressQueryOptions } from '#web/features/progress/api'
import { ProgressPage } from '#web/features/progress/progress-page'

export const Route = createFileRoute('/_authenticated/_paid/progress')({
  // Start fetching the series with the route's code (on hover or focus of a link too); the page
  // shows its own loading, error and upgrade states, so a failure never blocks it.
  loader: ({ context }) => {
    context.queryClient.ensureQueryData(progressQueryOptions()).catch(() => undefined)
  },
  component: ProgressPage,
})
