import { createFileRoute } from '@tanstack/react-router'
import { ProtectedRoute } from '../features/auth/protected-route'
import { prefetchSession } from '../features/auth/session'
import { GoalIntakePage } from '../features/goal-intake/goal-intake-page'

export const Route = createFileRoute('/goal-intake')({
  loader: prefetchSession,
  component: () => (
    <ProtectedRoute access="paid">
      <GoalIntakePage />
    </ProtectedRoute>
  ),
})
