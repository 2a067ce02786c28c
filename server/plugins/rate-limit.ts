import rateLimit from '@fastify/rate-limit'
import fp from 'fastify-plugin'
import { AppError } from '../lib/app-error'
import { redisWithMemoryFallback } from '../lib/rate-limit-store'
import { isApiPath } from '../lib/route-hooks'

export type RateLimitOptions = {
  /** Requests per minute per IP for any route without its own limit. */
  globalMax?: number
  /** Key prefix in Redis, so test files and deployments sharing a Redis never collide. */
  nameSpace?: string
}

/**
 * Rate limiting for every route (routes tighten it with `config.rateLimit`). Counters live in Redis
 * when REDIS_URL is set, so every server shares them (in memory while Redis is unreachable: a limit
 * never fails open); in memory otherwise. IPv6 clients are counted per /64.
 */
export default fp<RateLimitOptions>(
  async (app, options) => {
    const globalMax = options.globalMax ?? 1000
    if (!Number.isInteger(globalMax) || globalMax < 1) throw new Error('rate-limit: globalMax must be a positive integer')
    let warnedAt = 0
    const warnOnce = (error: Error) => {
      const now = Date.now()
      if (now - warnedAt < 60_000) return
      warnedAt = now
      app.log.warn({ err: error }, 'rate limits: Redis is unavailable, counting in memory until it is back')
    }
    // The limit guards the API, decided once per route here (before the limiter's own onRoute hook
    // runs), not per request. The web app's HTML and hashed assets are static, cheap to serve and
    // fetched ~25 at a time per page; unknown paths have their own limit (web-app plugin).
    app.addHook('onRoute', (route) => {
      if (!isApiPath(route.url)) route.config = { ...route.config, rateLimit: false }
    })
    await app.register(rateLimit, {
      global: true,
      max: globalMax,
      timeWindow: '1 minute',
      // Never fails open: while Redis is away each server counts in its own memory.
      ...(app.redis ? { store: redisWithMemoryFallback(app.redis, options.nameSpace ?? 'mc:rl:', warnOnce) } : {}),
      errorResponseBuilder: (_request, context) => {
        const error = new AppError('RATE_LIMITED', `Too many requests. Please try again in ${context.after}.`)
        return error
      },
      // The counters are told only when they matter: on a 429, with Retry-After. Sending three more
      // headers on every successful response cost every request (`npm run bench -- me`), and no
      // client of ours reads them.
      addHeadersOnExceeding: { 'x-ratelimit-limit': false, 'x-ratelimit-remaining': false, 'x-ratelimit-reset': false },
      addHeaders: {
        'x-ratelimit-limit': true,
        'x-ratelimit-remaining': true,
        'x-ratelimit-reset': true,
        'retry-after': true,
      },
    })
  },
  { name: 'rate-limit', dependencies: ['context'] },
)
