import { createFileRoute } from '@tanstack/react-router'
import { TicketPage } from '#web/features/support/ticket-page'

export const Route = createFileRoute('/_authenticated/help/$ticketId')({
  component: TicketRoute,
})

function TicketRoute() {
  const { ticketId } = Route.useParams()
  return <TicketPage ticketId={ticketId} />
}
