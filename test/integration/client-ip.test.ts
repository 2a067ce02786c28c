import proxyAddr from '@fastify/proxy-addr'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { clientNetwork, trustLoopback, trustProxyFunction } from '#server/lib/ip'
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

  it('by default believes every loopback spelling proxy-addr believes, and nothing else', async () => {
    const app = await appWith()
    // Through a chain of loopback proxies, back to the first address that is not loopback.
    expect(await ipSeen(app, '127.0.0.1', '203.0.113.7, 127.0.0.1')).toBe('203.0.113.7')
    expect(await ipSeen(app, '127.0.0.1', '203.0.113.7, 127.4.5.6')).toBe('203.0.113.7')
    expect(await ipSeen(app, '127.255.255.255', '203.0.113.7')).toBe('203.0.113.7')
    expect(await ipSeen(app, '::1', '203.0.113.7')).toBe('203.0.113.7')
    // Forms the fast path hands to proxy-addr: an IPv4-mapped peer, a hex hop.
    expect(await ipSeen(app, '::ffff:127.0.0.1', '203.0.113.7')).toBe('203.0.113.7')
    expect(await ipSeen(app, '127.0.0.1', '198.51.100.9, 0x7f.0.0.1')).toBe('198.51.100.9')
    // Just outside 127.0.0.0/8 and ::1.
    expect(await ipSeen(app, '128.0.0.1', '203.0.113.7')).toBe('128.0.0.1')
    expect(await ipSeen(app, '126.255.255.255', '203.0.113.7')).toBe('126.255.255.255')
    expect(await ipSeen(app, '::2', '203.0.113.7')).toBe('::2')
    expect(await ipSeen(app, '127.0.0.1', '203.0.113.7, 10.0.0.1')).toBe('10.0.0.1')
  })

  it('with a hop count, takes the address that many proxies back', async () => {
    const app = await appWith({ TRUST_PROXY: '1' })
    expect(await ipSeen(app, '10.0.0.5', '198.51.100.1, 203.0.113.9')).toBe('203.0.113.9')
  })
})

describe('the default trust (loopback)', () => {
  const spellings = [
    '127.0.0.1', '127.0.0.0', '127.1.2.3', '127.255.255.255', '126.255.255.255', '128.0.0.0', '10.0.0.1', '203.0.113.7',
    '1.127.0.0', '0.0.0.0', '255.255.255.255', '127.0.0.01', '127.1', '0x7f.0.0.1', '0177.0.0.1', '2130706433', '127.0.0.256',
    '1270.0.0.1', ' 127.0.0.1', '127.0.0.1 ', '', 'localhost', 'garbage', '::1', '::2', '::', '0:0:0:0:0:0:0:1', '0::1',
    '::0:1', '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '::127.0.0.1', '64:ff9b::127.0.0.1', 'fe80::1%lo',
    '::1%lo', '2001:db8::1', 'fd00::1', '::FFFF:127.0.0.1',
  ]

  it('answers exactly as proxy-addr does for every spelling of an address', () => {
    const ours = trustProxyFunction(['loopback'])
    const theirs = proxyAddr.compile(['loopback'])
    for (const address of spellings) {
      for (const hop of [0, 1, 3]) expect([address, hop, ours(address, hop)]).toEqual([address, hop, theirs(address, hop)])
    }
  })

  it('decides dotted IPv4 addresses and ::1 itself, handing only other forms to proxy-addr', () => {
    const asked: string[] = []
    const trust = trustLoopback((address) => {
      asked.push(address)
      return false
    })
    expect(['127.0.0.1', '127.9.9.9', '10.0.0.5', '203.0.113.7', '::1'].map((address) => trust(address, 0))).toEqual([true, true, false, false, true])
    expect(asked).toEqual([])
    trust('::ffff:127.0.0.1', 0)
    trust('0x7f.0.0.1', 1)
    expect(asked).toEqual(['::ffff:127.0.0.1', '0x7f.0.0.1'])
  })

  it('is the fast matcher only for the default; named proxies and hop counts keep their own', () => {
    const named = trustProxyFunction(['10.0.0.5', '10.2.0.0/16'])
    expect([named('10.0.0.5', 0), named('10.2.3.4', 0), named('127.0.0.1', 0)]).toEqual([true, true, false])
    const hops = trustProxyFunction(2)
    expect([hops('203.0.113.7', 0), hops('203.0.113.7', 1), hops('127.0.0.1', 2)]).toEqual([true, true, false])
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

  it('are one client per /64 for the global limit of 1,000 requests a minute (in memory)', async () => {
    const app = await appWith()
    const from = async (ip: string) => (await app.inject({ method: 'GET', url: '/api/test/ip', headers: { 'x-forwarded-for': ip } })).statusCode
    const statuses = new Set<number>()
    for (let i = 0; i < 1000; i++) statuses.add(await from(`2001:db8:cc:1::${(i % 4096).toString(16)}`))
    expect([...statuses]).toEqual([200])
    expect(await from('2001:db8:cc:1:ffff::1')).toBe(429)
    expect(await from('2001:db8:cc:2::1')).toBe(200)
    expect(await from('198.51.100.77')).toBe(200)
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
          phoneNumber: '2025234567',
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
