/**
 * The account data's job contracts (docs/decisions/022): read by the deletion that enqueues them
 * and by their handler (server/jobs/account-data.ts).
 */
import { jobContract, type JobQueue } from '#server/lib/job-contract'
import type { CALLS_JOBS } from '#server/services/calls'
import type { REPORTS_JOBS } from '#server/services/reports'
import type { TEXTS_JOBS } from '#server/services/texts'
import { ProcessorIdsSchema } from './processors'

export const ACCOUNT_DATA_JOBS = {
  /** After an account's deletion: its calls and chats deleted at Vapi, its texts' bodies redacted at Twilio, by their ids. */
  processorDeletion: jobContract('processor-deletion', ProcessorIdsSchema),
} as const
export type AccountDataJob = (typeof ACCOUNT_DATA_JOBS)[keyof typeof ACCOUNT_DATA_JOBS]
export const PROCESSOR_DELETION_JOB = ACCOUNT_DATA_JOBS.processorDeletion.name

/**
 * The queue a deletion works on: its own job, the cancellation of the calls Vapi may still place,
 * and the person's runs still waiting (calls, texts, reports) that it takes out.
 */
export type DeletionJob = AccountDataJob | (typeof CALLS_JOBS)['cancelDeleted' | 'place'] | (typeof TEXTS_JOBS)['sendText'] | (typeof REPORTS_JOBS)['delivery']
export type AccountDataJobQueue = JobQueue<DeletionJob>
