/**
 * The embedded job runner (no REDIS_URL: the contract's in-process scheduler). It runs the same job
 * definitions as the BullMQ worker, with the same payload check and retries, inside the server
 * process. Time comes from the injected clock and timers, so a test drives the schedule on a test
 * clock instead of waiting; croner does the cron arithmetic (time zones, DST).
 */
import { randomUUID } from 'node:crypto'
import { Cron } from 'croner'
import type { Logger } from 'pino'
import type { Services } from '../container'
import { realTimers, type Clock, type Timers } from '../lib/clock'
import type { EnqueueOptions, JobContract, JobQueue } from '../lib/job-contract'
import { traceEnqueue, traceJobAttempt } from '../observability/tracing'
import type { AppJob } from './contracts'
import { JobStopping, measuredRun, type AnyJobDefinition } from './define'

/** The timer functions the runner arms (tests pass manual ones): defined with the clock. */
export { type Timers } from '../lib/clock'

/** The longest delay setTimeout takes; a later instant is reached in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1

/** The runner of the jobs J (the registry's by default): enqueue takes only their names and payloads. */
export type JobRunner<J extends JobContract = AppJob> = JobQueue<J> & {
  /** Takes runs that wait (to start, or to be tried again) out of the queue by id; resolves to how many. */
  remove(name: J['name'], jobIds: readonly string[]): Promise<number>
  /** Resolves once no run is in progress (runs started meanwhile included; parked runs are not in progress). */
  drain(): Promise<void>
  /** Each queue's runs waiting for a free slot of their queue, and how long the oldest has waited. */
  stats(): Array<{ queue: string; waiting: number; oldestWaitingSeconds: number }>
  /** Stops the schedules and pending runs, and waits for the runs in progress. */
  stop(): Promise<void>
}

type InProcessRunnerOptions<J extends AnyJobDefinition = AnyJobDefinition> = {
  jobs: readonly J[]
  services: Services
  log: Logger
  clock?: Clock
  timers?: Timers
}

/** Runs the jobs given (the registry, JOBS, in the app); its enqueue is typed by their contracts. */
export function startInProcessRunner<J extends AnyJobDefinition>(options: InProcessRunnerOptions<J>): JobRunner<J> {
  const { jobs, services, log } = options
  const clock = options.clock ?? services.clock
  const timers = options.timers ?? realTimers
  const byName = new Map<string, AnyJobDefinition>(jobs.map((job) => [job.name, job]))
  const armed = new Set<unknown>()
  // Runs waiting for their time (to start, or for their next try), by job id: a run fires only
  // while its own entry is there (`remove` deletes it; an id enqueued again gets a new entry).
  const waiting = new Map<string, { name: string }>()
  const inFlight = new Set<Promise<void>>()
  let stopped = false
  // Runs in progress and not parked (drain waits for these), and the parked runs' wake-ups.
  let busy = 0
  const idleWaiters: Array<() => void> = []
  const parked = new Set<(error: Error) => void>()
  const idle = () => {
    if (busy === 0) for (const wake of idleWaiters.splice(0)) wake()
  }

  /** Calls `fn` once the clock reaches `when` (re-arming when a timer fires early). */
  /** Runs `fn` at `when` on the runner's timers; returns what cancels it. */
  function at(when: Date, fn: () => void): () => void {
    let handle: unknown
    const arm = () => {
      if (stopped) return
      const delay = Math.min(Math.max(0, when.getTime() - clock.now().getTime()), MAX_TIMER_MS)
      handle = timers.setTimeout(() => {
        armed.delete(handle)
        if (stopped) return
        if (clock.now().getTime() < when.getTime()) arm()
        else fn()
      }, delay)
      armed.add(handle)
    }
    arm()
    return () => {
      if (handle === undefined) return
      timers.clearTimeout(handle as Parameters<Timers['clearTimeout']>[0])
      armed.delete(handle)
    }
  }

  // Runs of a queue at once, as a BullMQ worker takes them: the largest `concurrency` of the
  // queue's jobs (default 1), so a burst of one kind of work never takes every database connection.
  const limits = new Map<string, { running: number; max: number; queued: Array<{ start: () => void; since: number }> }>()
  for (const job of jobs) {
    const limit = limits.get(job.queue) ?? { running: 0, max: 1, queued: [] }
    limit.max = Math.max(limit.max, job.inProcessConcurrency ?? job.concurrency ?? 1)
    limits.set(job.queue, limit)
  }
  /** A free slot of the queue at once (the run starts in this tick, as before), or one to wait for. */
  function slot(queue: string): (() => void) | Promise<() => void> {
    const limit = limits.get(queue)!
    const release = () => {
      limit.running--
      limit.queued.shift()?.start()
    }
    if (limit.running < limit.max) {
      limit.running++
      return release
    }
    return new Promise((resolve) =>
      limit.queued.push({
        start: () => {
          limit.running++
          resolve(release)
        },
        since: clock.now().getTime(),
      }),
    )
  }

  /** One try of a run; schedules the next try after a failure while tries are left. `trace`: its enqueuer's trace context. */
  function attempt(job: AnyJobDefinition, payload: unknown, jobId: string, tryNumber: number, trace?: string): Promise<void> {
    const runLog = log.child({ job: job.name, jobId, attempt: tryNumber })
    // The next try's payload: this one, unless the handler narrows it to what is left (retryWith).
    let nextPayload = payload
    const retryWith = async (narrowed: unknown) => {
      nextPayload = parse(job, narrowed)
    }
    busy++
    const waitUntil = (when: Date, wake?: Promise<unknown>) =>
      new Promise<void>((resolve, reject) => {
        if (stopped) return reject(new JobStopping())
        let cancel = () => {}
        const abort = (error: Error) => {
          parked.delete(abort)
          cancel()
          busy++
          reject(error)
        }
        const resume = () => {
          if (!parked.delete(abort)) return
          cancel()
          busy++
          resolve()
        }
        parked.add(abort)
        busy--
        idle()
        cancel = at(when, resume)
        void wake?.then(resume, resume)
      })
    const run = (async () => {
      const free = slot(job.queue)
      const release = typeof free === 'function' ? free : await free
      if (stopped) {
        release()
        return
      }
      try {
        await traceJobAttempt(job, { jobId, attempt: tryNumber, trace }, () =>
          measuredRun(services, job.name, () => job.handler(services, payload, { log: runLog, jobId, attempt: tryNumber, waitUntil, retryWith })),
        )
      } catch (error) {
        if (tryNumber < job.attempts && !stopped) {
          const waitMs = job.backoffMs * 2 ** (tryNumber - 1)
          runLog.warn({ err: error, retryInMs: waitMs }, 'job failed; it will be retried')
          const entry = { name: job.name }
          waiting.set(jobId, entry)
          at(new Date(clock.now().getTime() + waitMs), () => {
            if (waiting.get(jobId) !== entry) return
            waiting.delete(jobId)
            void attempt(job, nextPayload, jobId, tryNumber + 1, trace)
          })
        } else if (stopped && error instanceof JobStopping) {
          runLog.info('job given back: the runner stopped while it was parked')
        } else {
          runLog.error({ err: error }, 'job failed')
        }
      } finally {
        release()
      }
    })()
    inFlight.add(run)
    void run.finally(() => {
      inFlight.delete(run)
      busy--
      idle()
    })
    return run
  }

  function parse(job: AnyJobDefinition, payload: unknown): unknown {
    const parsed = job.payload.safeParse(payload)
    if (!parsed.success) throw new Error(`job ${job.name}: invalid payload: ${parsed.error.message}`)
    return parsed.data
  }

  for (const job of jobs) {
    if (!job.schedule) continue
    const cron = new Cron(job.schedule.cron, { timezone: job.schedule.tz, paused: true })
    const data = parse(job, {})
    const arm = (from: Date) => {
      const next = cron.nextRun(from)
      if (!next) return
      at(next, () => {
        // The next occurrence is counted from now, so a process that slept runs once, not once per missed slot.
        void attempt(job, data, `${job.name}:${next.toISOString()}`, 1).finally(() => arm(clock.now()))
      })
    }
    arm(clock.now())
  }

  return {
    async enqueue(name, payload, enqueueOptions: EnqueueOptions = {}) {
      const job = byName.get(name)
      if (!job) throw new Error(`no job named "${name}"`)
      const data = parse(job, payload)
      return traceEnqueue(job, async (trace) => {
        const jobId = enqueueOptions.jobId ?? randomUUID()
        if (waiting.has(jobId)) return jobId
        const entry = { name: job.name }
        waiting.set(jobId, entry)
        at(new Date(clock.now().getTime() + (enqueueOptions.delayMs ?? 0)), () => {
          if (waiting.get(jobId) !== entry) return
          waiting.delete(jobId)
          void attempt(job, data, jobId, 1, trace)
        })
        return jobId
      })
    },
    async remove(name, jobIds) {
      let removed = 0
      for (const jobId of jobIds) {
        if (waiting.get(jobId)?.name !== name) continue
        waiting.delete(jobId)
        removed++
      }
      return removed
    },
    stats() {
      const now = clock.now().getTime()
      return [...limits].map(([queue, limit]) => ({
        queue,
        waiting: limit.queued.length,
        oldestWaitingSeconds: limit.queued[0] ? Math.max(0, (now - limit.queued[0].since) / 1000) : 0,
      }))
    },
    async drain() {
      while (busy > 0) await new Promise<void>((resolve) => idleWaiters.push(resolve))
    },
    async stop() {
      stopped = true
      for (const handle of armed) timers.clearTimeout(handle)
      armed.clear()
      waiting.clear()
      for (const abort of [...parked]) abort(new JobStopping())
      await Promise.allSettled([...inFlight])
    },
  }
}

/**
 * The services' job queue in the embedded mode. The in-process runner needs the services, which
 * need a queue: createServices gets this one, and the scheduler plugin binds the runner to it once
 * it has started (before the server takes requests).
 */
export type DeferredQueue = Pick<JobRunner, 'enqueue' | 'remove' | 'stats'> & { bind(runner: JobRunner): void }

export function deferredQueue(): DeferredQueue {
  let target: JobRunner | undefined
  return {
    enqueue(name, payload, options) {
      if (!target) return Promise.reject(new Error(`cannot enqueue "${name}": the in-process job runner has not started`))
      return target.enqueue(name, payload, options)
    },
    remove(name, jobIds) {
      return target ? target.remove(name, jobIds) : Promise.resolve(0)
    },
    stats() {
      return target ? target.stats() : []
    },
    bind(runner) {
      target = runner
    },
  }
}
