import { createFileRoute } from '@tanstack/react-router'
import { ReportsPage } from '#web/features/reports/reports-page'

export const Route = createFileRoute('/_authenticated/_paid/reports/')({
  component: ReportsPage,
})
