import type { RouteOptions } from 'fastify'

/** Whether a path (a route's pattern, or a request's path) belongs to the JSON API. */
export const isApiPath = (path: string) => path === '/api' || path.startsWith('/api/')

type HookName = 'onRequest' | 'preValidation'

/**
 * Adds a hook to one route from an `onRoute` hook: the decision of what a route needs is made once,
 * when it is registered, instead of on every request. `first` runs it before the route's other
 * hooks of that kind, `last` after them.
 */
export function addRouteHook(route: RouteOptions, name: HookName, hook: unknown, at: 'first' | 'last'): void {
  const existing = route[name] as unknown
  const list = existing === undefined ? [] : Array.isArray(existing) ? existing : [existing]
  ;(route as Record<HookName, unknown>)[name] = at === 'first' ? [hook, ...list] : [...list, hook]
}
