import { randomBytes } from 'node:crypto'
import { Redis } from 'ioredis'
import { inject } from 'vitest'

export type TestRedis = { redis: Redis; url: string; prefix: string; destroy(): Promise<void> }

/** A Redis connection and a key prefix of this file's own; its keys are deleted afterwards. */
export async function createTestRedis(): Promise<TestRedis> {
  const url = inject('redisUrl')
  if (!url) throw new Error('Redis is not available to this test run: start it on 127.0.0.1:6379 or set REDIS_URL')
  const prefix = `mc-test:${randomBytes(5).toString('hex')}:`
  const redis = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: true })
  await redis.ping()
  return {
    redis,
    url,
    prefix,
    async destroy() {
      let cursor = '0'
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500)
        cursor = next
        if (keys.length > 0) await redis.del(...keys)
      } while (cursor !== '0')
      await redis.quit()
    },
  }
}
