import { createRoot, hydrateRoot } from 'react-dom/client'
import { startTransition } from 'react'
import { PRERENDER_ATTRIBUTE, type PrerenderVariant } from '#common/prerender'
import { App } from './app'
import { authKeys, meQueryOptions } from './features/auth/api'
import { createQueryClient } from './lib/query-client'
import { createAppRouter, keepScrollOnFirstRender, type AppRouter } from './router'
import './styles/app.css'

const queryClient = createQueryClient()

/** Lets the browser run what waits (input, paint) before going on: starting is a few tasks, none long. */
const nextTask = () => new Promise((resolve) => setTimeout(resolve))

const rootElement = document.getElementById('root')
if (!rootElement) throw new Error('The #root element is missing from index.html')

/**
 * Whether the prerendered HTML in #root is what the app renders first here (docs/decisions/052).
 * `signed-out`: the server found no session when it sent the page, so the session is known (none)
 * and /auth needs no request before its form works. `signed-in`: the server found one; the page
 * says "You're signed in" and hydrates once GET /api/me agrees (if it does not, the app renders
 * from scratch, showing the form). Either way the route's code is loaded first, so the first render
 * is the page the HTML shows.
 */
async function canHydrate(router: AppRouter, variant: PrerenderVariant): Promise<boolean> {
  if (variant === 'signed-out') queryClient.setQueryData(authKeys.me, null)
  await router.load()
  if (variant !== 'signed-in') return true
  const user = await queryClient.ensureQueryData(meQueryOptions()).catch(() => undefined)
  return Boolean(user)
}

async function start(): Promise<void> {
  // The router's set-up (its route tree) is the heaviest part of starting: a task of its own,
  // between the evaluation of the app's modules and the loading of the route.
  await nextTask()
  const router = createAppRouter(queryClient)
  installRouteFocusLater(router)
  await nextTask()
  const variant = rootElement!.getAttribute(PRERENDER_ATTRIBUTE) as PrerenderVariant | null
  const app = <App router={router} queryClient={queryClient} />
  if (variant && (await canHydrate(router, variant).catch(() => false))) {
    // As after the router's own server rendering: the tree it renders then matches the server's.
    router.ssr = { manifest: undefined }
    keepScrollOnFirstRender()
    // A transition: hydration yields to the browser every few milliseconds instead of one long task.
    startTransition(() => {
      hydrateRoot(rootElement!, app)
    })
    return
  }
  createRoot(rootElement!).render(app)
}

/**
 * After a navigation between pages, focus goes to the new page's heading (features/navigation,
 * docs/decisions/048). Loaded after the first paint: a first load leaves focus to the browser.
 */
function installRouteFocusLater(router: AppRouter): void {
  import('./features/navigation/route-focus')
    .then(({ installRouteFocus }) => installRouteFocus(router))
    .catch((error: unknown) => console.warn('Focus management after navigation could not be loaded:', error))
}

void start()
