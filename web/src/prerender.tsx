/**
 * Renders a prerendered page (common/prerender.ts, docs/decisions/052) to HTML. Built by Vite as the
 * server-side entry and run by the build in Node (scripts/web-build/prerender.mjs), never in the browser.
 *
 * It renders the same tree as the browser (app.tsx) with the router on a memory history at the
 * page's URL, after the router has loaded the route (its code and loaders), so the browser's first
 * render, also after loading the route, is the same page.
 */
import { createMemoryHistory } from '@tanstack/react-router'
import { prerender } from 'react-dom/static'
import type { PrerenderVariant, PrerenderedPage } from '#common/prerender'
import { App } from './app'
import { PrerenderTitleContext } from './components/use-document-title'
import { authKeys, type SessionUser } from './features/auth/api'
import { createQueryClient } from './lib/query-client'
import { createAppRouter } from './router'

// What the build's prerender step (scripts/web-build/prerender.mjs) reads from this server build.
export { PRERENDER_ATTRIBUTE, PRERENDERED_PAGES, prerenderedFile } from '#common/prerender'

/**
 * The session user a `signed-in` variant is rendered with. The screens prerendered for a signed-in
 * visitor show only that someone is signed in (nothing of who), so no field of this is ever shown.
 */
const SOMEONE: SessionUser = {
  id: 'prerendered',
  email: '',
  fullName: '',
  phoneNumber: '',
  emailConfirmed: true,
  hasSubscription: false,
  hasCompletedPayment: false,
  hasOptedIn: false,
  subscriptionTier: null,
  subscriptionEnd: null,
  partnerProgram: 'GENERAL',
}

export type RenderedPage = {
  /** The markup of #root. */
  html: string
  /** The document title the page sets. */
  title: string
}

export async function renderPage(path: PrerenderedPage['path'], variant: PrerenderVariant): Promise<RenderedPage> {
  const queryClient = createQueryClient()
  // As the browser will know it: nothing (`anyone`: the page must not ask), or the server's answer.
  if (variant !== 'anyone') queryClient.setQueryData(authKeys.me, variant === 'signed-in' ? SOMEONE : null)
  const router = createAppRouter(queryClient, { prerender: { history: createMemoryHistory({ initialEntries: [path] }) } })
  await router.load()
  const failed = router.state.matches.find((match) => match.status !== 'success')
  if (failed) throw new Error(`prerender ${path} (${variant}): route ${failed.routeId} is ${failed.status}: ${String(failed.error)}`)

  let title = 'Momentum Coach'
  const errors: unknown[] = []
  const { prelude } = await prerender(
    <PrerenderTitleContext.Provider value={(pageTitle) => (title = pageTitle)}>
      <App router={router} queryClient={queryClient} />
    </PrerenderTitleContext.Provider>,
    { onError: (error) => void errors.push(error) },
  )
  const html = await new Response(prelude).text()
  if (errors.length > 0) throw new Error(`prerender ${path} (${variant}) failed: ${String(errors[0])}`)
  queryClient.clear()
  return { html, title }
}
