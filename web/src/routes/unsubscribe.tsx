import { createFileRoute, useLocation } from '@tanstack/react-router'
import { UnsubscribePage } from '#web/features/reports/unsubscribe-page'

export const Route = createFileRoute('/unsubscribe')({
  component: UnsubscribeRoute,
})

function UnsubscribeRoute() {
  const hash = useLocation({ select: (location) => location.hash })
  return <UnsubscribePage hash={hash} />
}
