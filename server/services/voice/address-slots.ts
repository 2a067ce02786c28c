import type { Redis } from 'ioredis'

/**
 * The voice sockets open from one client address, counted across every server process and server
 * (a cap per process would let an address hold that many per process). Each socket holds a slot
 * from before its upgrade until it closes, renewed while it lives; a slot that is not renewed (its
 * process died) lapses after its time. In Redis when it is configured; in memory otherwise.
 */
export type AddressSlots = {
  /** True when `holder` now holds one of `max` slots of `ip` (lapsed slots are freed first). */
  take(ip: string, holder: string, max: number, ttlMs: number): Promise<boolean>
  /** Keeps `holder`'s slot (held again if it lapsed: the socket is open, so it counts). */
  renew(ip: string, holder: string, ttlMs: number): Promise<void>
  release(ip: string, holder: string): Promise<void>
}

export function memoryAddressSlots(now: () => number): AddressSlots {
  const held = new Map<string, Map<string, number>>()
  const live = (ip: string) => {
    const slots = held.get(ip)
    if (!slots) return undefined
    for (const [holder, until] of slots) if (until <= now()) slots.delete(holder)
    return slots
  }
  const take = async (ip: string, holder: string, max: number, ttlMs: number) => {
    const slots = live(ip) ?? new Map<string, number>()
    if (!slots.has(holder) && slots.size >= max) return false
    slots.set(holder, now() + ttlMs)
    held.set(ip, slots)
    return true
  }
  return {
    take,
    renew: async (ip, holder, ttlMs) => void (await take(ip, holder, Number.MAX_SAFE_INTEGER, ttlMs)),
    async release(ip, holder) {
      const slots = held.get(ip)
      slots?.delete(holder)
      if (slots?.size === 0) held.delete(ip)
    },
  }
}

/**
 * One sorted set per address: holder → the time its slot lapses (Redis's own clock, so the servers'
 * clocks need not agree). The key itself expires with its last slot. A renewal is a take without a
 * cap (the socket is open, so it counts even if its slot lapsed).
 */
const TAKE = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[3]) then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
return 1`

export function redisAddressSlots(redis: Redis, prefix: string): AddressSlots {
  const take = async (ip: string, holder: string, max: number, ttlMs: number) => (await redis.eval(TAKE, 1, prefix + ip, holder, max, ttlMs)) === 1
  return {
    take,
    renew: async (ip, holder, ttlMs) => void (await take(ip, holder, Number.MAX_SAFE_INTEGER, ttlMs)),
    async release(ip, holder) {
      await redis.zrem(prefix + ip, holder)
    },
  }
}
