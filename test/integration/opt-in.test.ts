import { and, eq } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SessionUserResponseSchema } from '#common/auth'
import { optInConsentText, OptInStateResponseSchema } from '#common/opt-in'
import { consentEvents, profiles } from '#server/db/schema'
import { OPT_IN_STREAMS_PER_USER } from '#server/routes/opt-in'
import { buildTestApp } from '../helpers/app'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { createTestRedis } from '../helpers/redis'
import { signedInUser } from '../helpers/users'

let database: TestDatabase
let app: FastifyInstance

beforeAll(async () => {
  database = await createTestDatabase()
  app = await buildTestApp({ database, env: { SMS_OPT_IN_NUMBER: '+15557654321' } })
})
afterAll(async () => {
  await app?.close()
  await database?.destroy()
})

describe('/api/opt-in', () => {
  it('shows the number, START, STOP and the rates notice, then records the time and the exact text', async () => {
    const { user, headers } = await signedInUser(app, { paid: 'basic' })
    const state = OptInStateResponseSchema.parse((await app.inject({ method: 'GET', url: '/api/opt-in', headers })).json())
    expect(state).toMatchObject({ phone_number: '+15557654321', display_number: '(555) 765-4321', keyword: 'START', opt_out_keyword: 'STOP', opted_in: false, opted_in_at: null })
    expect(state.consent_text).toContain('Text START to (555) 765-4321')
    expect(state.consent_text).toContain('STOP')
    expect(state.consent_text).toContain('Standard message and data rates may apply.')

    const before = Date.now()
    const response = await app.inject({ method: 'POST', url: '/api/opt-in', headers: { ...headers, 'user-agent': 'OptIn/1.0' }, payload: { consentText: state.consent_text } })
    expect(response.statusCode).toBe(200)
    // The consent ledger's grant of texts: the screen's exact words, the client and its user agent.
    const [grant] = await app.db.select().from(consentEvents).where(and(eq(consentEvents.userId, user.id), eq(consentEvents.channel, 'texts')))
    expect(grant).toMatchObject({ action: 'granted', source: 'opt_in_screen', text: optInConsentText('+15557654321'), userAgent: 'OptIn/1.0', ip: expect.any(String) })
    expect(response.json().opted_in).toBe(true)
    const [row] = await app.db.select().from(profiles).where(eq(profiles.id, user.id))
    expect(row!.smsOptInConsentText).toBe(optInConsentText('+15557654321'))
    expect(row!.smsOptedInAt!.getTime()).toBeGreaterThanOrEqual(before - 1000)
    const me = SessionUserResponseSchema.parse((await app.inject({ method: 'GET', url: '/api/me', headers })).json())
    expect(me.user.hasOptedIn).toBe(true)
    expect(OptInStateResponseSchema.parse((await app.inject({ method: 'GET', url: '/api/opt-in', headers })).json()).opted_in).toBe(true)
  })

  it('refuses a consent text the screen did not show', async () => {
    const { user, headers } = await signedInUser(app, { paid: 'premium' })
    const response = await app.inject({ method: 'POST', url: '/api/opt-in', headers, payload: { consentText: 'I agree to anything.' } })
    expect(response.statusCode).toBe(409)
    expect(response.json().error).toMatchObject({ code: 'CONSENT_TEXT_CHANGED', field: 'consentText' })
    const empty = await app.inject({ method: 'POST', url: '/api/opt-in', headers, payload: {} })
    expect(empty.statusCode).toBe(400)
    expect(empty.json().error.field).toBe('consentText')
    const [row] = await app.db.select().from(profiles).where(eq(profiles.id, user.id))
    expect(row!.smsOptedInAt).toBeNull()
  })

  it('needs a session and completed payment', async () => {
    expect((await app.inject({ method: 'GET', url: '/api/opt-in' })).statusCode).toBe(401)
    const { headers } = await signedInUser(app)
    const get = await app.inject({ method: 'GET', url: '/api/opt-in', headers })
    expect(get.statusCode).toBe(403)
    expect(get.json().error.code).toBe('PAYMENT_REQUIRED')
    const post = await app.inject({ method: 'POST', url: '/api/opt-in', headers, payload: { consentText: optInConsentText('+15557654321') } })
    expect(post.statusCode).toBe(403)
    const crossSite = await app.inject({ method: 'POST', url: '/api/opt-in', headers: { cookie: headers.cookie, origin: 'https://evil.example' }, payload: { consentText: 'x' } })
    expect(crossSite.statusCode).toBe(403)
  })
})

describe('GET /api/opt-in/events across servers (Redis)', () => {
  it("counts a person's streams on every server; a server that dies leaves slots that lapse", async () => {
    const shared = await createTestRedis()
    const servers: FastifyInstance[] = []
    const open: Array<{ destroy(): void }> = []
    try {
      for (let i = 0; i < 2; i++) {
        const server = await buildTestApp({ database, redis: shared.redis, redisPrefix: shared.prefix, env: { SMS_OPT_IN_NUMBER: '+15557654321' } })
        await server.listen({ port: 0, host: '127.0.0.1' })
        servers.push(server)
      }
      const { user, headers } = await signedInUser(servers[0]!, { paid: 'basic' })
      const listen = async (server: FastifyInstance) => {
        const response = await request(`http://127.0.0.1:${(server.server.address() as { port: number }).port}/api/opt-in/events`, { headers: { cookie: headers.cookie } })
        if (response.statusCode === 200) {
          response.body.on('error', () => {})
          open.push(response.body)
        }
        return response
      }
      for (let i = 0; i < OPT_IN_STREAMS_PER_USER; i++) expect((await listen(servers[i % 2]!)).statusCode).toBe(200)
      for (const server of servers) {
        const refused = await listen(server)
        expect(refused.statusCode).toBe(429)
        expect((await refused.body.json()) as unknown).toMatchObject({ error: { code: 'RATE_LIMITED' } })
      }
      // Each stream renews its slot while it lives; a server that dies renews nothing, and its
      // slots lapse (here, made to): the person may open streams again.
      const key = `${shared.prefix}optin:user:${user.id}`
      expect(await shared.redis.zcard(key)).toBe(OPT_IN_STREAMS_PER_USER)
      expect(await shared.redis.pttl(key)).toBeGreaterThan(0)
      for (const holder of await shared.redis.zrange(key, '0', '-1')) await shared.redis.zadd(key, 1, holder)
      expect((await listen(servers[1]!)).statusCode).toBe(200)
    } finally {
      for (const body of open) body.destroy()
      for (const server of servers) await server.close()
      await shared.destroy()
    }
  })
})
