import { createFileRoute } from '@tanstack/react-router'
import { OptInPage } from '#web/features/opt-in/opt-in-page'

export const Route = createFileRoute('/_authenticated/_paid/opt-in')({
  component: OptInPage,
})
