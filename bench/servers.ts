/**
 * The servers under test, in a process of their own so the load generator does not share it:
 * the app's full plugin stack, and a bare Fastify doing the same work (the same queries through
 * the same driver) without it. Prints one JSON line with the ports and a signed-in session, and
 * answers 'cpu' on the IPC channel with its CPU time so far.
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Fastify from 'fastify'
import { buildApp } from '#server/app'
import { validateSessionToken } from '#server/auth/session'
import { loadConfig } from '#server/config'
import { serverLogger } from '#server/lib/logger'
import { openDatabase } from '#server/db/client'
import { systemClock } from '#server/lib/clock'
import { sessionUserFrom } from '#server/services/accounts'
import { activateTestingPlan, assertPaid, decideAccess } from '#server/services/billing'
import { LIFE_AREA_STEPS, emptyGoalsForm } from '#common/goals'
import { coachingCalls } from '#server/db/schema'
import { recentCalls } from '#server/services/calls'
import { loadGoals, saveGoals } from '#server/services/goals'

const databaseUrl = process.env.BENCH_DATABASE_URL || undefined
const database = await openDatabase(databaseUrl ? { databaseUrl } : { dataDir: mkdtempSync(join(tmpdir(), 'mc-bench-')) })
await database.migrate()

// The production logger (info, one line per request) with its production destination (batched
// writes), aimed at /dev/null instead of stdout.
const app = await buildApp(loadConfig({ LOG_LEVEL: 'info' }), {
  database,
  logger: serverLogger('info', '/dev/null'),
})
await app.listen({ port: 0, host: '127.0.0.1' })
// The same app with its metrics off (METRICS_PORT=0): what the metrics cost is the difference.
const appWithoutMetrics = await buildApp(loadConfig({ LOG_LEVEL: 'info', METRICS_PORT: '0' }), {
  database,
  logger: serverLogger('info', '/dev/null'),
})
await appWithoutMetrics.listen({ port: 0, host: '127.0.0.1' })

// A user with a session, for the authenticated benchmarks.
const password = 'bench-lantern-harbor-velvet'
const { user, session } = await app.services.accounts.signUp(
  { fullName: 'Bench User', email: `bench-${process.pid}@example.com`, phoneNumber: '2025234567', password },
  { ip: '10.9.9.9' },
)

// The dashboard benchmark's user: paid, full goals (10 records) and 5 coaching calls.
const dashboardUser = await app.services.accounts.signUp(
  { fullName: 'Dashboard Bench', email: `bench-dashboard-${process.pid}@example.com`, phoneNumber: '2025234567', password },
  { ip: '10.9.9.10' },
)
{
  const userId = dashboardUser.user.id
  await activateTestingPlan(database.db, userId, 'premium', new Date())
  const form = emptyGoalsForm()
  LIFE_AREA_STEPS.forEach((area, index) => {
    form.areas[area.id] = { selectedOptions: area.options.slice(0, 2).map((o) => o.id), satisfactionScore: (index % 10) + 1, customNotes: `Notes about ${area.title}` }
  })
  form.workCareer = { company: 'northwind_traders', industry: 'technology_software', role: 'Engineer' }
  form.specificGoals = { goal90Days: 'Run a 5k', goal12Months: 'Ship the product', goal5Years: 'Lead a team', obstacles: 'Time' }
  form.callTime = { time: '7:30', period: 'AM', timezone: 'eastern' }
  await saveGoals(database.db, userId, form, new Date())
  await database.db.insert(coachingCalls).values(
    Array.from({ length: 5 }, (_, i) => ({
      userId,
      callDate: new Date(Date.now() - (i + 1) * 86_400_000),
      callDuration: 300 + i * 17,
      areasDiscussed: ['fitness', 'finance'],
      completionStatus: 'completed' as const,
    })),
  )
}

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
  return { user: sessionUserFrom(valid.user, valid.profile, new Date()) }
})
// The dashboard's two loads: the session with its access row, the paid check, then the goals or
// the last 5 calls.
const bareSession = async (cookie: string | undefined) => {
  const token = /(?:^|;\s*)session=([^;]+)/.exec(cookie ?? '')?.[1]
  return token ? await validateSessionToken(database.db, systemClock, token) : null
}
bare.get('/api/goals', async (request, reply) => {
  const session = await bareSession(request.headers.cookie)
  if (!session) return reply.code(401).send({ error: { code: 'UNAUTHENTICATED', message: 'Please log in to continue.' } })
  assertPaid(decideAccess(session.profile, new Date()))
  reply.header('cache-control', 'no-store')
  return { goals: await loadGoals(database.db, session.user.id) }
})
bare.get('/api/calls/recent', async (request, reply) => {
  const session = await bareSession(request.headers.cookie)
  if (!session) return reply.code(401).send({ error: { code: 'UNAUTHENTICATED', message: 'Please log in to continue.' } })
  assertPaid(decideAccess(session.profile, new Date()))
  reply.header('cache-control', 'no-store')
  return { calls: await recentCalls(database.db, session.user.id) }
})
await bare.listen({ port: 0, host: '127.0.0.1' })

const portOf = (server: { server: { address(): unknown } }) => (server.server.address() as { port: number }).port
console.log(
  JSON.stringify({
    app: portOf(app),
    appWithoutMetrics: portOf(appWithoutMetrics),
    bare: portOf(bare),
    driver: database.driver,
    cookie: `session=${session.token}`,
    dashboardCookie: `session=${dashboardUser.session.token}`,
    sessionId: session.token.split('.')[0],
    email: user.email,
    password,
  }),
)

// The bench asks for this process's CPU time between rounds (every thread, from getrusage).
process.on('message', (message) => {
  if (message !== 'cpu') return
  const { user, system } = process.cpuUsage()
  process.send?.({ cpuMicros: user + system })
})

process.on('SIGTERM', async () => {
  await app.close()
  await appWithoutMetrics.close()
  await bare.close()
  await database.close()
  process.exit(0)
})
