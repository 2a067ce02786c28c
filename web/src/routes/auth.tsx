import { createFileRoute, useLocation } from '@tanstack/react-router'
import { AuthPage } from '#web/features/auth/auth-page'
import { validateAuthSearch } from '#web/features/auth/search'
import { prefetchSession } from '#web/features/auth/session'

export const Route = createFileRoute('/auth')({
  validateSearch: validateAuthSearch,
  // Whether a session already exists decides if this screen shows at all.
  loader: prefetchSession,
  component: AuthRoute,
})

function AuthRoute() {
  const search = Route.useSearch()
  const hash = useLocation({ select: (location) => location.hash })
  return <AuthPage search={search} hash={hash} />
}
