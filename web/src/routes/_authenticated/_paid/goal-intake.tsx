import { createFileRoute } from '@tanstack/react-router'
import { GoalIntakePage } from '#web/features/goal-intake/goal-intake-page'

export const Route = createFileRoute('/_authenticated/_paid/goal-intake')({
  component: GoalIntakePage,
})
