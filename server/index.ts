/**
 * The server entry: read the configuration, apply migrations, listen; on SIGTERM/SIGINT stop
 * accepting, finish the requests in flight, close the database and Redis, and exit 0.
 * WEB_CONCURRENCY above 1: this process supervises that many such server processes (./cluster).
 */
import cluster from 'node:cluster'
import closeWithGrace from 'close-with-grace'
import type { Logger } from 'pino'
import { buildApp } from './app'
import { PROCESS_DEADLINE_MS, reportReady, supervise, underSupervisor } from './cluster'
import { ConfigError, loadConfig, type Config } from './config'
import { openDatabase } from './db/client'
import { systemClock } from './lib/clock'
import { answerMetricsRequests } from './observability/cluster-metrics'
import { DEFAULT_METRICS_PORT, serveMetrics, type MetricsListener } from './observability/metrics-server'
import { startTracing, stopTracing } from './observability/tracing'
import { seedCoursesIfEmpty } from '#server/services/courses'
import { seedGoalTemplatesIfEmpty } from '#server/services/goal-templates'

let config: Config
try {
  config = loadConfig()
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(error.message)
    process.exit(1)
  }
  throw error
}

const supervised = config.serverProcesses > 1
if (supervised && cluster.isPrimary) supervise(config)
else await serve(config, supervised)

async function serve(config: Config, supervised: boolean): Promise<void> {
  // Before the database, the logger and the app are made, so that each is traced (when it is on).
  await startTracing(config.tracing, 'server')
  const database = await openDatabase(
    config.databaseUrl ? { databaseUrl: config.databaseUrl } : { dataDir: config.dataDir },
  ).catch((error: unknown) => {
    console.error(`Cannot open the database: ${(error as Error).message}`)
    process.exit(1)
  })

  try {
    await database.migrate()
  } catch (error) {
    console.error(`Cannot apply migrations: ${(error as Error).message}`)
    await database.close().catch(() => {})
    process.exit(1)
  }

  // The embedded default's first start: load the starter courses and goal templates so a newcomer sees them.
  if (!config.databaseUrl) {
    const seeded = await seedCoursesIfEmpty(database.db, systemClock.now()).catch((error: unknown) => {
      console.error(`Cannot load the starter courses: ${(error as Error).message}`)
      return null
    })
    if (seeded) console.log(`Loaded the starter course catalogue: ${seeded.courses} courses, ${seeded.lessons} lessons.`)
    const templates = await seedGoalTemplatesIfEmpty(database.db, systemClock.now()).catch((error: unknown) => {
      console.error(`Cannot load the starter goal templates: ${(error as Error).message}`)
      return null
    })
    if (templates) console.log(`Loaded the starter goal templates: ${templates.templates} templates.`)
  }

  const app = await buildApp(config, { database })
  app.addHook('onClose', async () => {
    await database.close()
  })

  // The metrics' own listener (not under a supervisor, which serves them itself).
  let metricsListener: MetricsListener | null = null
  // Under the supervisor, it decides when to stop (a terminal's SIGINT reaches every process).
  const grace = closeWithGrace(
    { delay: supervised ? PROCESS_DEADLINE_MS : 10_000, skip: supervised ? ['SIGTERM', 'SIGINT'] : [] },
    async ({ signal, err }) => {
      if (err) app.log.error({ err }, 'shutting down after an error')
      else app.log.info({ signal: signal ?? 'supervisor' }, 'shutting down: finishing requests in flight')
      await metricsListener?.close()
      await app.close()
      await stopTracing()
    },
  )
  if (supervised) underSupervisor(() => void grace.close())

  try {
    await app.listen({ port: config.port, host: config.host })
    if (supervised) {
      // The supervisor serves the metrics of all its processes; each answers its request for them.
      answerMetricsRequests(app.services.metrics.registry)
      app.log.info('server process ready')
      reportReady()
    } else {
      const metrics = await serveMetrics({
        port: config.metrics.port,
        host: config.metrics.host,
        defaultPort: DEFAULT_METRICS_PORT.server,
        render: async () => ({ body: await app.services.metrics.render(), contentType: app.services.metrics.contentType }),
        log: app.log as Logger,
      })
      if (metrics) {
        metricsListener = metrics
        app.log.info({ port: metrics.port, host: config.metrics.host }, 'metrics served at /metrics')
      }
      app.log.info(
        { url: config.appUrl, database: database.driver, redis: config.redisUrl ? 'on' : 'off' },
        'Momentum Coach is ready',
      )
    }
  } catch (error) {
    app.log.error({ err: error }, 'cannot listen')
    await app.close()
    process.exit(1)
  }
}
