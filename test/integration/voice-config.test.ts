import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { VoiceConfigResponseSchema } from '#common/voice'
import { buildTestApp } from '../helpers/app'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { signedInUser } from '../helpers/users'

let database: TestDatabase
beforeAll(async () => {
  database = await createTestDatabase()
})
afterAll(async () => {
  await database?.destroy()
})

describe('GET /api/voice/config', () => {
  it('says voice is not configured without Vapi', async () => {
    const app = await buildTestApp({ database })
    const { headers } = await signedInUser(app)
    const response = await app.inject({ method: 'GET', url: '/api/voice/config', headers })
    expect(VoiceConfigResponseSchema.parse(response.json())).toMatchObject({ available: false, assistantId: null })
    expect((await app.inject({ method: 'GET', url: '/api/voice/config' })).statusCode).toBe(401)
    await app.close()
  })

  it('gives the assistant id and never the API key', async () => {
    const app = await buildTestApp({ database, env: { VAPI_API_KEY: 'vapi-private-key-123', VAPI_ASSISTANT_ID: 'asst_42' } })
    const { headers } = await signedInUser(app)
    const response = await app.inject({ method: 'GET', url: '/api/voice/config', headers })
    expect(response.json()).toEqual({ available: true, assistantId: 'asst_42', reason: null })
    expect(response.body).not.toContain('vapi-private-key-123')
    await app.close()
  })
})
