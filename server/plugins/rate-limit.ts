import { isIPv4 } from 'node:net'
import rateLimit, { normalizeIP, type FastifyRateLimitStore, type RateLimitOptions as StoreOptions } from '@fastify/rate-limit'
import { format } from '@lukeed/ms'
import type { onRequestHookHandler } from 'fastify'
import fp from 'fastify-plugin'
import { AppError } from '../lib/app-error'
import { memoryStore, redisWithMemoryFallback } from '../lib/rate-limit-store'
import { addRouteHook, isApiPath } from '../lib/route-hooks'
import { throttledWarn } from '../lib/throttled-warn'

type RateLimitOptions = {
  /** Requests per minute per IP for any route without its own limit. */
  globalMax?: number
  /** Key prefix in Redis, so test files and deployments sharing a Redis never collide. */
  nameSpace?: string
}

const GLOBAL_WINDOW_MS = 60_000
/** IPv6 clients are counted per /64 (the library's default, and `clientNetwork`'s). */
const IPV6_SUBNET = 64

const tooManyRequests = (after: string) => new AppError('RATE_LIMITED', `Too many requests. Please try again in ${after}.`)

/**
 * Rate limiting for every route (routes tighten it with `config.rateLimit`). Counters live in Redis
 * when REDIS_URL is set, so every server shares them (in memory while Redis is unreachable: a limit
 * never fails open); in memory otherwise. IPv6 clients are counted per /64.
 *
 * The global limit (API routes without a limit of their own) is counted by a callback hook of ours
 * on the library's own store, with the library's key, window, headers and error: the library's hook
 * is three nested promises deep, which every request paid for (`npm run bench -- me`, ADR 037),
 * while the in-memory store answers at once. Routes with their own limit use the library's hook.
 */
export default fp<RateLimitOptions>(
  async (app, options) => {
    const globalMax = options.globalMax ?? 1000
    if (!Number.isInteger(globalMax) || globalMax < 1) throw new Error('rate-limit: globalMax must be a positive integer')
    const warnOnce = throttledWarn(app.log, 'rate limits: Redis is unavailable, counting in memory until it is back')
    // Never fails open: while Redis is away each server counts in its own memory.
    const Store = app.redis ? redisWithMemoryFallback(app.redis, options.nameSpace ?? 'mc:rl:', warnOnce) : undefined
    // The global counters: the store the library would have made for them (Redis keys are the
    // namespace and the client's address, as before).
    const globalStore: FastifyRateLimitStore = Store
      ? new Store({ continueExceeding: false, exponentialBackoff: false } satisfies StoreOptions)
      : memoryStore()
    const globalLimit: onRequestHookHandler = function globalRateLimit(request, reply, done) {
      const ip = request.ip
      globalStore.incr(
        // The library's key: a dotted IPv4 address is its own key (normalizeIP would first try it
        // against Node's IPv6 pattern, a long regular expression, on every request).
        isIPv4(ip) ? ip : normalizeIP(ip, IPV6_SUBNET),
        (error, result) => {
          if (error || !result) return done(error ?? new Error('rate-limit: the store gave no count'))
          if (result.current <= globalMax) return done()
          // What the library sends past a limit: the counters, Retry-After, and its error.
          const seconds = Math.ceil(result.ttl / 1000)
          reply.header('x-ratelimit-limit', globalMax)
          reply.header('x-ratelimit-remaining', 0)
          reply.header('x-ratelimit-reset', seconds)
          reply.header('retry-after', seconds)
          done(tooManyRequests(format(seconds * 1000, true)))
        },
        GLOBAL_WINDOW_MS,
        globalMax,
      )
    }
    // The limit guards the API, decided once per route here (before the limiter's own onRoute hook
    // runs), not per request. The web app's HTML and hashed assets are static, cheap to serve and
    // fetched ~25 at a time per page; unknown paths have their own limit (web-app plugin). A route
    // with a limit of its own (`config.rateLimit`) is counted by that one only.
    app.addHook('onRoute', (route) => {
      if (!isApiPath(route.url)) route.config = { ...route.config, rateLimit: false }
      else if (route.config?.rateLimit == null) addRouteHook(route, 'onRequest', globalLimit, 'last')
    })
    await app.register(rateLimit, {
      global: false,
      max: globalMax,
      timeWindow: '1 minute',
      ...(Store ? { store: Store } : {}),
      errorResponseBuilder: (_request, context) => tooManyRequests(context.after),
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
