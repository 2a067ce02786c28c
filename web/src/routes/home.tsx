import { createFileRoute } from '@tanstack/react-router'
import { ProtectedRoute } from '../features/auth/protected-route'
import { prefetchSession } from '../features/auth/session'
// /home is the same dashboard as /dashboard (spec 1 §2).
import { DashboardPage } from '../features/dashboard/dashboard-page'

export const Route = createFileRoute('/home')({
  loader: prefetchSession,
  component: () => (
    <ProtectedRoute access="paid">
      <DashboardPage />
    </ProtectedRoute>
  ),
})
