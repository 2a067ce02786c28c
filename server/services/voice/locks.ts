import type { Redis } from 'ioredis'

/**
 * At most one live voice call per user: a lease taken at `start`, renewed while the call lives,
 * released when it ends. In Redis when it is configured, so it holds across servers; in memory
 * otherwise. A lease that is not renewed (its server died) lapses after its time.
 */
export type VoiceLocks = {
  /** True when `owner` now holds the user's lease (it was free, or lapsed). */
  acquire(userId: string, owner: string, ttlMs: number): Promise<boolean>
  renew(userId: string, owner: string, ttlMs: number): Promise<void>
  release(userId: string, owner: string): Promise<void>
}

export function memoryLocks(now: () => number): VoiceLocks {
  const held = new Map<string, { owner: string; until: number }>()
  return {
    async acquire(userId, owner, ttlMs) {
      const lease = held.get(userId)
      if (lease && lease.owner !== owner && lease.until > now()) return false
      held.set(userId, { owner, until: now() + ttlMs })
      return true
    },
    async renew(userId, owner, ttlMs) {
      const lease = held.get(userId)
      if (lease?.owner === owner) lease.until = now() + ttlMs
      // Lapsed and not taken meanwhile: held again.
      else if (!lease || lease.until <= now()) held.set(userId, { owner, until: now() + ttlMs })
    },
    async release(userId, owner) {
      if (held.get(userId)?.owner === owner) held.delete(userId)
    },
  }
}

/** Extends the owner's lease; takes it again if it lapsed and nobody took it meanwhile. */
const RENEW = `local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
if not holder then return redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) and 1 end
return 0`
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`

export function redisLocks(redis: Redis, prefix: string): VoiceLocks {
  return {
    async acquire(userId, owner, ttlMs) {
      return (await redis.set(prefix + userId, owner, 'PX', ttlMs, 'NX')) === 'OK'
    },
    async renew(userId, owner, ttlMs) {
      await redis.eval(RENEW, 1, prefix + userId, owner, ttlMs)
    },
    async release(userId, owner) {
      await redis.eval(RELEASE, 1, prefix + userId, owner)
    },
  }
}
