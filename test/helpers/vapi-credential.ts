import { authenticationPlan, credentialName, type WebhookAuthMode } from '#server/services/calls'
import type { FakeVapi } from '../fakes/vapi'

/**
 * What `npm run vapi:setup` leaves in a Vapi account for the webhook: the credential named after
 * the mode and the secret, which the app finds by that name and every call references by its id
 * (ADR 063), so the fake sends each call's webhooks with its header. Created through the fake's API,
 * as setup creates it; returns its id.
 */
export async function createWebhookCredential(fake: FakeVapi, secret: string, auth: WebhookAuthMode = 'secret'): Promise<string> {
  const response = await fetch(`${fake.url}/credential`, {
    method: 'POST',
    headers: { authorization: `Bearer ${fake.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ provider: 'webhook', name: credentialName(auth, secret), authenticationPlan: authenticationPlan(auth, secret) }),
  })
  if (response.status !== 201) throw new Error(`the fake refused the credential: ${response.status} ${await response.text()}`)
  return ((await response.json()) as { id: string }).id
}
