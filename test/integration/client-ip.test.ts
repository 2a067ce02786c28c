import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { clientNetwork } from '#server/lib/ip'
import { SIGNUPS_PER_IP_PER_HOUR } from '#server/services/accounts'
import { buildTestApp } from '../helpers/app'
import { createTestDatabase, type TestDatabase } from '../helpers/db'

/**
 * X-Forwarded-For is believed only from the proxies TRUST_PROXY names (loopback by default), and
 * per-IP counters count an IPv6 client per /64, as the route rate limiter does.
 */
let database: TestDatabase
const apps: FastifyInstance[] = []

beforeAll(async () => {
  database = await createTestDatabase()
})

afterAll(async () => {
  for (const app of apps) await app.close()
  await database?.destroy()
})

async function appWith(env: Record<string, string> = {}) {
  const app = await buildTestApp({
    database,
    env,
    extend: (instance) => {
      instance.get('/api/test/ip', { config: { auth: 'none' } }, async (request) => ({ ip: request.ip }))
      instance.get('/api/test/limited', { config: { auth: 'none', rateLimit: { max: 2, timeWindow: '1 minute' } } }, async () => ({ ok: true }))
    },
  })
  apps.push(app)
  return app
}

const ipSeen = async (app: FastifyInstance, remoteAddress: string, forwardedFor: string) =>
  (await app.inject({ method: 'GET', url: '/api/test/ip', remoteAddress, headers: { 'x-forwarded-for': forwardedFor } })).json<{ ip: string }>().ip

describe('client address', () => {
  it('believes X-Forwarded-For from loopback only by default, not from any private address', async () => {
    const app = await appWith()
    expect(await ipSeen(app, '127.0.0.1', '203.0.113.7')).toBe('203.0.113.7')
    expect(await ipSeen(app, '10.0.0.5', '203.0.113.7')).toBe('10.0.0.5')
    expect(await ipSeen(app, '192.168.1.9', '203.0.113.7')).toBe('192.168.1.9')
    expect(await ipSeen(app, 'fd00::1', '203.0.113.7')).toBe('fd00::1')
  })

  it('believes exactly the proxies TRUST_PROXY names', async () => {
    const app = await appWith({ TRUST_PROXY: '10.0.0.5,10.2.0.0/16' })
    expect(await ipSeen(app, '10.0.0.5', '203.0.113.7')).toBe('203.0.113.7')
    expect(await ipSeen(app, '10.2.3.4', '203.0.113.8')).toBe('203.0.113.8')
    expect(await ipSeen(app, '10.0.0.6', '203.0.113.7')).toBe('10.0.0.6')
    expect(await ipSeen(app, '127.0.0.1', '203.0.113.7')).toBe('127.0.0.1')
  })

  it('with a hop count, takes the address that many proxies back', async () => {
    const app = await appWith({ TRUST_PROXY: '1' })
    expect(await ipSeen(app, '10.0.0.5', '198.51.100.1, 203.0.113.9')).toBe('203.0.113.9')
  })
})

describe('IPv6 clients', () => {
  it('are one client per /64 for the route limits', async () => {
    const app = await appWith()
    const statuses = []
    for (const ip of ['2001:db8:aa:1::1', '2001:db8:aa:1::2', '2001:db8:aa:1:ffff::3']) {
      statuses.push((await app.inject({ method: 'GET', url: '/api/test/limited', headers: { 'x-forwarded-for': ip } })).statusCode)
    }
    expect(statuses).toEqual([200, 200, 429])
    const other = await app.inject({ method: 'GET', url: '/api/test/limited', headers: { 'x-forwarded-for': '2001:db8:aa:2::1' } })
    expect(other.statusCode).toBe(200)
  })

  it('are one network for the sign-up limit: rotating addresses inside one /64 buys no more accounts', async () => {
    const app = await appWith()
    const statuses: number[] = []
    for (let i = 1; i <= SIGNUPS_PER_IP_PER_HOUR + 1; i++) {
      const response = await app.inject({
        method: 'POST',
        url: '/api/auth/signup',
        headers: { origin: app.config.appOrigin, 'x-forwarded-for': `2001:db8:bb:1::${i.toString(16)}` },
        payload: {
          fullName: 'Rotating Person',
          email: `rotating-${i}-${Date.now()}@example.com`,
          phoneNumber: '5551234567',
          password: 'lantern-harbor-velvet-42',
          confirmPassword: 'lantern-harbor-velvet-42',
          communicationConsent: true,
          termsAccepted: true,
        },
      })
      statuses.push(response.statusCode)
    }
    expect(statuses.slice(0, SIGNUPS_PER_IP_PER_HOUR).every((status) => status === 201 || status === 200)).toBe(true)
    expect(statuses.at(-1)).toBe(429)
  })

  it('are one key per /64 for our own counters; IPv4 (mapped too) stays per address', () => {
    expect(clientNetwork('2001:db8:aa:1::1')).toBe(clientNetwork('2001:DB8:AA:1:ffff:ffff:ffff:ffff'))
    expect(clientNetwork('2001:db8:aa:1::1')).not.toBe(clientNetwork('2001:db8:aa:2::1'))
    expect(clientNetwork('::ffff:198.51.100.4')).toBe('198.51.100.4')
    expect(clientNetwork('198.51.100.4')).not.toBe(clientNetwork('198.51.100.5'))
  })
})
