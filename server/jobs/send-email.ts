import { ACCOUNTS_JOBS } from '#server/services/accounts'
import { defineJob } from './define'

/**
 * The accounts' emails (confirmation, password reset), sent after the request has been answered:
 * the answer never waits for SMTP, and takes the same time whether or not an address has an
 * account. The payload names the person, never a token (docs/decisions/028).
 */
export const sendEmail = defineJob({
  ...ACCOUNTS_JOBS.sendEmail,
  queue: 'email',
  // Mail goes out a few at a time: one slow SMTP answer never holds up the rest.
  concurrency: 5,
  trigger: 'enqueue',
  attempts: 5,
  backoffMs: 30_000,
  async handler(services, payload, { attempt, log }) {
    const result = await services.accounts.deliverEmail(payload, attempt)
    log.info({ kind: payload.kind, result }, 'account email')
    return result
  },
})
