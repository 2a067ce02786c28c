import { Queue, Worker } from 'bullmq'
import type { Redis } from 'ioredis'
import type { Logger } from 'pino'
import type { Db } from '#server/db/client'
import { CLEANUP_CRON, CLEANUP_JOB, CLEANUP_SCHEDULER_ID, MAINTENANCE_QUEUE } from '#server/jobs/maintenance'
import { createMaintenanceProcessor } from './processors/maintenance'

export type WorkerOptions = {
  db: Db
  /** A connection with maxRetriesPerRequest: null, as BullMQ workers need. */
  connection: Redis
  log: Logger
  /** BullMQ key prefix; tests use their own. */
  prefix?: string
}

export type RunningWorker = { workers: Worker[]; queues: Queue[]; close(): Promise<void> }

/** Registers the job schedulers and starts one BullMQ worker per queue. */
export async function startWorker({ db, connection, log, prefix }: WorkerOptions): Promise<RunningWorker> {
  const maintenance = new Queue(MAINTENANCE_QUEUE, { connection, prefix })
  await maintenance.upsertJobScheduler(
    CLEANUP_SCHEDULER_ID,
    { pattern: CLEANUP_CRON, tz: 'UTC' },
    {
      name: CLEANUP_JOB,
      opts: { removeOnComplete: 100, removeOnFail: 500, attempts: 3, backoff: { type: 'exponential', delay: 30_000 } },
    },
  )

  const workers = [
    new Worker(MAINTENANCE_QUEUE, createMaintenanceProcessor(db, log.child({ queue: MAINTENANCE_QUEUE })), {
      connection,
      prefix,
      concurrency: 1,
    }),
  ]
  for (const worker of workers) {
    worker.on('failed', (job, err) => log.error({ queue: worker.name, jobId: job?.id, err }, 'job failed'))
    worker.on('error', (err) => log.error({ queue: worker.name, err }, 'worker error'))
  }
  await Promise.all(workers.map((worker) => worker.waitUntilReady()))

  return {
    workers,
    queues: [maintenance],
    async close() {
      await Promise.all(workers.map((worker) => worker.close()))
      await maintenance.close()
    },
  }
}
