import { z } from 'zod'
import { CALL_SLOTS } from '#common/domain'
import { DialLater, PLACE_CALL_ATTEMPTS } from '#server/services/calls'
import { defineJob } from './define'

/**
 * The daily calls' jobs. The tick runs every minute and enqueues a delayed place-call job per call
 * due in the next minutes (job id from the claim key); place-call dials one call exactly once;
 * vapi-event applies one stored webhook message; the sweep finishes what webhooks left open.
 */
export const callsTick = defineJob({
  name: 'calls-tick',
  queue: 'calls',
  // Every minute, half a minute off the minute: call times are whole minutes, and a tick on the
  // minute would run in the middle of that minute's burst of dials (and enqueue again, as not
  // claimed yet, every call being dialled at that moment).
  schedule: { cron: '30 * * * * *', tz: 'UTC' },
  payload: z.object({}).strict(),
  attempts: 1,
  backoffMs: 1_000,
  async handler(services, _payload, { log }) {
    const result = await services.calls.tick()
    if (result.calls + result.retries > 0) log.debug(result, 'calls enqueued')
    return result
  },
})

export const placeCallJob = defineJob({
  name: 'place-call',
  queue: 'calls',
  trigger: 'enqueue',
  concurrency: 20,
  // In one process a minute's burst of dials is fastest unbounded (measured with 1,000 dials due
  // at once: PGlite p99 4.8 s unbounded vs 28.9 s at 20 at a time, PostgreSQL 2.5 s vs 3.2 s).
  inProcessConcurrency: Number.POSITIVE_INFINITY,
  payload: z
    .object({
      userId: z.uuid(),
      // A web call (the voice gateway) is never placed by a job.
      slot: z.enum(CALL_SLOTS).exclude(['web']),
      localDate: z.iso.date().nullable(),
      attempt: z.number().int().min(0).max(2),
      dueAt: z.iso.datetime({ offset: true }),
      callId: z.uuid().optional(),
    })
    .strict(),
  attempts: PLACE_CALL_ATTEMPTS,
  backoffMs: 15_000,
  async handler(services, payload, { log, attempt }) {
    try {
      const outcome = await services.calls.place(payload, attempt >= PLACE_CALL_ATTEMPTS)
      log.info({ userId: payload.userId, slot: payload.slot, localDate: payload.localDate, attempt: payload.attempt, outcome }, 'place-call')
      return outcome
    } catch (error) {
      if (error instanceof DialLater) log.warn({ reason: error.message }, 'place-call will be tried again')
      throw error
    }
  },
})

export const vapiEvent = defineJob({
  name: 'vapi-event',
  queue: 'calls-events',
  trigger: 'enqueue',
  // Few at a time: each holds a database connection for its transaction, and the webhook's
  // acknowledgement needs one too.
  concurrency: 4,
  payload: z.object({ id: z.number().int().positive() }).strict(),
  attempts: 5,
  backoffMs: 2_000,
  handler: (services, payload) => services.calls.processEvent(payload.id),
})

export const callsSweep = defineJob({
  name: 'calls-sweep',
  queue: 'calls',
  schedule: { cron: '*/5 * * * *', tz: 'UTC' },
  payload: z.object({}).strict(),
  attempts: 1,
  backoffMs: 1_000,
  async handler(services, _payload, { log }) {
    const result = await services.calls.sweep()
    if (result.events + result.asked + result.settled > 0) log.info(result, 'calls sweep')
    return result
  },
})
