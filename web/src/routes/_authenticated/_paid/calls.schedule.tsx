import { createFileRoute } from '@tanstack/react-router'
import { SchedulePage } from '#web/features/calls/schedule-page'

export const Route = createFileRoute('/_authenticated/_paid/calls/schedule')({
  component: SchedulePage,
})
