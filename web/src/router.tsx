import type { QueryClient } from '@tanstack/react-query'
import { createRouter } from '@tanstack/react-router'
import { PagePending, RouteError } from './components/route-feedback'
import { routeTree } from './routeTree.gen'

export function createAppRouter(queryClient: QueryClient) {
  const router = createRouter({
    routeTree,
    context: {
      queryClient,
      loadScreenCode: (pathname) => {
        for (const route of router.getMatchedRoutes(pathname)[0]) void router.loadRouteChunk(route)?.catch(() => undefined)
      },
    },
    // Preload on hover/focus; Query, not the router, decides when data is stale.
    defaultPreload: 'intent',
    defaultPreloadStaleTime: 0,
    defaultPendingComponent: PagePending,
    defaultErrorComponent: RouteError,
    // Unknown paths render the root route's notFoundComponent (routes/__root.tsx).
    scrollRestoration: true,
  })
  return router
}

declare module '@tanstack/react-router' {
  interface Register {
    router: ReturnType<typeof createAppRouter>
  }
}
