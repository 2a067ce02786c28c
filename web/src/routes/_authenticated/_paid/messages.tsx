import { createFileRoute } from '@tanstack/react-router'
import { MessagesPage } from '#web/features/coach/messages-page'

/** /messages (docs/decisions/079): an Elite member's thread with their coach. */
export const Route = createFileRoute('/_authenticated/_paid/messages')({
  component: MessagesPage,
})
