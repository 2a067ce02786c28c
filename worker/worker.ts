import type { Redis } from 'ioredis'
import type { Logger } from 'pino'
import type { Services } from '#server/container'
import { startBullmqWorkers, type RunningWorkers } from '#server/jobs/bullmq'
import { JOBS } from '#server/jobs/index'

type WorkerOptions = {
  services: Services
  /** A connection with maxRetriesPerRequest: null, as BullMQ workers need. */
  connection: Redis
  log: Logger
  /** BullMQ key prefix; tests use their own. */
  prefix?: string
}

/** Registers the job schedulers and processes every job of the registry, one BullMQ worker per queue. */
export function startWorker({ services, connection, log, prefix }: WorkerOptions): Promise<RunningWorkers> {
  return startBullmqWorkers({ jobs: JOBS, services, connection, prefix, log })
}
