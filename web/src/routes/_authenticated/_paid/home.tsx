import { createFileRoute } from '@tanstack/react-router'
// /home is the same dashboard as /dashboard.
import { DashboardPage } from '#web/features/dashboard/dashboard-page'

export const Route = createFileRoute('/_authenticated/_paid/home')({
  component: DashboardPage,
})
