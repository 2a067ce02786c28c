import { describe, expect, it } from 'vitest'
import { BROWSER_ROUTES, isBrowserRoute } from '#common/routes'

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
  })

  it('does not know other paths', () => {
    for (const path of ['/nope', '/courses/a/b', '/debug', '/auth/x', '/api/health']) {
      expect(isBrowserRoute(path)).toBe(false)
    }
  })
})
