import type { FastifyRequest, RouteOptions } from 'fastify'

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

/**
 * A route's own rate limit, counted per signed-in user (its key is the user's id: the guard runs
 * first, at preValidation, so one busy person never slows another): `max` a minute, shared by
 * every route of the same `groupId`. `preHandler` counts only requests that passed validation
 * (for limits that guard costly work, such as checking a password).
 */
export function perUserLimit(groupId: string, max: number, hook: 'preValidation' | 'preHandler' = 'preValidation') {
  return { max, timeWindow: '1 minute', groupId, keyGenerator: (request: FastifyRequest) => request.user.id, hook }
}
