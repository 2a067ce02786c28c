import type { Redis } from 'ioredis'

export type Hit = { count: number; resetAt: number }

/**
 * Fixed-window counters for limits the route-level rate limiter cannot express (per account,
 * progressive). In Redis when it is configured, so every server shares them; in memory otherwise.
 */
export type Counters = {
  /** Adds one to `key` in a window of `windowMs` and returns the count and when the window ends. */
  hit(key: string, windowMs: number): Promise<Hit>
  get(key: string): Promise<Hit | undefined>
  reset(key: string): Promise<void>
}

const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return { count, redis.call('PTTL', KEYS[1]) }`

export function redisCounters(redis: Redis, prefix: string, now: () => number): Counters {
  return {
    async hit(key, windowMs) {
      const [count, ttl] = (await redis.eval(HIT_SCRIPT, 1, prefix + key, windowMs)) as [number, number]
      return { count, resetAt: now() + Math.max(ttl, 0) }
    },
    async get(key) {
      const [value, ttl] = await Promise.all([redis.get(prefix + key), redis.pttl(prefix + key)])
      return value === null ? undefined : { count: Number(value), resetAt: now() + Math.max(ttl, 0) }
    },
    async reset(key) {
      await redis.del(prefix + key)
    },
  }
}

export function memoryCounters(now: () => number): Counters {
  const store = new Map<string, Hit>()
  const live = (key: string) => {
    const entry = store.get(key)
    if (entry && entry.resetAt <= now()) {
      store.delete(key)
      return undefined
    }
    return entry
  }
  return {
    async hit(key, windowMs) {
      const entry = live(key) ?? { count: 0, resetAt: now() + windowMs }
      entry.count += 1
      store.set(key, entry)
      if (store.size > 100_000) for (const k of store.keys()) if (!live(k)) store.delete(k)
      return { ...entry }
    },
    async get(key) {
      const entry = live(key)
      return entry && { ...entry }
    },
    async reset(key) {
      store.delete(key)
    },
  }
}
