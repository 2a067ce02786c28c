import { createFileRoute } from '@tanstack/react-router'
import { ProtectedRoute } from '../features/auth/protected-route'
import { prefetchSession } from '../features/auth/session'
import { DiagnosticsPage } from '../features/diagnostics/diagnostics-page'

export const Route = createFileRoute('/debug/edge-functions')({
  loader: prefetchSession,
  // Signed out, the page shows its own 'Authentication Required' view (spec 2 §2).
  component: () => (
    <ProtectedRoute access="signed-in" signedOut="screen">
      <DiagnosticsPage />
    </ProtectedRoute>
  ),
})
