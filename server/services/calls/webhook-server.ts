/**
 * The webhook server a call names (`assistantOverrides.server`), for the phone calls and the calls
 * made in the app. In secret mode it is our URL and the credential `npm run vapi:setup` created
 * (found by its name, which carries a fingerprint of the secret, once per process): never the
 * secret itself, since Vapi keeps a call's settings in the call, where `GET /call`, its dashboard
 * and its logs show them to anyone who may read calls (ADR 063). In HMAC mode, or while the
 * credential cannot be found, no server is named and the saved assistant's own (with that same
 * credential, as setup wrote it) serves the call.
 */
import type { Logger } from 'pino'
import { VAPI_WEBHOOK_PATH } from '#common/webhooks'
import type { DialRequest, VapiCallsClient } from '#server/integrations/vapi-calls'
import type { Clock } from '#server/lib/clock'
import { credentialName } from './assistant'
import type { WebhookAuth } from './webhooks'

/** A call's webhook server: our URL and the credential; undefined, the saved assistant's. */
export type CallWebhookServer = DialRequest['server'] | undefined

/** After a lookup that found nothing (or failed), how long before Vapi is asked again. */
export const CREDENTIAL_RETRY_MS = 60_000

type WebhookServerDeps = {
  auth: WebhookAuth | undefined
  appUrl: string
  vapi: Pick<VapiCallsClient, 'findWebhookCredential'> | undefined
  clock: Clock
  log: Logger
}

/** Resolves the webhook server of the next call; never throws (a call is never held up by it). */
export function webhookServer(deps: WebhookServerDeps): () => Promise<CallWebhookServer> {
  const { auth, vapi, clock, log } = deps
  if (auth?.mode !== 'secret' || !vapi) return async () => undefined
  const url = `${deps.appUrl.replace(/\/+$/, '')}${VAPI_WEBHOOK_PATH}`
  const name = credentialName('secret', auth.secret)
  let credentialId: string | null = null
  let missedAt = Number.NEGATIVE_INFINITY
  let lookup: Promise<void> | null = null

  async function find(): Promise<void> {
    try {
      credentialId = await vapi!.findWebhookCredential(name)
      if (!credentialId) {
        log.error({ credential: name }, "calls: Vapi has no webhook credential for this VAPI_WEBHOOK_SECRET: run `npm run vapi:setup`; calls name the assistant's own webhook server until it is there")
      }
    } catch (error) {
      log.warn({ err: error }, "calls: could not read Vapi's webhook credentials; this call names the assistant's own webhook server")
    }
    if (!credentialId) missedAt = clock.now().getTime()
  }

  return async () => {
    if (!credentialId && clock.now().getTime() - missedAt >= CREDENTIAL_RETRY_MS) {
      // One lookup at a time: a minute's burst of dials waits on the same answer.
      lookup ??= find().finally(() => {
        lookup = null
      })
      await lookup
    }
    return credentialId ? { url, credentialId } : undefined
  }
}
