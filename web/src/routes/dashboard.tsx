import { createFileRoute } from '@tanstack/react-router'
import { ProtectedRoute } from '../features/auth/protected-route'
import { prefetchSession } from '../features/auth/session'
import { DashboardPage } from '../features/dashboard/dashboard-page'

export const Route = createFileRoute('/dashboard')({
  loader: prefetchSession,
  component: () => (
    <ProtectedRoute access="paid">
      <DashboardPage />
    </ProtectedRoute>
  ),
})
