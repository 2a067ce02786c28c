import { spawn, type ChildProcess } from 'node:child_process'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { redisClusterBus, type ClusterBus, type SessionsEndedNotice } from '#server/services/cluster-bus'
import { freePort } from '../helpers/process'
import { createTestRedis, type TestRedis } from '../helpers/redis'

/**
 * The sessions-ended signal (a sign-out closes that session's voice sockets on every server): the
 * process that signs out tells itself at once and the others through Redis, once each, and a
 * process whose SUBSCRIBE failed (Redis away at its start) listens once Redis is back.
 */
let shared: TestRedis

beforeAll(async () => {
  shared = await createTestRedis()
})

afterAll(async () => {
  await shared?.destroy()
})

const busOn = (redis: Redis, prefix = shared.prefix) => redisClusterBus(redis, { prefix, now: () => Date.now(), onError: () => {} })

/** A listener that records each notice and lets a test wait for the next one. */
function recorder(bus: ClusterBus) {
  const heard: SessionsEndedNotice[] = []
  let waiting: ((notice: SessionsEndedNotice) => void) | undefined
  const subscription = bus.onSessionsEnded((notice) => {
    heard.push(notice)
    waiting?.(notice)
  })
  return { heard, subscription, next: () => new Promise<SessionsEndedNotice>((resolve) => (waiting = resolve)) }
}

describe('sessions ended, over Redis', () => {
  it('the publishing process hears it at once, every other process once through Redis, and none twice', async () => {
    const a = busOn(shared.redis)
    const b = busOn(shared.redis)
    try {
      const onA = recorder(a)
      const onB = recorder(b)
      await Promise.all([onA.subscription.ready, onB.subscription.ready])

      const toB = onB.next()
      await a.sessionsEnded({ sessionId: 's-1' })
      // At once on A, before any round trip through Redis.
      expect(onA.heard).toEqual([{ sessionId: 's-1' }])
      expect(await toB).toEqual({ sessionId: 's-1' })

      // B's notice reaches A after A's own message (Redis delivers a subscriber's messages in order):
      // had A taken its own back from the channel, it would be in the list before this one.
      const toA = onA.next()
      await b.sessionsEnded({ userId: 'u-1' })
      expect(await toA).toEqual({ userId: 'u-1' })
      expect(onA.heard).toEqual([{ sessionId: 's-1' }, { userId: 'u-1' }])
      expect(onB.heard).toEqual([{ sessionId: 's-1' }, { userId: 'u-1' }])
    } finally {
      await a.close()
      await b.close()
    }
  })

  it('while Redis is away the publishing process is still told; a SUBSCRIBE that failed is sent again once Redis is back', async () => {
    const port = await freePort()
    // The app's kind of connection, to a Redis that is not there yet.
    const redis = new Redis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false, retryStrategy: () => 50 })
    redis.on('error', () => {})
    redis.connect().catch(() => {})
    const bus = busOn(redis, 'live-bus-test:')
    let server: ChildProcess | undefined
    let publisher: Redis | undefined
    try {
      const listener = recorder(bus)
      await expect(listener.subscription.ready).rejects.toThrow()

      await bus.sessionsEnded({ sessionId: 's-away' })
      expect(listener.heard).toEqual([{ sessionId: 's-away' }])

      // Redis comes back: the subscriber connection reconnects and subscribes the channel again.
      server = spawn('redis-server', ['--port', String(port), '--save', '', '--appendonly', 'no'], { stdio: 'ignore' })
      publisher = new Redis({ host: '127.0.0.1', port, retryStrategy: () => 50 })
      publisher.on('error', () => {})
      // Another process's notice, published until this one hears it (its SUBSCRIBE is on its way).
      const heard = listener.next()
      let got: SessionsEndedNotice | undefined
      void heard.then((notice) => (got = notice))
      while (!got) {
        await publisher.publish('live-bus-test:~sessions-ended', JSON.stringify({ from: 'another-process', ended: { userId: 'u-back' } })).catch(() => 0)
        await Promise.race([heard, new Promise((resolve) => setImmediate(resolve))])
      }
      expect(got).toEqual({ userId: 'u-back' })
    } finally {
      await bus.close()
      redis.disconnect()
      publisher?.disconnect()
      server?.kill('SIGKILL')
    }
  })
})
