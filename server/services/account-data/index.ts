/**
 * The person's own data (issue 16, docs/decisions/051): "Export my data" (a ZIP streamed as it is
 * written, at most once in 10 minutes) and "Delete my account" (re-authentication, Stripe stopped,
 * one transaction, what billing law keeps detached from the person, then the processors asked to
 * delete what they keep: docs/decisions/064). tables.ts is the one list of where a person's data
 * lives; both read it.
 */
import type { Logger } from 'pino'
import type { Db } from '#server/db/client'
import type { Clock } from '#server/lib/clock'
import { deleteAccount, type DeletionDeps } from './deletion'
import type { AccountDataJobQueue } from './jobs'
import { claimExport, exportArchive, exportFileName } from './export'
import { deleteAtProcessors, type ProcessorClients, type ProcessorIds, type ProcessorRun } from './processors'

export { partRows } from './export'
export { EXPORT_FILES, NOT_EXPORTED, USER_DATA } from './tables'
export { ACCOUNT_DATA_JOBS, PROCESSOR_DELETION_JOB, type AccountDataJob, type AccountDataJobQueue } from './jobs'
export { PROCESSOR_DELETION_ATTEMPTS, PROCESSOR_DELETION_BACKOFF_MS } from './processors'

type AccountDataDeps = {
  db: Db
  clock: Clock
  log: Logger
  jobs: AccountDataJobQueue
  accounts: DeletionDeps['accounts']
  billing: DeletionDeps['billing']
  /** Vapi and Twilio as the deletion asks them (undefined: not configured). */
  processors: ProcessorClients
}

export function createAccountData(deps: AccountDataDeps) {
  const { db, clock } = deps
  return {
    /**
     * Starts the person's export: claims it (429 with the wait within 10 minutes of the last one)
     * and returns the archive as a stream, with its file name. `onError` hears a failure once the
     * archive is under way (the response has begun: the download ends short).
     */
    async startExport(user: { id: string; email: string }, onError: (error: Error) => void) {
      const now = clock.now()
      await claimExport(db, user.id, now)
      return { fileName: exportFileName(now), archive: await exportArchive(db, user, now, onError) }
    },
    /** Deletes the person's account (the typed email and the password first: 400 / 401 naming the field). */
    deleteAccount: (userId: string, input: { password: string; email: string }) => deleteAccount(deps, userId, input),
    /** One run of the processor-deletion job: a deleted account's calls and chats at Vapi, its texts' bodies at Twilio. */
    deleteAtProcessors: (ids: ProcessorIds, run: ProcessorRun) => deleteAtProcessors(deps.processors, ids, run),
  }
}
