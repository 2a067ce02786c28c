/**
 * The texts' job contracts (docs/decisions/022): read by the texts service that enqueues them and
 * by their handlers (server/jobs/texts.ts).
 */
import { z } from 'zod'
import { jobContract, NO_PAYLOAD, type JobQueue } from '#server/lib/job-contract'

export const TEXTS_JOBS = {
  /** Sends one text as soon as it is asked for. */
  sendText: jobContract('send-text', z.object({ id: z.uuid() }).strict()),
  /** Every minute: sends the held texts that came due (the next morning's, a lost send-text's). */
  release: jobContract('texts-release', NO_PAYLOAD),
  /** Every 10 minutes: reads Twilio's log for the inbound texts the webhook missed. */
  inboundSweep: jobContract('texts-inbound-sweep', NO_PAYLOAD),
} as const
export type TextsJob = (typeof TEXTS_JOBS)[keyof typeof TEXTS_JOBS]
export type TextsJobQueue = JobQueue<TextsJob>

export const SEND_TEXT_JOB = TEXTS_JOBS.sendText.name
