import { createRequire } from 'node:module'
import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor, RateLimitOptions } from '@fastify/rate-limit'
import type { Redis } from 'ioredis'

const require = createRequire(import.meta.url)
type StoreCtor = new (...args: unknown[]) => FastifyRateLimitStore
// The library's own stores (not in its typed exports; their contract is FastifyRateLimitStore).
const RedisStore = require('@fastify/rate-limit/store/RedisStore.js') as StoreCtor
const LocalStore = require('@fastify/rate-limit/store/LocalStore.js') as StoreCtor

type Incr = FastifyRateLimitStore['incr']

/** The library's in-memory store, as it makes it when given no store (an LRU of 5,000 keys). */
export function memoryStore(): FastifyRateLimitStore {
  return new LocalStore(false, false, undefined)
}

/**
 * A rate-limit store that counts in Redis and, while Redis cannot answer, in this process's memory:
 * a limit never fails open (every server then limits on its own until Redis is back).
 * `onFallback` hears each failure, e.g. to log it.
 */
export function redisWithMemoryFallback(redis: Redis, nameSpace: string, onFallback: (error: Error) => void): FastifyRateLimitStoreCtor {
  function make(primary: FastifyRateLimitStore, fallback: FastifyRateLimitStore): FastifyRateLimitStore {
    const incr: Incr = (key, callback, timeWindow, max) => {
      primary.incr(
        key,
        (error, result) => {
          if (!error) return callback(null, result)
          onFallback(error)
          fallback.incr(key, callback, timeWindow, max)
        },
        timeWindow,
        max,
      )
    }
    return {
      incr,
      child: (routeOptions) => make(primary.child(routeOptions), fallback.child(routeOptions)),
    }
  }
  return function FallbackStore(this: unknown, options: RateLimitOptions) {
    return make(
      new RedisStore(options.continueExceeding, options.exponentialBackoff, redis, nameSpace),
      new LocalStore(options.continueExceeding, options.exponentialBackoff, options.cache),
    )
  } as unknown as FastifyRateLimitStoreCtor
}
