import type { FastifyInstance } from 'fastify'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { buildTestApp } from '../helpers/app'
import { fakeClock } from '../helpers/clock'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { manualTimers } from '../helpers/timers'
import { signedInUser } from '../helpers/users'
import { VoiceClient, type Refusal } from '../helpers/voice-client'

let database: TestDatabase
let app: FastifyInstance
let url: string
let clock: ReturnType<typeof fakeClock>
let timers: ReturnType<typeof manualTimers>

beforeAll(async () => {
  database = await createTestDatabase()
})
afterAll(async () => {
  await database?.destroy()
})
beforeEach(async () => {
  clock = fakeClock()
  timers = manualTimers(clock)
  app = await buildTestApp({ database, clock, timers: timers.timers, env: { VAPI_API_KEY: 'vapi-secret-key', VAPI_ASSISTANT_ID: 'asst-coach' } })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address() as { port: number }
  url = `ws://127.0.0.1:${address.port}/api/voice`
})
afterEach(async () => {
  await app.close()
})

describe('refusals', () => {
  it('401, 403', async () => {
    const anonymous = (await VoiceClient.connect(url, { origin: app.config.appOrigin })) as Refusal
    expect(anonymous.status).toBe(401)
    expect(JSON.parse(anonymous.body)).toMatchObject({ error: { code: 'UNAUTHENTICATED' } })
    const unpaid = await signedInUser(app)
    const refused = (await VoiceClient.connect(url, unpaid.headers)) as Refusal
    expect(refused.status).toBe(403)
    expect(JSON.parse(refused.body)).toMatchObject({ error: { code: 'PAYMENT_REQUIRED' } })
    const paid = await signedInUser(app, { paid: 'basic' })
    const cross = (await VoiceClient.connect(url, { ...paid.headers, origin: 'https://evil.example' })) as Refusal
    expect(cross.status).toBe(403)
    const client = await VoiceClient.open(url, paid.headers)
    expect(await client.next('hello')).toEqual({ type: 'hello', v: 1 })
    await client.close()
  })
})
