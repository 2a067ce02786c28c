/**
 * WEB_CONCURRENCY above 1: this process becomes a supervisor that forks that many server processes
 * (node:cluster). They share the listening port: the supervisor accepts each connection and hands
 * it to the next process in turn. Everything they share lives in PostgreSQL and Redis (sessions,
 * rate limits, voice call leases, the live channel), as for servers on separate machines
 * (docs/decisions/053-server-processes.md).
 *
 * The supervisor says "Momentum Coach is ready" once every process listens; a process that dies
 * before that fails the start (exit 1: a configuration or database problem would kill its
 * replacements too), one that dies later is replaced after a backoff. SIGTERM or SIGINT: every
 * process is told to shut down (each ends its voice sessions and finishes its requests), and the
 * supervisor exits once they have, or kills what is left at the deadline.
 */
import cluster, { type Worker } from 'node:cluster'
import pino from 'pino'
import type { Config } from './config'
import { loggerOptions } from './lib/logger'
import { clusterScrape } from './observability/cluster-metrics'
import { DEFAULT_METRICS_PORT, serveMetrics } from './observability/metrics-server'

/** What a server process tells the supervisor, and what it is told. */
type ProcessMessage = { type: 'ready' } | { type: 'shutdown' }

/** The supervisor's deadline after SIGTERM; each process's own is a second shorter. */
const SUPERVISOR_DEADLINE_MS = 10_000
export const PROCESS_DEADLINE_MS = 9000

/** A crashed process is replaced after 1 s, doubling to 30 s while they keep crashing within a minute. */
const RESTART = { firstMs: 1000, maxMs: 30_000, stableMs: 60_000 }

export function supervise(config: Config): void {
  const log = pino(loggerOptions(config.logLevel))
  const count = config.serverProcesses
  const ready = new Set<number>()
  let announced = false
  let stopping = false
  let failures = 0

  const fork = () => {
    const worker = cluster.fork()
    const startedAt = Date.now()
    worker.on('message', (message: ProcessMessage) => {
      if (message?.type !== 'ready') return
      ready.add(worker.id)
      if (!announced && ready.size === count) {
        announced = true
        log.info({ url: config.appUrl, processes: count, database: 'postgres', redis: 'on' }, 'Momentum Coach is ready')
      }
    })
    worker.on('exit', (code, signal) => onExit(worker, startedAt, code, signal))
  }

  const onExit = (worker: Worker, startedAt: number, code: number | null, signal: string | null) => {
    const wasReady = ready.delete(worker.id)
    if (stopping) {
      if (code !== 0) {
        log.error({ pid: worker.process.pid, code, signal }, 'a server process did not stop cleanly')
        exitCode = 1
      }
      if (Object.keys(cluster.workers ?? {}).length === 0) finish(0)
      return
    }
    if (!wasReady && !announced) {
      log.error({ pid: worker.process.pid, code, signal }, 'a server process failed to start; stopping')
      return void shutdown(1)
    }
    failures = Date.now() - startedAt > RESTART.stableMs ? 1 : failures + 1
    const delay = Math.min(RESTART.maxMs, RESTART.firstMs * 2 ** (failures - 1))
    log.error({ pid: worker.process.pid, code, signal, restartInMs: delay }, 'a server process exited; replacing it')
    setTimeout(() => {
      if (!stopping) fork()
    }, delay).unref()
  }

  let exitCode = 0
  const finish = (code: number) => {
    log.flush()
    process.exit(Math.max(code, exitCode))
  }

  const shutdown = (code: number, signal?: string) => {
    exitCode = Math.max(exitCode, code)
    if (stopping) return
    stopping = true
    if (signal) log.info({ signal, processes: count }, 'shutting down: telling every server process')
    const workers = Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => worker !== undefined)
    if (workers.length === 0) return finish(exitCode)
    for (const worker of workers) if (worker.isConnected()) worker.send({ type: 'shutdown' } satisfies ProcessMessage)
    setTimeout(() => {
      const left = Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => worker !== undefined)
      log.error({ processes: left.length }, 'server processes still running at the deadline; killing them')
      for (const worker of left) worker.process.kill('SIGKILL')
      finish(1)
    }, SUPERVISOR_DEADLINE_MS).unref()
  }

  process.on('SIGTERM', () => shutdown(0, 'SIGTERM'))
  process.on('SIGINT', () => shutdown(0, 'SIGINT'))
  for (let n = 0; n < count; n++) fork()

  // One scrape for every process, served by the supervisor (the processes serve none themselves).
  serveMetrics({ port: config.metrics.port, host: config.metrics.host, defaultPort: DEFAULT_METRICS_PORT.server, render: clusterScrape(), log }).then(
    (listener) => {
      if (listener) log.info({ port: listener.port, host: config.metrics.host, processes: count }, 'metrics of every server process served at /metrics')
    },
    (error: unknown) => {
      log.error({ err: error, port: config.metrics.port }, 'cannot serve the metrics; stopping')
      void shutdown(1)
    },
  )
}

/**
 * In a server process under the supervisor: `stop` runs (once) when the supervisor says so, on
 * SIGTERM sent to this process, or when the supervisor is gone. SIGINT is the supervisor's to
 * handle (a terminal's Ctrl-C reaches every process of the group).
 */
export function underSupervisor(stop: () => void): void {
  let stopped = false
  const once = () => {
    if (stopped) return
    stopped = true
    stop()
  }
  process.on('message', (message: ProcessMessage) => {
    if (message?.type === 'shutdown') once()
  })
  process.on('disconnect', once)
  process.on('SIGTERM', once)
  process.on('SIGINT', () => {})
}

/** Tells the supervisor this process listens (a no-op outside one). */
export function reportReady(): void {
  if (cluster.isWorker) process.send?.({ type: 'ready' } satisfies ProcessMessage)
}
