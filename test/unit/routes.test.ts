import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { BROWSER_ROUTES, isBrowserRoute } from '#common/routes'

/** Every full path of the web app's route tree (TanStack Router's generated file). */
function webRoutePaths(): string[] {
  const tree = readFileSync(new URL('../../web/src/routeTree.gen.ts', import.meta.url), 'utf8')
  const union = /fullPaths:\s*((?:\|\s*'[^']*'\s*)+)/.exec(tree)
  if (!union) throw new Error('no fullPaths in web/src/routeTree.gen.ts')
  return [...union[1]!.matchAll(/'([^']*)'/g)].map((match) => match[1]!)
}

describe('isBrowserRoute', () => {
  it('knows every screen of the route map', () => {
    for (const route of BROWSER_ROUTES) expect(isBrowserRoute(route.replace('$courseId', 'abc'))).toBe(true)
    expect(isBrowserRoute('/courses/3f0c')).toBe(true)
    expect(isBrowserRoute('/dashboard/')).toBe(true)
  })

  it('knows the screens issues added: the weekly reports, the unsubscribe page, the progress charts and the account page', () => {
    for (const path of ['/reports', '/reports/2026-11-29', '/unsubscribe', '/progress', '/progress/', '/account']) expect(isBrowserRoute(path)).toBe(true)
    expect(isBrowserRoute('/reports/2026-11-29/x')).toBe(false)
    expect(isBrowserRoute('/progress/2026')).toBe(false)
    expect(isBrowserRoute('/account/delete')).toBe(false)
  })

  it('knows every route of the web app, so each loads directly by URL with a 200', () => {
    const paths = webRoutePaths()
    expect(paths.length).toBeGreaterThan(10)
    for (const path of paths) expect(isBrowserRoute(path.replace(/\$[A-Za-z]+/g, 'x1')), path).toBe(true)
  })

  it('does not know other paths', () => {
    for (const path of ['/nope', '/courses/a/b', '/debug', '/auth/x', '/api/health']) {
      expect(isBrowserRoute(path)).toBe(false)
    }
  })
})
