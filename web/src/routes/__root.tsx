import type { QueryClient } from '@tanstack/react-query'
import { createRootRouteWithContext, Outlet } from '@tanstack/react-router'
import { lazy, Suspense, useEffect } from 'react'
import { NotFoundPage } from '../components/not-found'

export type RouterContext = {
  queryClient: QueryClient
}

// The toast region is loaded after the first paint: no screen shows a toast before the
// user has done something, and sonner replays toasts created before it mounted.
const Toaster = lazy(() => import('../components/ui/sonner').then((module) => ({ default: module.Toaster })))

export const Route = createRootRouteWithContext<RouterContext>()({
  component: RootLayout,
  notFoundComponent: NotFoundPage,
})

function RootLayout() {
  const { queryClient } = Route.useRouteContext()
  // check-subscription after sign-in and on load (spec 1 §4); loaded after the first paint.
  useEffect(() => {
    let stop: (() => void) | undefined
    let cancelled = false
    void import('../features/billing/subscription-check').then((module) => {
      if (!cancelled) stop = module.startSubscriptionChecks(queryClient)
    })
    return () => {
      cancelled = true
      stop?.()
    }
  }, [queryClient])

  return (
    <>
      <Outlet />
      <Suspense fallback={null}>
        <Toaster />
      </Suspense>
    </>
  )
}
