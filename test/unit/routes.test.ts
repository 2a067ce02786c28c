import { describe, expect, it } from 'vitest'
import { BROWSER_ROUTES, isBrowserRoute } from '#common/routes'

describe('isBrowserRoute', () => {
  it('knows every screen of the route map', () => {
    for (const route of BROWSER_ROUTES) expect(isBrowserRoute(route.replace('$courseId', 'abc'))).toBe(true)
    expect(isBrowserRoute('/courses/3f0c')).toBe(true)
    expect(isBrowserRoute('/dashboard/')).toBe(true)
  })

  it('does not know other paths', () => {
    for (const path of ['/nope', '/courses/a/b', '/debug', '/auth/x', '/api/health']) {
      expect(isBrowserRoute(path)).toBe(false)
    }
  })
})
