/**
 * The calls' job contracts (docs/decisions/022): each job's name and payload schema, read by the
 * calls service that enqueues them and by their handlers (server/jobs/calls.ts).
 */
import { z } from 'zod'
import { CALL_SLOTS } from '#common/domain'
import { jobContract, NO_PAYLOAD, type JobQueue, type PayloadOf } from '#server/lib/job-contract'

/**
 * A call of a deleted account that Vapi may still place: its Vapi id when known, else our id and
 * when it was being dialled (a dial on its way: Vapi is searched by the name we gave the call).
 */
const DeletedCallSchema = z.object({ callId: z.uuid(), vapiCallId: z.string().min(1).max(200).nullable(), dialledAt: z.iso.datetime({ offset: true }).nullable() }).strict()

export const CALLS_JOBS = {
  /** Every minute: enqueues a delayed place-call run per call (and retry) due in the next minutes. */
  tick: jobContract('calls-tick', NO_PAYLOAD),
  /** Dials one call exactly once. */
  place: jobContract(
    'place-call',
    z
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
  ),
  /** Applies one stored webhook message of Vapi's. */
  vapiEvent: jobContract('vapi-event', z.object({ id: z.number().int().positive() }).strict()),
  /** Finishes what the webhooks left open. */
  sweep: jobContract('calls-sweep', NO_PAYLOAD),
  /** Deletes at Vapi the calls of a deleted account (its rows are gone: the ids ride in the payload). */
  cancelDeleted: jobContract('calls-cancel-deleted', z.object({ calls: z.array(DeletedCallSchema).max(500) }).strict()),
  /** Deletes at Vapi the calls a revocation of consent reached before they were answered. */
  consentRevoked: jobContract('calls-consent-revoked', z.object({ userId: z.uuid() }).strict()),
} as const
export type CallsJob = (typeof CALLS_JOBS)[keyof typeof CALLS_JOBS]
export type CallsJobQueue = JobQueue<CallsJob>

export const PLACE_CALL_JOB = CALLS_JOBS.place.name
export const VAPI_EVENT_JOB = CALLS_JOBS.vapiEvent.name
export const CANCEL_DELETED_CALLS_JOB = CALLS_JOBS.cancelDeleted.name
export const CALLS_REVOKED_JOB = CALLS_JOBS.consentRevoked.name

/** A place-call job's payload (the job registry checks it with its schema). */
export type PlaceCallPayload = PayloadOf<typeof CALLS_JOBS.place>
export type DeletedCall = z.infer<typeof DeletedCallSchema>
