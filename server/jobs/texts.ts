import { TEXTS_JOBS } from '#server/services/texts'
import { defineJob } from './define'

/**
 * The texts' jobs (docs/decisions/045): send-text sends one text as soon as it is asked for;
 * texts-release sends, every minute, the held texts that came due (the next morning's, a lost
 * send-text's); texts-inbound-sweep reads Twilio's log every 10 minutes for the inbound texts the
 * webhook missed (docs/decisions/060).
 */
export const sendTextJob = defineJob({
  ...TEXTS_JOBS.sendText,
  queue: 'texts',
  trigger: 'enqueue',
  concurrency: 10,
  attempts: 3,
  backoffMs: 10_000,
  async handler(services, payload, { log }) {
    const outcome = await services.texts.deliver(payload.id)
    log.debug({ textId: payload.id, outcome }, 'send-text')
    return outcome
  },
})

export const textsRelease = defineJob({
  ...TEXTS_JOBS.release,
  queue: 'texts',
  // Every minute, a quarter past (away from the calls' tick at :30 and their burst on the minute).
  schedule: { cron: '15 * * * * *', tz: 'UTC' },
  attempts: 1,
  backoffMs: 1_000,
  async handler(services, _payload, { log }) {
    const result = await services.texts.release()
    if (result.due + result.abandoned > 0) log.info(result, 'texts released')
    return result
  },
})

export const textsInboundSweep = defineJob({
  ...TEXTS_JOBS.inboundSweep,
  queue: 'texts',
  // Every 10 minutes, at :45 s of the 7th minute (away from the other jobs' seconds).
  schedule: { cron: '45 7-59/10 * * * *', tz: 'UTC' },
  attempts: 3,
  backoffMs: 30_000,
  async handler(services, _payload, { log }) {
    const result = await services.texts.sweepInbound()
    if (result.missed > 0) log.warn(result, 'texts: the sweep found inbound texts the webhook missed')
    return result
  },
})
