/**
 * The BullMQ side of the job registry (REDIS_URL): job schedulers for the scheduled jobs, one
 * worker per queue that checks each payload against its job's schema and calls the handler, and
 * the producer that enqueues runs. Any number of workers can run; BullMQ hands each run to one.
 */
import { Queue, UnrecoverableError, Worker, type JobsOptions } from 'bullmq'
import type { Redis } from 'ioredis'
import type { Logger } from 'pino'
import type { Services } from '../container'
import type { EnqueueOptions, JobQueue } from '../lib/job-contract'
import { traceEnqueue, traceJobAttempt } from '../observability/tracing'
import { JobStopping, measuredRun, type AnyJobDefinition } from './define'

type BullmqOptions<J extends AnyJobDefinition = AnyJobDefinition> = {
  jobs: readonly J[]
  /** Workers need a connection with `maxRetriesPerRequest: null`. */
  connection: Redis
  /** BullMQ key prefix; tests use their own. */
  prefix?: string | undefined
}

const jobOptions = (job: AnyJobDefinition): JobsOptions => ({
  attempts: job.attempts,
  backoff: { type: 'exponential', delay: job.backoffMs },
  removeOnComplete: 100,
  removeOnFail: 500,
})

/** The states of a run that has not started (or waits for its next try). */
const WAITING_STATES = new Set(['waiting', 'delayed', 'prioritized'])

const queueNames = (jobs: readonly AnyJobDefinition[]) => [...new Set(jobs.map((job) => job.queue))]

/**
 * Makes the schedulers of each queue exactly the registry's: upserts one per scheduled job (its id
 * is the job's name) and removes any other, so a job taken out of the registry stops firing.
 */
async function syncSchedulers(queue: Queue, jobs: readonly AnyJobDefinition[]): Promise<void> {
  const scheduled = jobs.filter((job) => job.queue === queue.name && job.schedule)
  const wanted = new Set(scheduled.map((job) => job.name))
  for (const existing of await queue.getJobSchedulers()) {
    if (!wanted.has(existing.key)) await queue.removeJobScheduler(existing.key)
  }
  for (const job of scheduled) {
    await queue.upsertJobScheduler(
      job.name,
      { pattern: job.schedule!.cron, tz: job.schedule!.tz },
      { name: job.name, data: job.payload.parse({}), opts: jobOptions(job) },
    )
  }
}

export type RunningWorkers = {
  workers: Worker[]
  /** Makes every queue's schedulers the registry's again (done at start and whenever Redis is back). */
  syncSchedulers(): Promise<void>
  close(): Promise<void>
}

/** Registers the schedulers and starts one worker per queue of the registry. */
export async function startBullmqWorkers(options: BullmqOptions & { services: Services; log: Logger }): Promise<RunningWorkers> {
  const { jobs, connection, prefix, services, log } = options
  const byName = new Map(jobs.map((job) => [job.name, job]))
  const workers: Worker[] = []
  const syncAll = async () => {
    for (const name of queueNames(jobs)) {
      const queue = new Queue(name, { connection, prefix })
      try {
        await syncSchedulers(queue, jobs)
      } finally {
        await queue.close()
      }
    }
  }
  await syncAll()
  // A Redis that restarted without its data has lost the job schedulers with everything else, and
  // nothing else would put them back: the calls-tick (which re-enqueues the lost delayed calls)
  // and the sweep would never run again. Each reconnection of this worker registers them again.
  const onReady = () => {
    syncAll().then(
      () => log.info('job schedulers registered again after Redis reconnected'),
      (err: unknown) => log.error({ err }, 'could not register the job schedulers after Redis reconnected'),
    )
  }
  connection.on('ready', onReady)
  // Parked runs (a call prepared ahead waiting for its instant) and how to wake them when closing.
  let closing = false
  const parked = new Set<() => void>()
  const waitUntil = (when: Date, wake?: Promise<unknown>) =>
    new Promise<void>((resolve, reject) => {
      if (closing) return reject(new JobStopping())
      const stop = () => {
        clearTimeout(timer)
        parked.delete(stop)
        reject(new JobStopping())
      }
      const resume = () => {
        if (!parked.delete(stop)) return
        clearTimeout(timer)
        resolve()
      }
      const timer = setTimeout(resume, Math.max(0, when.getTime() - services.clock.now().getTime()))
      parked.add(stop)
      void wake?.then(resume, resume)
    })
  for (const name of queueNames(jobs)) {
    const worker = new Worker(
      name,
      async (run) => {
        const job = byName.get(run.name)
        if (!job || job.queue !== name) throw new UnrecoverableError(`no job named "${run.name}" on queue ${name}`)
        const parsed = job.payload.safeParse(run.data)
        if (!parsed.success) throw new UnrecoverableError(`job ${job.name}: invalid payload: ${parsed.error.message}`)
        const attempt = run.attemptsMade + 1
        // The next try reads the job's data again: narrowed here, it does only what is left.
        const retryWith = async (narrowed: unknown) => {
          const checked = job.payload.safeParse(narrowed)
          if (!checked.success) throw new Error(`job ${job.name}: invalid payload: ${checked.error.message}`)
          await run.updateData(checked.data)
        }
        // The trace context its enqueuer left (BullMQ keeps it with the job's options as `telemetry.metadata`).
        const trace = { jobId: run.id!, attempt, trace: run.opts.telemetry?.metadata }
        return traceJobAttempt(job, trace, () =>
          measuredRun(services, job.name, () =>
            job.handler(services, parsed.data, { log: log.child({ queue: name, job: job.name, jobId: run.id, attempt }), jobId: run.id!, attempt, waitUntil, retryWith }),
          ),
        )
      },
      { connection, prefix, concurrency: Math.max(1, ...jobs.filter((job) => job.queue === name).map((job) => job.concurrency ?? 1)) },
    )
    worker.on('failed', (run, err) => log.error({ queue: name, job: run?.name, jobId: run?.id, err }, 'job failed'))
    worker.on('error', (err) => log.error({ queue: name, err }, 'worker error'))
    workers.push(worker)
  }
  await Promise.all(workers.map((worker) => worker.waitUntilReady()))
  return {
    workers,
    syncSchedulers: syncAll,
    async close() {
      connection.off('ready', onReady)
      // Parked runs give their work back (it is retried, here or on another worker) instead of
      // holding the shutdown until their instant.
      closing = true
      for (const stop of [...parked]) stop()
      await Promise.all(workers.map((worker) => worker.close()))
    },
  }
}

/** A queue's runs that could run and have not started, and how long the oldest has waited. */
export type QueueStats = { queue: string; waiting: number; oldestWaitingSeconds: number }

/** The BullMQ producer of the jobs J: enqueue takes only their names and payloads. */
export type BullmqEnqueuer<J extends AnyJobDefinition> = JobQueue<J> & {
  remove(name: J['name'], jobIds: readonly string[]): Promise<number>
  /** Each queue's runs waiting for a worker (delayed runs whose time has come included: no worker moved them). */
  stats(): Promise<QueueStats[]>
  close(): Promise<void>
}

/** BullMQ scores a delayed run by its due instant (ms) times 0x1000 plus a counter. */
const DELAYED_SCORE_PER_MS = 0x1000

/**
 * One queue's waiting runs, read from BullMQ's keys in Redis: the wait list (the oldest at its
 * right end, where workers take from), the prioritized set, and the delayed runs already due, which
 * wait for a worker to move them (none runs, or all are busy).
 */
async function queueStats(queue: Queue, client: Redis, now: number): Promise<QueueStats> {  const dueMax = (now + 1) * DELAYED_SCORE_PER_MS - 1
  const [counts, overdue, firstDelayed, oldestId] = await Promise.all([
    queue.getJobCounts('wait', 'prioritized'),
    client.zcount(queue.keys.delayed!, 0, dueMax),
    client.zrange(queue.keys.delayed!, '0', '0', 'WITHSCORES'),
    client.lindex(queue.keys.wait!, -1),
  ])
  let oldestReadyAt = Number.POSITIVE_INFINITY
  if (oldestId) {
    const [timestamp, delay] = await client.hmget(queue.toKey(oldestId), 'timestamp', 'delay')
    if (timestamp) oldestReadyAt = Number(timestamp) + Number(delay ?? 0)
  }
  if (overdue > 0 && firstDelayed[1]) oldestReadyAt = Math.min(oldestReadyAt, Math.floor(Number(firstDelayed[1]) / DELAYED_SCORE_PER_MS))
  return {
    queue: queue.name,
    waiting: (counts.wait ?? 0) + (counts.prioritized ?? 0) + overdue,
    oldestWaitingSeconds: Number.isFinite(oldestReadyAt) ? Math.max(0, (now - oldestReadyAt) / 1000) : 0,
  }
}

/** Enqueues runs on BullMQ (the server's and the worker's producer side) of the jobs given (the registry, JOBS, in the app). */
export function createBullmqEnqueuer<J extends AnyJobDefinition>(options: BullmqOptions<J>): BullmqEnqueuer<J> {
  const { jobs, connection, prefix } = options
  const byName = new Map<string, AnyJobDefinition>(jobs.map((job) => [job.name, job]))
  const queues = new Map(queueNames(jobs).map((name) => [name, new Queue(name, { connection, prefix })]))
  return {
    async enqueue(name, payload, enqueueOptions: EnqueueOptions = {}): Promise<string> {
      const job = byName.get(name)
      if (!job) throw new Error(`no job named "${name}"`)
      const data = job.payload.parse(payload)
      return traceEnqueue(job, async (trace) => {
        const added = await queues.get(job.queue)!.add(job.name, data, {
          ...jobOptions(job),
          ...(enqueueOptions.delayMs ? { delay: enqueueOptions.delayMs } : {}),
          ...(enqueueOptions.jobId ? { jobId: enqueueOptions.jobId } : {}),
          ...(trace ? { telemetry: { metadata: trace } } : {}),
        })
        return added.id!
      })
    },
    /** Removes waiting or delayed runs by id (a run a worker holds is left to finish: BullMQ answers 0 for it). */
    async remove(name, jobIds) {
      const job = byName.get(name)
      if (!job) throw new Error(`no job named "${name}"`)
      const queue = queues.get(job.queue)!
      let removed = 0
      for (const jobId of jobIds) {
        const run = await queue.getJob(jobId)
        // Ids are per queue: only a run of this job, and only one that has not started (a run
        // waiting for its retry is delayed); finished runs are history.
        if (run?.name !== name || !WAITING_STATES.has(await run.getState())) continue
        removed += await queue.remove(jobId)
      }
      return removed
    },
    stats() {
      // BullMQ's own instants are the machine's time.
      const now = Date.now()
      return Promise.all([...queues.values()].map((queue) => queueStats(queue, connection, now)))
    },
    async close() {
      await Promise.all([...queues.values()].map((queue) => queue.close()))
    },
  }
}
