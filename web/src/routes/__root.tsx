import type { QueryClient } from '@tanstack/react-query'
import { createRootRouteWithContext, Outlet } from '@tanstack/react-router'
import { lazy, Suspense } from 'react'
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
  return (
    <>
      <Outlet />
      <Suspense fallback={null}>
        <Toaster />
      </Suspense>
    </>
  )
}
