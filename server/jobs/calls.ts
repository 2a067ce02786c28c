import { z } from 'zod'
import { CALL_SLOTS } from '#common/domain'
import { CANCEL_DELETED_CALLS_JOB, DialLater, PLACE_CALL_ATTEMPTS, PLACE_CALL_JOB } from '#server/services/calls'
import { defineJob, JobStopping } from './define'

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
  name: PLACE_CALL_JOB,
  queue: 'calls',
  trigger: 'enqueue',
  // A run is mostly parked (claimed and built 45 s ahead, then waiting for its instant), so a
  // worker holds a minute's burst of calls at once; the database work of a burst queues on the
  // pool. In one process, unbounded.
  concurrency: 500,
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
  async handler(services, payload, { log, attempt, waitUntil }) {
    try {
      const outcome = await services.calls.place(payload, { lastTry: attempt >= PLACE_CALL_ATTEMPTS, waitUntil })
      log.info({ userId: payload.userId, slot: payload.slot, localDate: payload.localDate, attempt: payload.attempt, outcome }, 'place-call')
      return outcome
    } catch (error) {
      if (error instanceof DialLater || error instanceof JobStopping) log.warn({ reason: error.message }, 'place-call will be tried again')
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

/** A deleted account's calls that Vapi may still place, deleted there (now, and again past any dial on its way). */
export const callsCancelDeleted = defineJob({
  name: CANCEL_DELETED_CALLS_JOB,
  queue: 'calls',
  trigger: 'enqueue',
  payload: z
    .object({
      calls: z
        .array(z.object({ callId: z.uuid(), vapiCallId: z.string().min(1).max(200).nullable(), dialledAt: z.iso.datetime({ offset: true }).nullable() }).strict())
        .max(500),
    })
    .strict(),
  attempts: 5,
  backoffMs: 5_000,
  async handler(services, payload, { log }) {
    const result = await services.calls.cancelDeleted(payload.calls)
    if (result.cancelled + result.answered > 0) log.info(result, 'calls of a deleted account cancelled at Vapi')
    return result
  },
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
