import { z } from 'zod'
import { CALLS_REVOKED_JOB } from '#server/services/calls'
import { SEND_TEXT_JOB } from '#server/services/texts'
import { defineJob } from './define'

/**
 * The texts' jobs (docs/decisions/045): send-text sends one text as soon as it is asked for;
 * texts-release sends, every minute, the held texts that came due (the next morning's, a lost
 * send-text's); texts-inbound-sweep reads Twilio's log every 10 minutes for the inbound texts the
 * webhook missed (docs/decisions/060); calls-consent-revoked deletes at Vapi the calls a STOP reached before they rang.
 */
export const sendTextJob = defineJob({
  name: SEND_TEXT_JOB,
  queue: 'texts',
  trigger: 'enqueue',
  concurrency: 10,
  payload: z.object({ id: z.uuid() }).strict(),
  attempts: 3,
  backoffMs: 10_000,
  async handler(services, payload, { log }) {
    const outcome = await services.texts.deliver(payload.id)
    log.debug({ textId: payload.id, outcome }, 'send-text')
    return outcome
  },
})

export const textsRelease = defineJob({
  name: 'texts-release',
  queue: 'texts',
  // Every minute, a quarter past (away from the calls' tick at :30 and their burst on the minute).
  schedule: { cron: '15 * * * * *', tz: 'UTC' },
  payload: z.object({}).strict(),
  attempts: 1,
  backoffMs: 1_000,
  async handler(services, _payload, { log }) {
    const result = await services.texts.release()
    if (result.due + result.abandoned > 0) log.info(result, 'texts released')
    return result
  },
})

export const textsInboundSweep = defineJob({
  name: 'texts-inbound-sweep',
  queue: 'texts',
  // Every 10 minutes, at :45 s of the 7th minute (away from the other jobs' seconds).
  schedule: { cron: '45 7-59/10 * * * *', tz: 'UTC' },
  payload: z.object({}).strict(),
  attempts: 3,
  backoffMs: 30_000,
  async handler(services, _payload, { log }) {
    const result = await services.texts.sweepInbound()
    if (result.missed > 0) log.warn(result, 'texts: the sweep found inbound texts the webhook missed')
    return result
  },
})

export const callsConsentRevoked = defineJob({
  name: CALLS_REVOKED_JOB,
  queue: 'calls',
  trigger: 'enqueue',
  payload: z.object({ userId: z.uuid() }).strict(),
  attempts: 5,
  backoffMs: 5_000,
  async handler(services, payload, { log }) {
    const result = await services.calls.cancelUnanswered(payload.userId)
    if (result.cancelled + result.answered > 0) log.info({ userId: payload.userId, ...result }, 'calls cancelled after consent was revoked')
    return result
  },
})
