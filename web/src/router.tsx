import type { QueryClient } from '@tanstack/react-query'
import { createRouter, type RouterHistory } from '@tanstack/react-router'
import { PagePending, RouteError } from './components/route-feedback'
import { routeTree } from './routeTree.gen'

type AppRouterOptions = {
  /** Prerendering at build time (prerender.tsx): a memory history at the page's URL, rendered on the server. */
  prerender?: { history: RouterHistory }
}

/**
 * Set while a prerendered page hydrates (main.tsx): the visitor may have scrolled it already, so
 * its first render leaves the scroll where it is instead of the router's reset to the top.
 */
let keepScrollOnce = false
export function keepScrollOnFirstRender(): void {
  keepScrollOnce = true
}
function restoreScroll(): boolean {
  const restore = !keepScrollOnce
  keepScrollOnce = false
  return restore
}

export function createAppRouter(queryClient: QueryClient, { prerender }: AppRouterOptions = {}) {
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
    // Scroll restoration: not while prerendering, where it would write an inline script (the CSP refuses those).
    scrollRestoration: prerender ? false : restoreScroll,
    ...(prerender ? { history: prerender.history, isServer: true } : {}),
  })
  return router
}

export type AppRouter = ReturnType<typeof createAppRouter>

declare module '@tanstack/react-router' {
  interface Register {
    router: AppRouter
  }
}
