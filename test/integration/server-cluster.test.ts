import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { createTestDatabase, hasPostgres, type TestDatabase } from '../helpers/db'
import { freePort, spawnEntry, type Spawned } from '../helpers/process'

/**
 * WEB_CONCURRENCY: the real entry (server/index.ts) as `npm start` runs it, supervising server
 * processes that share one port, on PostgreSQL and Redis. Redis's logical database 13 is this
 * file's own (the processes use the product's key prefix), emptied before and after.
 */
const REDIS_DB = 13
const redisUrl = () => `${inject('redisUrl')}/${REDIS_DB}`

const readyPids = (server: Spawned) =>
  [...server.output().matchAll(/"pid":(\d+)[^\n]*"msg":"server process ready"/g)].map((match) => Number(match[1]))

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

describe.runIf(hasPostgres())('server processes (WEB_CONCURRENCY)', () => {
  let database: TestDatabase
  let redis: Redis

  beforeAll(async () => {
    database = await createTestDatabase()
    redis = new Redis(redisUrl(), { maxRetriesPerRequest: 1 })
    await redis.flushdb()
  })

  afterAll(async () => {
    await redis?.flushdb()
    await redis?.quit()
    await database?.destroy()
  })

  it('refuses more than one process without DATABASE_URL and REDIS_URL, naming WEB_CONCURRENCY', async () => {
    const server = spawnEntry('server/index.ts', { WEB_CONCURRENCY: '2', PORT: String(await freePort()) })
    const { code } = await server.exited
    expect(code).toBe(1)
    const lines = server.output().trim().split('\n')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toContain('WEB_CONCURRENCY')
    expect(lines[0]).toContain('DATABASE_URL and REDIS_URL')
  })

  it('refuses a value that is not a whole number from 1 to 64', async () => {
    for (const value of ['0', 'two', '65']) {
      const server = spawnEntry('server/index.ts', { WEB_CONCURRENCY: value })
      expect((await server.exited).code).toBe(1)
      expect(server.output()).toContain('WEB_CONCURRENCY must be a whole number from 1 to 64')
    }
  })

  it('serves from two processes on one port, replaces one that dies, and on SIGTERM stops them all and exits 0', async () => {
    const port = await freePort()
    const metricsPort = await freePort()
    const origin = `http://127.0.0.1:${port}`
    const server = spawnEntry('server/index.ts', {
      PORT: String(port),
      APP_URL: origin,
      DATABASE_URL: database.url,
      REDIS_URL: redisUrl(),
      WEB_CONCURRENCY: '2',
      METRICS_PORT: String(metricsPort),
    })
    try {
      await server.waitFor(/Momentum Coach is ready/, 60_000)
      // Each process writes its log lines in batches (at most a second later).
      await expect.poll(() => new Set(readyPids(server)).size, { timeout: 10_000, interval: 50 }).toBe(2)
      const pids = readyPids(server)
      expect(server.output()).toMatch(/"processes":2[^\n]*"msg":"Momentum Coach is ready"/)
      expect(server.output().match(/Momentum Coach is ready/g)).toHaveLength(1)

      // A person signs up on one process and is known on the other: new connections go to each in turn.
      const password = 'steady-maple-lantern-42'
      const signup = await fetch(`${origin}/api/auth/signup`, {
        method: 'POST',
        headers: { origin, 'content-type': 'application/json', connection: 'close' },
        body: JSON.stringify({ fullName: 'Dana Reyes', email: 'dana@example.com', phoneNumber: '2025234567', password, confirmPassword: password, communicationConsent: true, termsAccepted: true }),
      })
      expect(signup.status).toBe(201)
      const cookie = signup.headers.getSetCookie()[0]!.split(';')[0]!
      for (let i = 0; i < 4; i++) {
        const me = await fetch(`${origin}/api/me`, { headers: { cookie, connection: 'close' } })
        expect(me.status).toBe(200)
      }

      // The supervisor serves one scrape of both processes: the four requests, wherever they went,
      // added up; a fleet-wide gauge once, at its value (not doubled).
      const scrape = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text()
      expect(scrape).toMatch(/^momentum_http_request_duration_seconds_count\{route="\/api\/me",method="GET",status_class="2xx"\} 4$/m)
      expect(scrape).toMatch(/^momentum_vapi_lines_limit 10$/m)
      expect(server.output()).toMatch(/"processes":2[^\n]*"msg":"metrics of every server process served at \/metrics"/)

      // One process dies: the other goes on serving, and the supervisor starts a replacement.
      process.kill(pids[0]!, 'SIGKILL')
      await server.waitFor(/a server process exited; replacing it/)
      for (let i = 0; i < 4; i++) expect((await fetch(`${origin}/api/health`, { headers: { connection: 'close' } })).status).toBe(200)
      await expect.poll(() => readyPids(server).length, { timeout: 60_000, interval: 100 }).toBe(3)
      const replacement = readyPids(server)[2]!
      expect(pids).not.toContain(replacement)

      server.child.kill('SIGTERM')
      expect((await server.exited).code).toBe(0)
      for (const pid of [pids[1]!, replacement]) expect(alive(pid)).toBe(false)
      expect(server.output()).toMatch(/shutting down: telling every server process/)
    } finally {
      if (server.child.exitCode === null) server.child.kill('SIGKILL')
      for (const pid of readyPids(server)) if (alive(pid)) process.kill(pid, 'SIGKILL')
    }
  }, 120_000)
})
