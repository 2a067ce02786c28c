/**
 * The servers under test, in a process of their own so the load generator does not share it:
 * the app's full plugin stack, and a bare Fastify doing the same work without it.
 * Prints one JSON line with the ports when ready.
 */
import { createWriteStream, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Fastify from 'fastify'
import { buildApp } from '../server/app'
import { loadConfig } from '../server/config'
import { openDatabase } from '../server/db/client'

const databaseUrl = process.env.BENCH_DATABASE_URL || undefined
const database = await openDatabase(
  databaseUrl ? { databaseUrl } : { dataDir: mkdtempSync(join(tmpdir(), 'mc-bench-')) },
)
await database.migrate()

// The production logger level (info), written where it costs what a file would.
const app = await buildApp(loadConfig({ LOG_LEVEL: 'info' }), {
  database,
  logger: process.env.BENCH_NOLOG ? false : { level: 'info', stream: createWriteStream('/dev/null') },
})
await app.listen({ port: 0, host: '127.0.0.1' })

// Baseline: a bare Fastify route answering the same JSON (the same database ping included).
const bare = Fastify({ logger: false })
const startedAt = Date.now()
bare.get('/api/health', async () => {
  await database.ping()
  return {
    status: 'ok',
    database: { state: 'up', driver: database.driver },
    redis: { state: 'not_configured' },
    uptimeSeconds: Math.round((Date.now() - startedAt) / 1000),
    version: '0.1.0',
  }
})
await bare.listen({ port: 0, host: '127.0.0.1' })

const portOf = (server: { server: { address(): unknown } }) => (server.server.address() as { port: number }).port
console.log(JSON.stringify({ app: portOf(app), bare: portOf(bare), driver: database.driver }))

process.on('SIGTERM', async () => {
  await app.close()
  await bare.close()
  await database.close()
  process.exit(0)
})
