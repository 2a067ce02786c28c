import type { Job } from 'bullmq'
import type { Logger } from 'pino'
import type { Db } from '#server/db/client'
import { CLEANUP_JOB } from '#server/jobs/maintenance'
import { deleteExpiredRecords } from '#server/services/maintenance'

/** Processes the maintenance queue: parse the job, call the service, nothing else. */
export function createMaintenanceProcessor(db: Db, log: Logger) {
  return async (job: Job) => {
    if (job.name !== CLEANUP_JOB) throw new Error(`unknown maintenance job "${job.name}"`)
    const result = await deleteExpiredRecords(db)
    log.info({ jobId: job.id, ...result }, 'expired records deleted')
    return result
  }
}
