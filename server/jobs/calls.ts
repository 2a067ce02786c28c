import { CALLS_JOBS, DialLater, PLACE_CALL_ATTEMPTS } from '#server/services/calls'
import { defineJob, JobStopping } from './define'

/**
 * The daily calls' jobs. The tick runs every minute and enqueues a delayed place-call job per call
 * due in the next minutes (job id from the claim key); place-call dials one call exactly once;
 * vapi-event applies one stored webhook message; the sweep finishes what webhooks left open;
 * calls-cancel-deleted and calls-consent-revoked delete at Vapi the calls that must not ring.
 */
export const callsTick = defineJob({
  ...CALLS_JOBS.tick,
  queue: 'calls',
  // Every minute, half a minute off the minute: call times are whole minutes, and a tick on the
  // minute would run in the middle of that minute's burst of dials (and enqueue again, as not
  // claimed yet, every call being dialled at that moment).
  schedule: { cron: '30 * * * * *', tz: 'UTC' },
  attempts: 1,
  backoffMs: 1_000,
  async handler(services, _payload, { log }) {
    const result = await services.calls.tick()
    if (result.calls + result.retries > 0) log.debug(result, 'calls enqueued')
    return result
  },
})

export const placeCallJob = defineJob({
  ...CALLS_JOBS.place,
  queue: 'calls',
  trigger: 'enqueue',
  // A run is mostly parked (claimed and built 45 s ahead, then waiting for its instant), so a
  // worker holds a minute's burst of calls at once; the database work of a burst queues on the
  // pool. In one process, unbounded.
  concurrency: 500,
  inProcessConcurrency: Number.POSITIVE_INFINITY,
  attempts: PLACE_CALL_ATTEMPTS,
  backoffMs: 15_000,
  async handler(services, payload, { log, attempt, waitUntil }) {
    try {
      const outcome = await services.calls.place(payload, { lastTry: attempt >= PLACE_CALL_ATTEMPTS, firstTry: attempt === 1, waitUntil })
      log.info({ userId: payload.userId, slot: payload.slot, localDate: payload.localDate, attempt: payload.attempt, outcome }, 'place-call')
      return outcome
    } catch (error) {
      if (error instanceof DialLater || error instanceof JobStopping) log.warn({ reason: error.message }, 'place-call will be tried again')
      throw error
    }
  },
})

export const vapiEvent = defineJob({
  ...CALLS_JOBS.vapiEvent,
  queue: 'calls-events',
  trigger: 'enqueue',
  // Few at a time: each holds a database connection for its transaction, and the webhook's
  // acknowledgement needs one too.
  concurrency: 4,
  attempts: 5,
  backoffMs: 2_000,
  handler: (services, payload) => services.calls.processEvent(payload.id),
})

/** A deleted account's calls that Vapi may still place, deleted there (now, and again past any dial on its way). */
export const callsCancelDeleted = defineJob({
  ...CALLS_JOBS.cancelDeleted,
  queue: 'calls',
  trigger: 'enqueue',
  attempts: 5,
  backoffMs: 5_000,
  async handler(services, payload, { log }) {
    const result = await services.calls.cancelDeleted(payload.calls)
    if (result.cancelled + result.answered > 0) log.info(result, 'calls of a deleted account cancelled at Vapi')
    return result
  },
})

export const callsSweep = defineJob({
  ...CALLS_JOBS.sweep,
  queue: 'calls',
  schedule: { cron: '*/5 * * * *', tz: 'UTC' },
  attempts: 1,
  backoffMs: 1_000,
  async handler(services, _payload, { log }) {
    const result = await services.calls.sweep()
    if (result.events + result.asked + result.settled > 0) log.info(result, 'calls sweep')
    return result
  },
})

/** The calls a revocation of consent (a STOP, the calls switch) reached before they rang, deleted at Vapi. */
export const callsConsentRevoked = defineJob({
  ...CALLS_JOBS.consentRevoked,
  queue: 'calls',
  trigger: 'enqueue',
  attempts: 5,
  backoffMs: 5_000,
  async handler(services, payload, { log }) {
    const result = await services.calls.cancelUnanswered(payload.userId)
    if (result.cancelled + result.answered > 0) log.info({ userId: payload.userId, ...result }, 'calls cancelled after consent was revoked')
    return result
  },
})
