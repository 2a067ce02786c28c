import { createFileRoute } from '@tanstack/react-router'
import { SessionsPage } from '#web/features/coach-sessions/sessions-page'

/** /sessions (docs/decisions/082): an Elite member's 1-on-1 sessions with their coach. */
export const Route = createFileRoute('/_authenticated/_paid/sessions')({
  component: SessionsPage,
})
