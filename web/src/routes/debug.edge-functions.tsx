import { createFileRoute } from '@tanstack/react-router'
import { prefetchSession } from '#web/features/auth/session'
import { DiagnosticsPage } from '#web/features/diagnostics/diagnostics-page'

// Signed in only, but outside _authenticated: signed out, the page shows its own
// 'Authentication Required' view instead of a redirect (spec 2 §2).
export const Route = createFileRoute('/debug/edge-functions')({
  loader: prefetchSession,
  component: DiagnosticsPage,
})
