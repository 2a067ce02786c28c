/**
 * The BullMQ worker (`npm run worker`): connects to Redis and PostgreSQL, registers the job
 * schedulers, processes jobs, and shuts down cleanly on SIGTERM/SIGINT. Any number can run.
 */
import { Queue, Worker } from 'bullmq'
import closeWithGrace from 'close-with-grace'
import { Redis } from 'ioredis'
import { pino } from 'pino'
import { ConfigError, loadConfig, type Config } from '../server/config'
import { openDatabase } from '../server/db/client'
import { CLEANUP_CRON, CLEANUP_JOB, CLEANUP_SCHEDULER_ID, MAINTENANCE_QUEUE } from '../server/jobs/maintenance'
import { loggerOptions } from '../server/lib/logger'
import { createMaintenanceProcessor } from './processors/maintenance'

let config: Config
try {
  config = loadConfig()
  if (!config.redisUrl) throw new ConfigError('REDIS_URL', 'is required by the worker (without it the server schedules jobs in-process)')
  if (!config.databaseUrl) throw new ConfigError('DATABASE_URL', 'is required by the worker (the embedded database belongs to the server process)')
} catch (error) {
  console.error(error instanceof ConfigError ? error.message : String(error))
  process.exit(1)
}

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

const maintenance = new Queue(MAINTENANCE_QUEUE, { connection })
await maintenance.upsertJobScheduler(
  CLEANUP_SCHEDULER_ID,
  { pattern: CLEANUP_CRON, tz: 'UTC' },
  { name: CLEANUP_JOB, opts: { removeOnComplete: 100, removeOnFail: 500, attempts: 3, backoff: { type: 'exponential', delay: 30_000 } } },
)

const workers = [
  new Worker(MAINTENANCE_QUEUE, createMaintenanceProcessor(database.db, log.child({ queue: MAINTENANCE_QUEUE })), {
    connection,
    concurrency: 1,
  }),
]
for (const worker of workers) {
  worker.on('failed', (job, err) => log.error({ queue: worker.name, jobId: job?.id, err }, 'job failed'))
  worker.on('error', (err) => log.error({ queue: worker.name, err }, 'worker error'))
}

closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
  if (err) log.error({ err }, 'worker shutting down after an error')
  else log.info({ signal }, 'worker shutting down')
  await Promise.all(workers.map((worker) => worker.close()))
  await maintenance.close()
  await database.close()
  await connection.quit().catch(() => connection.disconnect())
})

log.info({ queues: workers.map((worker) => worker.name) }, 'worker ready')
