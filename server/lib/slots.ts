import type { Redis } from 'ioredis'
import { withMemoryFallback } from './memory-fallback'

/**
 * Slots: at most so many holders of one key at once (the voice sockets of a client network or of a
 * person, a person's open event streams), counted across every server process and server (a cap per
 * process would let a client hold that many per process). Each holder takes its slot before it is
 * served and keeps it until it closes, renewing it while it lives; a slot that is not renewed (its
 * process died) lapses after its time, so a dead server never holds slots for good. In Redis when
 * it is configured; in memory otherwise.
 */
export type Slots = {
  /** True when `holder` now holds one of `max` slots of `key` (lapsed slots are freed first). */
  take(key: string, holder: string, max: number, ttlMs: number): Promise<boolean>
  /** Keeps `holder`'s slot (held again if it lapsed: the holder is still open, so it counts). */
  renew(key: string, holder: string, ttlMs: number): Promise<void>
  release(key: string, holder: string): Promise<void>
}

function memorySlots(now: () => number): Slots {
  const held = new Map<string, Map<string, number>>()
  const live = (key: string) => {
    const slots = held.get(key)
    if (!slots) return undefined
    for (const [holder, until] of slots) if (until <= now()) slots.delete(holder)
    return slots
  }
  const take = async (key: string, holder: string, max: number, ttlMs: number) => {
    const slots = live(key) ?? new Map<string, number>()
    if (!slots.has(holder) && slots.size >= max) return false
    slots.set(holder, now() + ttlMs)
    held.set(key, slots)
    return true
  }
  return {
    take,
    renew: async (key, holder, ttlMs) => void (await take(key, holder, Number.MAX_SAFE_INTEGER, ttlMs)),
    async release(key, holder) {
      const slots = held.get(key)
      slots?.delete(holder)
      if (slots?.size === 0) held.delete(key)
    },
  }
}

/**
 * One sorted set per key: holder → the time its slot lapses (Redis's own clock, so the servers'
 * clocks need not agree). The key itself expires with its last slot. A renewal is a take without a
 * cap (the holder is open, so it counts even if its slot lapsed).
 */
const TAKE = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[3]) then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
return 1`

export function redisSlots(redis: Redis, prefix: string): Slots {
  const take = async (key: string, holder: string, max: number, ttlMs: number) => (await redis.eval(TAKE, 1, prefix + key, holder, max, ttlMs)) === 1
  return {
    take,
    renew: async (key, holder, ttlMs) => void (await take(key, holder, Number.MAX_SAFE_INTEGER, ttlMs)),
    async release(key, holder) {
      await redis.zrem(prefix + key, holder)
    },
  }
}

/**
 * Slots shared by every server through Redis under `prefix` when `redis` is set, counted in this
 * process's memory while Redis cannot answer (ADR 034: a cap never fails open, nor fails the
 * request; `onRedisDown` is told each time); in memory only without Redis.
 */
export function sharedSlots(redis: Redis | undefined, prefix: string, now: () => number, onRedisDown: (error: Error) => void): Slots {
  return redis ? withMemoryFallback(redisSlots(redis, prefix), memorySlots(now), onRedisDown) : memorySlots(now)
}
