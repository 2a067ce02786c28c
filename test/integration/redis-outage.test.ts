import type { FastifyInstance } from 'fastify'
import type { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connectRedis } from '#server/app'
import { APP_ORIGIN, buildTestApp } from '../helpers/app'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { createTestRedis, type TestRedis } from '../helpers/redis'
import { insertUser } from '../helpers/factories'

/**
 * While Redis is away the limits hold: the route rate limits and the login throttle count in the
 * server's memory instead of letting every request through (or failing them).
 */
let database: TestDatabase
let testRedis: TestRedis
let redis: Redis
let app: FastifyInstance

beforeAll(async () => {
  database = await createTestDatabase()
  testRedis = await createTestRedis()
  // The app's own kind of connection (no offline queue), so commands fail at once when it is down.
  redis = await connectRedis(testRedis.url)
  app = await buildTestApp({
    database,
    redis,
    redisPrefix: testRedis.prefix,
    extend: (instance) => {
      instance.get('/api/test/limited', { config: { auth: 'none', rateLimit: { max: 2, timeWindow: '1 minute' } } }, async () => ({ ok: true }))
    },
  })
})

afterAll(async () => {
  await app?.close()
  redis?.disconnect()
  await testRedis?.destroy()
  await database?.destroy()
})

const limited = (ip: string) => app.inject({ method: 'GET', url: '/api/test/limited', headers: { 'x-forwarded-for': ip } })

describe('with Redis up', () => {
  it('counts in Redis, shared by every server', async () => {
    expect((await limited('198.51.100.1')).statusCode).toBe(200)
    expect(await testRedis.redis.keys(`${testRedis.prefix}rl:*`)).not.toHaveLength(0)
  })
})

describe('with Redis down', () => {
  beforeAll(async () => {
    const ended = new Promise((resolve) => redis.once('end', resolve))
    redis.disconnect()
    await ended
  })

  it('route limits fail closed: they count in memory and answer 429 past the limit', async () => {
    expect(redis.status).not.toBe('ready')
    const statuses = []
    for (let i = 0; i < 3; i++) statuses.push((await limited('198.51.100.2')).statusCode)
    expect(statuses).toEqual([200, 200, 429])
  })

  it('the login throttle still throttles (no 5xx, no unlimited guessing)', async () => {
    const user = await insertUser(app.db)
    const statuses: number[] = []
    for (let i = 0; i < 8; i++) {
      const response = await app.inject({
        method: 'POST',
        url: '/api/auth/login',
        headers: { origin: APP_ORIGIN, 'x-forwarded-for': `198.51.100.${10 + i}` },
        payload: { email: user.email, password: 'wrong-password-123' },
      })
      statuses.push(response.statusCode)
    }
    expect(statuses.filter((s) => s >= 500)).toEqual([])
    expect(statuses).toContain(429)
  })
})
