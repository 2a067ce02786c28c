import { useQueryClient } from '@tanstack/react-query'
import { useNavigate } from '@tanstack/react-router'
import { useCallback, useState } from 'react'
import { authKeys, loadAuthRequests } from './api'
import { setSigningOut } from './session'

/**
 * Logout: POST /api/auth/logout, then, whether or not that worked, forget everything
 * cached locally (the user and with it the subscription and opt-in flags) and go to /auth (or,
 * `to: '/'`, the landing page: after the account was deleted).
 */
export function useLogout() {
  const queryClient = useQueryClient()
  const navigate = useNavigate()
  const [isPending, setIsPending] = useState(false)

  const logout = useCallback(async ({ to = '/auth' }: { to?: '/auth' | '/' } = {}) => {
    setIsPending(true)
    setSigningOut(true)
    try {
      const { logOut } = await loadAuthRequests()
      await logOut()
    } catch {
      // The local sign-out below happens even if the server's fails.
    }
    try {
      await queryClient.cancelQueries()
      queryClient.clear()
      // Known signed out: /auth shows its forms without asking the server again.
      queryClient.setQueryData(authKeys.me, null)
      await navigate({ to })
    } finally {
      setSigningOut(false)
      setIsPending(false)
    }
  }, [navigate, queryClient])

  return { logout, isPending }
}
