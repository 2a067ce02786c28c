import { createFileRoute } from '@tanstack/react-router'
import { DiagnosticsPage } from '../features/diagnostics/diagnostics-page'

export const Route = createFileRoute('/debug/edge-functions')({
  component: DiagnosticsPage,
})
