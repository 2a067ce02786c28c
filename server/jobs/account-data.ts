import { ACCOUNT_DATA_JOBS, PROCESSOR_DELETION_ATTEMPTS, PROCESSOR_DELETION_BACKOFF_MS } from '#server/services/account-data'
import { defineJob } from './define'

/**
 * After an account's deletion (docs/decisions/064): its calls and chats deleted at Vapi, its
 * texts' bodies redacted at Twilio, by their ids. A try that leaves some (a provider failing, a
 * text still on its way, a call in progress) hands only those to the next try, a minute later and
 * then twice as long each time; after the last try, a warning.
 */
export const processorDeletion = defineJob({
  ...ACCOUNT_DATA_JOBS.processorDeletion,
  queue: 'account-data',
  trigger: 'enqueue',
  attempts: PROCESSOR_DELETION_ATTEMPTS,
  backoffMs: PROCESSOR_DELETION_BACKOFF_MS,
  async handler(services, payload, { log, attempt, retryWith }) {
    const result = await services.accountData.deleteAtProcessors(payload, { log, lastTry: attempt >= PROCESSOR_DELETION_ATTEMPTS, retryWith })
    log.info(result, 'processor deletion')
    return result
  },
})
