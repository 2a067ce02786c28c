import type { FastifyRequest } from 'fastify'

/**
 * The path a request is routed by. The router decodes percent-escapes (`/%61pi/auth/login` reaches
 * `/api/auth/login`), so checks that decide by path read the matched route's pattern, never the raw
 * URL; an unmatched request (404) falls back to its raw path.
 */
export function routedPath(request: FastifyRequest): string {
  return request.routeOptions.url ?? request.url
}

/** Whether the request is for the JSON API (rate limits, API security headers, CSRF). */
export function isApiRequest(request: FastifyRequest): boolean {
  return routedPath(request).startsWith('/api/')
}
