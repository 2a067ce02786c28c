import pino from 'pino'
import { describe, expect, it } from 'vitest'
import { credentialName, CREDENTIAL_RETRY_MS, webhookServer } from '#server/services/calls'
import { fakeClock } from '../helpers/clock'

const SECRET = 'a-webhook-secret-of-enough-length-0123'
const APP_URL = 'https://coach.example.com/'

/** A stand-in for Vapi's credential list: answers from `answers` in turn, counting the questions. */
function vapiAnswering(...answers: Array<string | null | Error>) {
  const asked: string[] = []
  return {
    asked,
    findWebhookCredential: async (name: string) => {
      asked.push(name)
      const answer = answers[Math.min(asked.length - 1, answers.length - 1)]
      if (answer instanceof Error) throw answer
      return answer ?? null
    },
  }
}

describe("a call's webhook server", () => {
  const log = pino({ level: 'silent' })

  it('in secret mode: our URL and the credential found by its name, asked once for every call at once and after', async () => {
    const clock = fakeClock()
    const vapi = vapiAnswering('cred_1')
    const server = webhookServer({ auth: { mode: 'secret', secret: SECRET }, appUrl: APP_URL, vapi, clock, log })
    const first = await Promise.all([server(), server(), server()])
    expect(first).toEqual(Array(3).fill({ url: 'https://coach.example.com/api/webhooks/vapi', credentialId: 'cred_1' }))
    clock.advance(24 * 3_600_000)
    expect(await server()).toEqual({ url: 'https://coach.example.com/api/webhooks/vapi', credentialId: 'cred_1' })
    expect(vapi.asked).toEqual([credentialName('secret', SECRET)])
    expect(JSON.stringify(first)).not.toContain(SECRET)
  })

  it('without the credential, or without an answer from Vapi: no server (the assistant’s own), asked again a minute later', async () => {
    const clock = fakeClock()
    const vapi = vapiAnswering(null, new Error('fetch failed'), 'cred_2')
    const server = webhookServer({ auth: { mode: 'secret', secret: SECRET }, appUrl: APP_URL, vapi, clock, log })
    expect(await server()).toBeUndefined()
    clock.advance(CREDENTIAL_RETRY_MS - 1)
    expect(await server()).toBeUndefined()
    expect(vapi.asked).toHaveLength(1)
    clock.advance(1)
    expect(await server()).toBeUndefined()
    expect(vapi.asked).toHaveLength(2)
    clock.advance(CREDENTIAL_RETRY_MS)
    expect(await server()).toEqual({ url: 'https://coach.example.com/api/webhooks/vapi', credentialId: 'cred_2' })
  })

  it('in HMAC mode, or without a secret or Vapi: no server, and Vapi is never asked', async () => {
    const clock = fakeClock()
    const vapi = vapiAnswering('cred_1')
    expect(await webhookServer({ auth: { mode: 'hmac', secret: SECRET }, appUrl: APP_URL, vapi, clock, log })()).toBeUndefined()
    expect(await webhookServer({ auth: undefined, appUrl: APP_URL, vapi, clock, log })()).toBeUndefined()
    expect(await webhookServer({ auth: { mode: 'secret', secret: SECRET }, appUrl: APP_URL, vapi: undefined, clock, log })()).toBeUndefined()
    expect(vapi.asked).toEqual([])
  })
})
