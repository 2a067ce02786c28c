/**
 * The accounts' job contracts (docs/decisions/022): each job's name and payload schema, read by the
 * accounts service that enqueues it and by its handler (server/jobs/send-email.ts).
 */
import { z } from 'zod'
import { EMAIL_MAX } from '#common/auth'
import { jobContract, type JobQueue } from '#server/lib/job-contract'

/**
 * The emails of the accounts, as the `send-email` job carries them: who to write to, never a token
 * or a link (those are made when the job runs, so a queue in Redis holds nothing that signs in).
 */
export const AccountEmailSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('confirm-email'), userId: z.uuid() }).strict(),
  z.object({ kind: z.literal('reset-password'), email: z.string().max(EMAIL_MAX) }).strict(),
  /** The link that confirms the person's pending new address (the account page), sent to that address. */
  z.object({ kind: z.literal('change-email'), userId: z.uuid() }).strict(),
  /** The old address told of a change asked for (it keeps working until the new one is confirmed). */
  z.object({ kind: z.literal('email-change-notice'), userId: z.uuid(), oldEmail: z.string().max(EMAIL_MAX), newEmail: z.string().max(EMAIL_MAX) }).strict(),
  /** The person told that their password was changed on the account page. */
  z.object({ kind: z.literal('password-changed'), userId: z.uuid() }).strict(),
  /** The account's address told that the coaching number changed (to these ten digits). */
  z.object({ kind: z.literal('phone-changed'), userId: z.uuid(), phoneNumber: z.string().regex(/^[0-9]{10}$/) }).strict(),
  // The last email of a deleted account: its address is all that is left of it.
  z.object({ kind: z.literal('account-deleted'), email: z.string().max(EMAIL_MAX) }).strict(),
])
export type AccountEmail = z.infer<typeof AccountEmailSchema>

export const ACCOUNTS_JOBS = {
  /** An account's email (confirmation, password reset, notices), sent after the request was answered. */
  sendEmail: jobContract('send-email', AccountEmailSchema),
} as const
export type AccountsJob = (typeof ACCOUNTS_JOBS)[keyof typeof ACCOUNTS_JOBS]
export const SEND_EMAIL_JOB = ACCOUNTS_JOBS.sendEmail.name

/** The queue the accounts service enqueues on. */
export type AccountsJobQueue = JobQueue<AccountsJob>
