import { createFileRoute } from '@tanstack/react-router'
import { ProtectedRoute } from '../features/auth/protected-route'
import { prefetchSession } from '../features/auth/session'
import { OptInPage } from '../features/opt-in/opt-in-page'

export const Route = createFileRoute('/opt-in')({
  loader: prefetchSession,
  component: () => (
    <ProtectedRoute access="paid">
      <OptInPage />
    </ProtectedRoute>
  ),
})
