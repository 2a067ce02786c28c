import { SUPPORT_JOBS } from '#server/services/support'
import { defineJob } from './define'

/** Support's reply, emailed to the member after the reply is saved: sent once, retried until it is. */
export const supportReplyEmail = defineJob({
  ...SUPPORT_JOBS.replyEmail,
  queue: 'email',
  concurrency: 5,
  trigger: 'enqueue',
  attempts: 5,
  backoffMs: 30_000,
  async handler(services, payload, { log }) {
    const result = await services.support.deliverReplyEmail(payload.messageId)
    log.info({ messageId: payload.messageId, result }, 'support reply email')
    return result
  },
})

/** Queues the email of any reply the request could not queue (see `sweepUnsentReplies`). */
export const supportRepliesSweep = defineJob({
  ...SUPPORT_JOBS.repliesSweep,
  queue: 'email',
  // Every 5 minutes, at :20 s of the 3rd minute (away from the other jobs' seconds).
  schedule: { cron: '20 3-59/5 * * * *', tz: 'UTC' },
  attempts: 3,
  backoffMs: 30_000,
  async handler(services, _payload, { log }) {
    const result = await services.support.sweepUnsentReplies()
    if (result.queued > 0) log.warn(result, 'support: the sweep queued reply emails the request had not')
    return result
  },
})
