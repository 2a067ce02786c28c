/**
 * The servers under test, in a process of their own so the load generator does not share it:
 * the app's full plugin stack, and a bare Fastify doing the same work (the same queries through
 * the same driver) without it. Prints one JSON line with the ports and a signed-in session.
 */
import { createWriteStream, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Fastify from 'fastify'
import { buildApp } from '../server/app'
import { validateSessionToken } from '../server/auth/session'
import { loadConfig } from '../server/config'
import { openDatabase } from '../server/db/client'
import { systemClock } from '../server/lib/clock'
import { toSessionUser } from '../server/services/access'
import { signUp } from '../server/services/accounts'

const databaseUrl = process.env.BENCH_DATABASE_URL || undefined
const database = await openDatabase(databaseUrl ? { databaseUrl } : { dataDir: mkdtempSync(join(tmpdir(), 'mc-bench-')) })
await database.migrate()

// The production logger level (info), written where it costs what a file would.
const app = await buildApp(loadConfig({ LOG_LEVEL: 'info' }), {
  database,
  logger: { level: 'info', stream: createWriteStream('/dev/null') },
})
await app.listen({ port: 0, host: '127.0.0.1' })

// A user with a session, for the authenticated benchmarks.
const password = 'bench-lantern-harbor-velvet'
const { user, session } = await signUp(
  app.accountDeps,
  { fullName: 'Bench User', email: `bench-${process.pid}@example.com`, phoneNumber: '5551234567', password },
  { ip: '10.9.9.9' },
)

// Baselines: bare Fastify routes answering the same JSON with the same queries.
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
bare.get('/api/me', async (request, reply) => {
  const token = /(?:^|;\s*)session=([^;]+)/.exec(request.headers.cookie ?? '')?.[1]
  const valid = token ? await validateSessionToken(database.db, systemClock, token) : null
  if (!valid) return reply.code(401).send({ error: { code: 'UNAUTHENTICATED', message: 'Please log in to continue.' } })
  return { user: await toSessionUser(database.db, valid.user) }
})
await bare.listen({ port: 0, host: '127.0.0.1' })

const portOf = (server: { server: { address(): unknown } }) => (server.server.address() as { port: number }).port
console.log(
  JSON.stringify({
    app: portOf(app),
    bare: portOf(bare),
    driver: database.driver,
    cookie: `session=${session.token}`,
    sessionId: session.token.split('.')[0],
    email: user.email,
    password,
  }),
)

process.on('SIGTERM', async () => {
  await app.close()
  await bare.close()
  await database.close()
  process.exit(0)
})
