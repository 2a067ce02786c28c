/**
 * POST /api/webhooks/vapi: whether a delivery is Vapi's, and its receipt. A final transcript line
 * of a live phone call goes straight to the person's dashboards; every other message the product
 * uses is stored once and applied by a job (or by the sweep, when the job is lost).
 */
import { AppError } from '#server/lib/app-error'
import { VAPI_EVENT_JOB } from './jobs'
import type { CallsContext } from './context'
import { liveCallOfLine, transcriptLineOf } from './call-watch'
import { storeVapiMessage, verifyVapiWebhook, verifyVapiWebhookHeaders, type VapiMessage, type WebhookAuth } from './webhooks'

type Headers = Record<string, string | string[] | undefined>

export function createWebhookReceiver(ctx: CallsContext, webhookAuth: WebhookAuth | undefined) {
  const { db, clock, log, jobs } = ctx

  async function publishLine(line: NonNullable<ReturnType<typeof transcriptLineOf>>): Promise<void> {
    try {
      const call = await liveCallOfLine(db, line)
      if (call) await ctx.live!.publish(call.userId, { type: 'phone-transcript', callId: call.id, role: line.role, text: line.text }, line.key ?? undefined)
    } catch (error) {
      log.warn({ err: error, vapiCallId: line.vapiCallId }, 'calls: a live transcript line could not be published')
    }
  }

  return {
    /** Whether a webhook delivery is Vapi's (the rate limit counts only those that are not). */
    authentic: (rawBody: Buffer, headers: Headers): boolean => verifyVapiWebhook(webhookAuth, headers, rawBody, clock.now()),
    /**
     * Whether a webhook delivery is Vapi's by its headers, before its body is read: decided in
     * secret mode (and when nothing can be verified), null in HMAC mode (the signature covers the body).
     */
    authenticHeaders: (headers: Headers): boolean | null => verifyVapiWebhookHeaders(webhookAuth, headers),
    /** Whether the headers alone authenticate a webhook delivery (not HMAC mode): fixed at start. */
    webhookHeadersDecide: webhookAuth?.mode !== 'hmac',

    /**
     * POST /api/webhooks/vapi: authenticates, stores the message once, enqueues its processing,
     * and answers. Messages the product does not use are acknowledged and dropped.
     */
    async receiveWebhook(rawBody: Buffer, headers: Headers): Promise<{ stored: boolean; duplicate: boolean }> {
      const now = clock.now()
      if (!verifyVapiWebhook(webhookAuth, headers, rawBody, now)) throw new AppError('UNAUTHENTICATED', 'The webhook could not be authenticated.')
      let body: unknown
      try {
        body = JSON.parse(rawBody.toString('utf8'))
      } catch {
        throw new AppError('BAD_REQUEST', 'The body must be JSON.', { field: 'message' })
      }
      const message = (body as { message?: unknown } | null)?.message
      if (!message || typeof message !== 'object' || typeof (message as { type?: unknown }).type !== 'string') {
        throw new AppError('VALIDATION_FAILED', 'The body must be {"message": {"type": ...}}.', { field: 'message.type' })
      }
      ctx.metrics.webhooks.received('vapi', (message as { type: string }).type, eventTimeOf(message), now)
      // A final transcript line of a live phone call goes to the person's dashboards now (it is
      // not stored: the end-of-call report keeps the whole transcript).
      const line = transcriptLineOf(message as VapiMessage)
      if (line) {
        if (ctx.live) await publishLine(line)
        return { stored: false, duplicate: false }
      }
      const stored = await storeVapiMessage(db, message as VapiMessage, now)
      if (stored.id !== null) {
        // If this is lost (Redis down), the sweep applies the stored message.
        await jobs.enqueue(VAPI_EVENT_JOB, { id: stored.id }, { jobId: `vapi-event-${stored.id}` }).catch((error: unknown) => log.warn({ err: error, eventId: stored.id }, 'calls: could not enqueue a webhook message; the sweep will apply it'))
      }
      return { stored: stored.id !== null, duplicate: stored.duplicate }
    },
  }
}

/**
 * When Vapi says a message happened: its `timestamp`, a number whose unit Vapi does not state (epoch
 * milliseconds in practice; a value that reads as seconds is taken as seconds). Null without one.
 */
function eventTimeOf(message: object): Date | null {
  const timestamp = (message as { timestamp?: unknown }).timestamp
  if (typeof timestamp !== 'number' || !Number.isFinite(timestamp) || timestamp <= 0) return null
  return new Date(timestamp < 1e11 ? timestamp * 1000 : timestamp)
}
