import { createFileRoute } from '@tanstack/react-router'
import { CallDetailPage } from '#web/features/calls/call-detail-page'

export const Route = createFileRoute('/_authenticated/_paid/calls/$callId')({
  component: CallRoute,
})

function CallRoute() {
  const { callId } = Route.useParams()
  return <CallDetailPage callId={callId} />
}
