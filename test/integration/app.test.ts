import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { ErrorBodySchema } from '#common/errors'
import { HealthResponseSchema } from '#common/health'
import { PlansResponseSchema } from '#common/plans'
import { buildTestApp } from '../helpers/app'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { createTestRedis, type TestRedis } from '../helpers/redis'

const SAME_ORIGIN = { origin: 'http://localhost:3000' }

let database: TestDatabase
let redis: TestRedis
let app: FastifyInstance
let webRoot: string

beforeAll(async () => {
  database = await createTestDatabase()
  redis = await createTestRedis()
  webRoot = mkdtempSync(join(tmpdir(), 'mc-web-'))
  mkdirSync(join(webRoot, 'assets'))
  writeFileSync(join(webRoot, 'index.html'), '<!doctype html><html lang="en"><body><div id="root"></div></body></html>')
  writeFileSync(join(webRoot, 'assets', 'index-abc123.js'), 'console.log("app")')
  app = await buildTestApp({
    database,
    redis: redis.redis,
    redisPrefix: redis.prefix,
    webRoot,
    extend: (instance) => {
      instance.withTypeProvider<ZodTypeProvider>().post(
        '/api/test/echo',
        { schema: { body: z.object({ email: z.string().email(), age: z.number().int().min(1) }) }, config: { auth: 'none' } },
        async (request) => ({ ok: true, email: request.body.email }),
      )
      instance.get('/api/test/boom', { config: { auth: 'none' } }, async () => {
        throw new Error('secret internals at /srv/app.ts:12')
      })
      instance.get('/api/test/limited', { config: { auth: 'none', rateLimit: { max: 2, timeWindow: '1 minute' } } }, async () => ({
        ok: true,
      }))
    },
  })
})

afterAll(async () => {
  await app?.close()
  await redis?.destroy()
  await database?.destroy()
})

describe('GET /api/health', () => {
  it('answers ok with the state of the database and Redis', async () => {
    const response = await app.inject({ method: 'GET', url: '/api/health' })
    expect(response.statusCode).toBe(200)
    const body = HealthResponseSchema.parse(response.json())
    expect(body.status).toBe('ok')
    expect(body.database.state).toBe('up')
    expect(body.redis.state).toBe('up')
  })

  it('answers 503 when the database is unreachable', async () => {
    const broken = await createTestDatabase()
    const brokenApp = await buildTestApp({ database: broken })
    await broken.close()
    const response = await brokenApp.inject({ method: 'GET', url: '/api/health' })
    expect(response.statusCode).toBe(503)
    expect(response.json()).toMatchObject({ status: 'degraded', database: { state: 'down' } })
    await brokenApp.close()
    await broken.destroy()
  })
})

describe('errors', () => {
  it('answers unknown /api paths with 404 JSON in the contract shape', async () => {
    for (const method of ['GET', 'POST', 'DELETE'] as const) {
      const response = await app.inject({ method, url: '/api/does-not-exist', headers: { origin: 'http://localhost:3000' } })
      expect(response.statusCode).toBe(404)
      expect(response.headers['content-type']).toMatch(/application\/json/)
      expect(ErrorBodySchema.parse(response.json()).error.code).toBe('NOT_FOUND')
    }
  })

  it('refuses an invalid body with 400 naming the field', async () => {
    const response = await app.inject({ method: 'POST', url: '/api/test/echo', headers: SAME_ORIGIN, payload: { email: 'nope', age: 3 } })
    expect(response.statusCode).toBe(400)
    const body = ErrorBodySchema.parse(response.json())
    expect(body.error.code).toBe('VALIDATION_FAILED')
    expect(body.error.field).toBe('email')
    expect(body.error.message).toContain('email')

    const missing = await app.inject({ method: 'POST', url: '/api/test/echo', headers: SAME_ORIGIN, payload: { email: 'a@b.co' } })
    expect(missing.statusCode).toBe(400)
    expect(ErrorBodySchema.parse(missing.json()).error.field).toBe('age')
  })

  it('refuses malformed JSON with 400, not 500', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/api/test/echo',
      headers: { 'content-type': 'application/json', ...SAME_ORIGIN },
      payload: '{"email":',
    })
    expect(response.statusCode).toBe(400)
    expect(ErrorBodySchema.parse(response.json()).error.code).toBe('BAD_REQUEST')
  })

  it('never leaks a stack trace or internal message', async () => {
    const response = await app.inject({ method: 'GET', url: '/api/test/boom' })
    expect(response.statusCode).toBe(500)
    const body = ErrorBodySchema.parse(response.json())
    expect(body.error.code).toBe('INTERNAL')
    expect(response.body).not.toContain('secret internals')
    expect(response.body).not.toContain('.ts:')
  })
})

describe('rate limiting (Redis store)', () => {
  it('answers 429 with Retry-After past the limit', async () => {
    const first = await app.inject({ method: 'GET', url: '/api/test/limited' })
    const second = await app.inject({ method: 'GET', url: '/api/test/limited' })
    const third = await app.inject({ method: 'GET', url: '/api/test/limited' })
    expect([first.statusCode, second.statusCode]).toEqual([200, 200])
    expect(third.statusCode).toBe(429)
    expect(Number(third.headers['retry-after'])).toBeGreaterThan(0)
    expect(ErrorBodySchema.parse(third.json()).error.code).toBe('RATE_LIMITED')
    const keys = await redis.redis.keys(`${redis.prefix}*`)
    expect(keys.length).toBeGreaterThan(0)
  })

  it('limits a percent-encoded path like the plain one (the router decodes it)', async () => {
    const responses = []
    for (let i = 0; i < 3; i++) {
      responses.push(await app.inject({ method: 'GET', url: '/%61pi/test/limited', headers: { 'x-forwarded-for': '10.77.0.1' } }))
    }
    expect(responses.map((r) => r.statusCode)).toEqual([200, 200, 429])
    expect(responses[0]!.headers['content-security-policy']).toBe("default-src 'none';frame-ancestors 'none'")
    // Counted by the route's own limit only, not by the global one too.
    expect(await redis.redis.exists(`${redis.prefix}rl:10.77.0.1`)).toBe(0)
  })
})

describe('the global rate limit (Redis store)', () => {
  it('allows 1,000 requests a minute per client address on a route without its own limit, then 429 with its headers', async () => {
    const from = (ip: string) => app.inject({ method: 'GET', url: '/api/plans', headers: { 'x-forwarded-for': ip } })
    const statuses = new Set<number>()
    for (let i = 0; i < 1000; i++) statuses.add((await from('10.88.0.1')).statusCode)
    expect([...statuses]).toEqual([200])
    const refused = await from('10.88.0.1')
    expect(refused.statusCode).toBe(429)
    expect(refused.headers['x-ratelimit-limit']).toBe('1000')
    expect(refused.headers['x-ratelimit-remaining']).toBe('0')
    const reset = Number(refused.headers['x-ratelimit-reset'])
    expect(reset).toBeGreaterThan(0)
    expect(reset).toBeLessThanOrEqual(60)
    expect(refused.headers['retry-after']).toBe(String(reset))
    expect(refused.headers['content-security-policy']).toBe("default-src 'none';frame-ancestors 'none'")
    const body = ErrorBodySchema.parse(refused.json())
    expect(body.error.code).toBe('RATE_LIMITED')
    expect(body.error.message).toMatch(/^Too many requests\. Please try again in (1 minute|\d+ seconds?)\.$/)
    // Counted in Redis, under the rate-limit namespace and the address.
    expect(Number(await redis.redis.get(`${redis.prefix}rl:10.88.0.1`))).toBe(1001)
    // Another address has its own allowance; a 2xx carries no counters.
    const other = await from('10.88.0.2')
    expect(other.statusCode).toBe(200)
    expect(other.headers['x-ratelimit-limit']).toBeUndefined()
    expect(other.headers['retry-after']).toBeUndefined()
  })
})

describe('security headers', () => {
  it('sends a Content-Security-Policy and the usual hardening headers', async () => {
    const response = await app.inject({ method: 'GET', url: '/' })
    const csp = String(response.headers['content-security-policy'])
    expect(csp).toContain("default-src 'self'")
    expect(csp).toContain("object-src 'none'")
    expect(csp).toContain("frame-ancestors 'none'")
    expect(csp).toContain('https://www.youtube-nocookie.com')
    expect(response.headers['x-content-type-options']).toBe('nosniff')
  })

  it('gives JSON API responses the REST set: a CSP that allows nothing, nosniff, no framing', async () => {
    const response = await app.inject({ method: 'GET', url: '/api/plans' })
    expect(response.statusCode).toBe(200)
    expect(response.headers['content-security-policy']).toBe("default-src 'none';frame-ancestors 'none'")
    expect(response.headers['x-content-type-options']).toBe('nosniff')
    expect(response.headers['x-frame-options']).toBe('DENY')
    expect(response.headers['cross-origin-resource-policy']).toBe('same-origin')
    expect(response.headers['referrer-policy']).toBe('no-referrer')
    // Document-only headers are not sent on JSON.
    expect(response.headers['cross-origin-opener-policy']).toBeUndefined()
    expect(response.headers['x-xss-protection']).toBeUndefined()
    const unknown = await app.inject({ method: 'GET', url: '/api/no-such-thing' })
    expect(unknown.statusCode).toBe(404)
    expect(unknown.headers['content-security-policy']).toBe("default-src 'none';frame-ancestors 'none'")
  })

  it('echoes a request id on every response', async () => {
    const response = await app.inject({ method: 'GET', url: '/api/plans', headers: { 'x-request-id': 'abc-123-def-456' } })
    expect(response.headers['x-request-id']).toBe('abc-123-def-456')
    const generated = await app.inject({ method: 'GET', url: '/api/plans' })
    expect(String(generated.headers['x-request-id'])).toMatch(/^[0-9a-f-]{36}$/)
  })
})

describe('the web app', () => {
  it('serves index.html for every screen of the route map', async () => {
    for (const url of ['/', '/splash', '/auth?returnTo=%2Fchat', '/payment', '/opt-in', '/goal-intake', '/dashboard', '/home', '/chat', '/courses', '/courses/abc', '/debug/edge-functions']) {
      const response = await app.inject({ method: 'GET', url })
      expect(response.statusCode, url).toBe(200)
      expect(response.headers['content-type']).toMatch(/text\/html/)
      expect(response.body).toContain('<div id="root">')
    }
  })

  it('serves the app with a 404 status for unknown paths (it shows its not-found page)', async () => {
    const response = await app.inject({ method: 'GET', url: '/no/such/page' })
    expect(response.statusCode).toBe(404)
    expect(response.body).toContain('<div id="root">')
  })

  it('serves hashed assets with long caching', async () => {
    const response = await app.inject({ method: 'GET', url: '/assets/index-abc123.js' })
    expect(response.statusCode).toBe(200)
    expect(response.headers['cache-control']).toContain('immutable')
    const missing = await app.inject({ method: 'GET', url: '/assets/missing.js' })
    expect(missing.statusCode).toBe(404)
  })
})

describe('GET /api/plans', () => {
  it('serves the three plans of spec 1 §9', async () => {
    const response = await app.inject({ method: 'GET', url: '/api/plans' })
    const { plans } = PlansResponseSchema.parse(response.json())
    expect(plans.map((plan) => [plan.name, plan.priceMonthly, plan.mostPopular])).toEqual([
      ['Basic', 50, false],
      ['Premium', 197, true],
      ['Elite', 497, false],
    ])
  })
})

describe('GET /api/openapi.json', () => {
  it('lists every /api operation with its schemas and whether it needs a session', async () => {
    const response = await app.inject({ method: 'GET', url: '/api/openapi.json' })
    expect(response.statusCode).toBe(200)
    const document = response.json() as {
      openapi: string
      paths: Record<string, Record<string, { responses: Record<string, unknown>; security?: unknown[] }>>
    }
    expect(document.openapi).toMatch(/^3\./)
    const health = document.paths['/api/health']?.get
    expect(health?.responses['200']).toBeDefined()
    expect(health?.security).toEqual([])
    expect(document.paths['/api/plans']?.get?.responses['200']).toBeDefined()
    const echo = document.paths['/api/test/echo']?.post as unknown as { requestBody?: unknown }
    expect(echo.requestBody).toBeDefined()
  })
})
