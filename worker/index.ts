/**
 * The BullMQ worker (`npm run worker`): connects to Redis and PostgreSQL, registers the job
 * schedulers, processes jobs, and shuts down cleanly on SIGTERM/SIGINT. Any number can run.
 */
import closeWithGrace from 'close-with-grace'
import { Redis } from 'ioredis'
import { pino } from 'pino'
import { ConfigError, loadConfig, type Config } from '#server/config'
import { createServices } from '#server/container'
import { createBullmqEnqueuer } from '#server/jobs/bullmq'
import { JOBS } from '#server/jobs/index'
import { openDatabase } from '#server/db/client'
import { systemClock } from '#server/lib/clock'
import { loggerOptions } from '#server/lib/logger'
import { createMetrics } from '#server/observability/metrics'
import { DEFAULT_METRICS_PORT, serveMetrics, type MetricsListener } from '#server/observability/metrics-server'
import { startTracing, stopTracing } from '#server/observability/tracing'
import { startWorker } from './worker'

let config: Config
try {
  config = loadConfig()
  if (!config.redisUrl) {
    throw new ConfigError('REDIS_URL', 'is required by the worker (without it the server schedules jobs in-process)')
  }
  if (!config.databaseUrl) {
    throw new ConfigError('DATABASE_URL', 'is required by the worker (the embedded database belongs to the server process)')
  }
} catch (error) {
  console.error(error instanceof ConfigError ? error.message : String(error))
  process.exit(1)
}

// Before the logger and the database are made, so that each is traced (when it is on).
await startTracing(config.tracing, 'worker')
const log = pino(loggerOptions(config.logLevel)).child({ process: 'worker' })
const connection = new Redis(config.redisUrl!, { maxRetriesPerRequest: null })
connection.on('error', (err) => log.error({ err }, 'redis connection error'))

try {
  await connection.ping()
} catch (error) {
  log.fatal({ err: error }, 'cannot reach Redis')
  process.exit(1)
}

const database = await openDatabase({ databaseUrl: config.databaseUrl!, maxConnections: 5 })
try {
  await database.ping()
  await database.migrate()
} catch (error) {
  log.fatal({ err: error }, 'cannot reach PostgreSQL')
  connection.disconnect()
  process.exit(1)
}

// A job may enqueue another: the worker's services enqueue on BullMQ too.
const jobs = createBullmqEnqueuer({ jobs: JOBS, connection })
const metrics = createMetrics({ log, processMetrics: config.metrics.port !== 0 })
metrics.provide({ queues: () => jobs.stats() })
const services = createServices(config, { db: database.db, redis: connection, clock: systemClock, log, jobs, metrics })
const running = await startWorker({ services, connection, log })

// The worker's own metrics (its job runs, the queues, the calls it dials), on a port of its own.
let metricsListener: MetricsListener | null = null
try {
  metricsListener = await serveMetrics({
    port: config.metrics.port,
    host: config.metrics.host,
    defaultPort: DEFAULT_METRICS_PORT.worker,
    render: async () => ({ body: await metrics.render(), contentType: metrics.contentType }),
    log,
  })
  if (metricsListener) log.info({ port: metricsListener.port, host: config.metrics.host }, 'metrics served at /metrics')
} catch (error) {
  log.fatal({ err: error, port: config.metrics.port }, 'cannot serve the metrics')
  await running.close()
  process.exit(1)
}

closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
  if (err) log.error({ err }, 'worker shutting down after an error')
  else log.info({ signal }, 'worker shutting down')
  await metricsListener?.close()
  await running.close()
  await jobs.close()
  await services.close()
  await database.close()
  await connection.quit().catch(() => connection.disconnect())
  await stopTracing()
})

log.info({ queues: running.workers.map((worker) => worker.name) }, 'worker ready')
