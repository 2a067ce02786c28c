import type { Logger } from 'pino'
import type { z } from 'zod'
import type { Services } from '../container'
import type { JobContract } from '../lib/job-contract'

/** What a handler gets besides the services and its payload. */
type JobContext<P = unknown> = {
  log: Logger
  /** The run's id (BullMQ's job id, or the in-process runner's). */
  jobId: string
  /** 1 on the first try, 2 on the first retry, ... */
  attempt: number
  /**
   * Parks the run until the clock reaches `at` (a call prepared ahead waits for its instant), or
   * until `wake` settles, whichever comes first (a call waiting for a line wakes when one is given
   * back). The in-process runner's `drain()` does not wait for parked runs. Rejects with JobStopping
   * when the runner or worker stops first: the run must then give back what it holds and throw.
   */
  waitUntil(at: Date, wake?: Promise<unknown>): Promise<void>
  /**
   * What the next try of this run gets instead of its payload: the part of the work still to do,
   * so that a run which did some of its work and then fails is not made to do that part again.
   * Checked against the job's schema (rejects when it does not fit); BullMQ keeps it with the job
   * in Redis, the in-process runner in memory. Call it before throwing.
   */
  retryWith(payload: P): Promise<void>
}

/** The runner or worker is stopping: a parked run gives back what it holds and fails (it is retried later). */
export class JobStopping extends Error {
  constructor() {
    super('the job runner is stopping')
    this.name = 'JobStopping'
  }
}

/** When a job runs: on a cron schedule in a time zone, or when something enqueues it. */
type JobTrigger = { schedule: { cron: string; tz: string }; trigger?: never } | { trigger: 'enqueue'; schedule?: never }

/**
 * A job, written once and run the same way by the embedded in-process runner (no REDIS_URL) and by
 * the BullMQ worker: its contract (name and payload schema, declared by its domain: the schema is
 * checked before every run, so a bad payload never reaches the handler), its queue, when it runs,
 * retries, and the handler over the services.
 */
export type JobDefinition<N extends string = string, S extends z.ZodType = z.ZodType> = JobContract<N, S> & JobTrigger & JobPolicy<z.output<S>>

/** How and when a job runs, and its handler: what the registry adds to a job's contract. */
type JobPolicy<P> = {
  /** The BullMQ queue it runs on: one per kind of work, so each can be scaled or paused alone. */
  queue: string
  /** Runs of this queue processed at once by a BullMQ worker and by the in-process runner (default 1; the largest of a queue's jobs applies). */
  concurrency?: number
  /** The in-process runner's limit when it differs from the worker's (`Infinity`: unbounded). */
  inProcessConcurrency?: number
  /** Tries in all (1: no retry); retries wait `backoffMs`, doubling each time. */
  attempts: number
  backoffMs: number
  handler(services: Services, payload: P, context: JobContext<P>): Promise<unknown>
}

// The registry holds jobs of different payloads; each run parses its payload with the job's own schema.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyJobDefinition = JobDefinition<string, z.ZodType<any>>

/** A job of the registry: usually its domain's contract spread in (`{ ...CALLS_JOBS.place, queue: 'calls', ... }`). */
export function defineJob<const N extends string, S extends z.ZodType>(definition: JobDefinition<N, S>): JobDefinition<N, S> {
  if (!/^[a-z][a-z0-9-]*$/.test(definition.name)) throw new Error(`job name "${definition.name}": lower-case words joined by "-"`)
  if (!Number.isInteger(definition.attempts) || definition.attempts < 1) throw new Error(`job ${definition.name}: attempts must be at least 1`)
  return definition
}

/**
 * One try of a job, measured (`momentum_job_duration_seconds`, `momentum_job_failures_total`): both
 * runners run each try through it. A run given back because its runner is stopping is not a failure.
 */
export async function measuredRun<T>(services: Services, job: string, run: () => Promise<T>): Promise<T> {
  const started = performance.now()
  try {
    const result = await run()
    services.metrics.jobs.ran(job, (performance.now() - started) / 1000, false)
    return result
  } catch (error) {
    services.metrics.jobs.ran(job, (performance.now() - started) / 1000, !(error instanceof JobStopping))
    throw error
  }
}
