import { useQuery, type QueryClient } from '@tanstack/react-query'
import { ClientOnly, createRootRouteWithContext, Outlet } from '@tanstack/react-router'
import { lazy, Suspense, useEffect } from 'react'
import { NotFoundPage } from '#web/components/not-found'
import { meQueryOptions } from '#web/features/auth/api'
import { AccessPending } from '#web/features/auth/components/access-views'

export type RouterContext = {
  queryClient: QueryClient
  /** Starts fetching the code (the lazily loaded route components) of the screen at a path. */
  loadScreenCode: (pathname: string) => void
}

// The toast region is loaded after the first paint: no screen shows a toast before the
// user has done something, and sonner replays toasts created before it mounted.
const Toaster = lazy(() => import('#web/components/ui/sonner').then((module) => ({ default: module.Toaster })))
// The payment testing-mode banner, loaded only for a signed-in user (billing/testing-mode-banner).
const TestingModeBanner = lazy(() => import('#web/features/billing/testing-mode-banner'))

export const Route = createRootRouteWithContext<RouterContext>()({
  component: RootLayout,
  notFoundComponent: NotFoundPage,
  // The guard's beforeLoad (routes/_authenticated.tsx) waits for the server before the router
  // would fetch the screen's code, so start fetching it here, alongside. Having this to do also
  // makes the root the pending route of a first load: on a guarded screen, AccessPending says
  // 'Verifying access...' (spec 1 §2, §9) when the check takes longer than half a second (a
  // quicker answer shows no pending view at all), the spinner 500 ms after that; elsewhere it
  // shows nothing. Later navigations keep the current screen until the next one is ready.
  beforeLoad: ({ context, location }) => context.loadScreenCode(location.pathname),
  pendingComponent: AccessPending,
  pendingMs: 500,
  pendingMinMs: 0,
})

function RootLayout() {
  const { queryClient } = Route.useRouteContext()
  const signedIn = Boolean(useQuery({ ...meQueryOptions(), enabled: false }).data)
  // check-subscription after sign-in and on load; loaded after the first paint.
  useEffect(() => {
    let stop: (() => void) | undefined
    let cancelled = false
    void import('#web/features/billing/subscription-check').then((module) => {
      if (!cancelled) stop = module.startSubscriptionChecks(queryClient)
    })
    return () => {
      cancelled = true
      stop?.()
    }
  }, [queryClient])

  // Both lazily loaded parts wait for hydration on a prerendered page (docs/decisions/052): its HTML
  // has neither, and the banner shows only after the background check anyway.
  return (
    <>
      <ClientOnly>
        {signedIn ? (
          <Suspense fallback={null}>
            <TestingModeBanner />
          </Suspense>
        ) : null}
      </ClientOnly>
      <Outlet />
      <ClientOnly>
        <Suspense fallback={null}>
          <Toaster />
        </Suspense>
      </ClientOnly>
    </>
  )
}
