import { createFileRoute, useLocation } from '@tanstack/react-router'
import { AuthPage } from '../features/auth/auth-page'
import { validateAuthSearch } from '../features/auth/search'
import { prefetchSession } from '../features/auth/session'

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
