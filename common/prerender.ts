/**
 * The screens whose HTML is rendered at build time (docs/decisions/052): the build renders each
 * variant of each page into web/dist, and the server chooses which one a request gets. Every other
 * screen, and these ones when the request is one the prerendered HTML is not right for, gets the app
 * shell (index.html) and renders in the browser as before.
 */

/**
 * Who a prerendered HTML was rendered for. `signed-out`: no session (the server checked);
 * `signed-in`: a valid session (the browser confirms it with GET /api/me before it hydrates);
 * `anyone`: a page whose first paint does not depend on the session.
 */
export type PrerenderVariant = 'anyone' | 'signed-out' | 'signed-in'

export type PrerenderedPage = {
  path: '/' | '/auth'
  /** The variants rendered; more than one means the server checks the session cookie to choose. */
  variants: readonly PrerenderVariant[]
  /**
   * The query parameters the prerendered HTML is right for (their values do not change the first
   * paint); a request with any other gets the app shell. `any`: the page reads no query parameter.
   */
  query: 'any' | readonly string[]
}

export const PRERENDERED_PAGES: readonly PrerenderedPage[] = [
  // The landing page is the same for everyone; it reads no query (ads add utm_* parameters).
  { path: '/', variants: ['anyone'], query: 'any' },
  // /auth shows the sign-in tabs to a visitor and "You're signed in" to someone with a session,
  // on its way by the post-login routing. `returnTo` only matters after login; `tab`, `partner`
  // and the emailed links' `mode`/`token` change what shows, so those requests get the shell.
  { path: '/auth', variants: ['signed-out', 'signed-in'], query: ['returnTo'] },
]

/** Where a page's variant is written under web/dist (never served as a file by its own URL). */
export function prerenderedFile(path: PrerenderedPage['path'], variant: PrerenderVariant): string {
  const name = path === '/' ? 'index' : path.slice(1).replaceAll('/', '-')
  return `pages/${name}.${variant}.html`
}

/** The attribute on #root that tells the browser it holds prerendered HTML, and for whom. */
export const PRERENDER_ATTRIBUTE = 'data-prerendered'
