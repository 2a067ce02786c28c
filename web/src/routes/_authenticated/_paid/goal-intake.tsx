import { createFileRoute } from '@tanstack/react-router'
import { GoalIntakePage } from '../../../features/goal-intake/goal-intake-page'

export const Route = createFileRoute('/_authenticated/_paid/goal-intake')({
  component: GoalIntakePage,
})
