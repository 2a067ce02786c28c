import { useNavigate } from '@tanstack/react-router'
import { useCallback } from 'react'
import { safeReturnTo, type PostLoginPath } from '#common/auth-constants'
import { loadAuthRequests } from './api'

/** A returnTo worth following: a path on this site (never an open redirect), and not /auth itself. */
function returnPathOf(returnTo: string | undefined): string | undefined {
  const path = safeReturnTo(returnTo)
  if (!path || path === '/auth' || path.startsWith('/auth?') || path.startsWith('/auth/') || path.startsWith('/auth#')) {
    return undefined
  }
  return path
}

/**
 * Where a signed-in user goes from /auth: returnTo when present and safe, otherwise
 * the server's post-login routing; /goal-intake if that check itself fails.
 */
export function usePostLoginNavigate() {
  const navigate = useNavigate()
  return useCallback(
    async (returnTo: string | undefined) => {
      const path = returnPathOf(returnTo)
      if (path) return navigate({ href: path, replace: true })
      let destination: PostLoginPath = '/goal-intake'
      try {
        const { fetchDestination } = await loadAuthRequests()
        destination = await fetchDestination()
      } catch {
        // The routing check itself failed: the goal intake.
      }
      return navigate({ to: destination, replace: true })
    },
    [navigate],
  )
}
