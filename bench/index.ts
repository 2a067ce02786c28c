/**
 * `npm run bench`: each benchmark prints its figures and the ratio to a baseline measured in the
 * same run, alternating the two three times and reporting medians (these machines are noisy).
 */
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import autocannon from 'autocannon'
import postgres from 'postgres'
import { callsFaults } from './calls-faults'
import { callsPunctuality } from './calls-punctuality'
import { chatFirstToken } from './chat'
import { dstAgreement } from './dst'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const ROUNDS = 3
const DURATION_S = Number(process.env.BENCH_DURATION ?? 5)
const CONNECTIONS = 20
const CLIENTS = 4096

type Result = { rps: number; p99: number }
type Servers = { app: number; bare: number; driver: string; cookie: string; dashboardCookie: string; sessionId: string; email: string; password: string; stop(): Promise<void> }

async function load(url: string, options: { connections?: number; duration?: number; headers?: Record<string, string> } = {}): Promise<Result> {
  let n = 0
  const result = await autocannon({
    url,
    connections: options.connections ?? CONNECTIONS,
    duration: options.duration ?? DURATION_S,
    headers: options.headers,
    // Requests spread over CLIENTS client addresses (believed from loopback), as real traffic comes
    // from many clients that each make many requests: the per-IP limit of 1,000 requests a minute
    // runs on every request and keeps its counters warm, yet never trips (25,000 req/s would be
    // ~370 a minute per address).
    requests: [
      {
        setupRequest: (request) => {
          n = (n + 1) % CLIENTS
          return { ...request, headers: { ...request.headers, 'x-forwarded-for': `10.0.${n >> 8}.${n & 255}` } }
        },
      },
    ],
  })
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`)
  return { rps: result.requests.average, p99: result.latency.p99 }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
const ok = (pass: boolean) => (pass ? 'OK' : 'BELOW GOAL')

/** PostgreSQL when one answers (DATABASE_URL or 127.0.0.1), else the embedded PGlite. */
async function benchDatabase(): Promise<{ url: string | undefined; admin: postgres.Sql | undefined; drop(): Promise<void> }> {
  const adminUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
  const client = postgres(adminUrl, { max: 1, connect_timeout: 2, onnotice: () => {} })
  try {
    const name = `mc_bench_${process.pid}`
    await client.unsafe(`create database "${name}"`)
    const url = new URL(adminUrl)
    url.pathname = `/${name}`
    const db = postgres(url.toString(), { max: 1, onnotice: () => {} })
    return {
      url: url.toString(),
      admin: db,
      async drop() {
        await db.end()
        await client.unsafe(`drop database if exists "${name}" with (force)`)
        await client.end()
      },
    }
  } catch {
    await client.end().catch(() => {})
    return { url: undefined, admin: undefined, drop: async () => {} }
  }
}

async function startServers(databaseUrl: string | undefined): Promise<Servers> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/servers.ts'], {
    cwd: ROOT,
    env: { ...process.env, BENCH_DATABASE_URL: databaseUrl ?? '' },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve)
    child.once('exit', (code) => reject(new Error(`bench servers exited with ${code}`)))
  })
  return {
    ...(JSON.parse(line) as Omit<Servers, 'stop'>),
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve())
        child.kill('SIGTERM')
      }),
  }
}

/** App vs bare, alternating ROUNDS times; medians and their ratio. */
async function compare(label: string, appUrl: string, bareUrl: string, goal: number, headers?: Record<string, string>) {
  await load(appUrl, { headers, duration: 2 }) // warm-up
  await load(bareUrl, { headers, duration: 2 })
  const app: Result[] = []
  const bare: Result[] = []
  for (let round = 1; round <= ROUNDS; round++) {
    bare.push(await load(bareUrl, { headers }))
    app.push(await load(appUrl, { headers }))
    console.log(`  round ${round}: bare ${bare.at(-1)!.rps.toFixed(0)} req/s, app ${app.at(-1)!.rps.toFixed(0)} req/s`)
  }
  const appRps = median(app.map((r) => r.rps))
  const bareRps = median(bare.map((r) => r.rps))
  const ratio = appRps / bareRps
  console.log(
    `${label} (${CONNECTIONS} connections, ${DURATION_S}s x ${ROUNDS}): app ${appRps.toFixed(0)} req/s (p99 ${median(app.map((r) => r.p99))} ms), ` +
      `bare Fastify ${bareRps.toFixed(0)} req/s (p99 ${median(bare.map((r) => r.p99))} ms), ratio ${ratio.toFixed(2)} (goal >= ${goal.toFixed(2)}) ${ok(ratio >= goal)}`,
  )
  return ratio >= goal
}

/** Session-row writes while one session makes 1,000 requests (renewal is written at most hourly). */
async function sessionWrites(servers: Servers, admin: postgres.Sql | undefined): Promise<boolean> {
  if (!admin) {
    console.log('session writes per 1,000 requests: needs PostgreSQL (pg_stat_user_tables); skipped on PGlite')
    return true
  }
  const updates = async () => {
    await new Promise((resolve) => setTimeout(resolve, 1200)) // statistics are flushed about every second
    const [row] = await admin<{ n: string }[]>`select n_tup_upd::text as n from pg_stat_user_tables where relname = 'sessions'`
    return Number(row?.n ?? 0)
  }
  const before = await updates()
  const result = await autocannon({ url: `http://127.0.0.1:${servers.app}/api/me`, connections: 1, amount: 1000, headers: { cookie: servers.cookie } })
  if (result.non2xx > 0) throw new Error(`/api/me: ${result.non2xx} non-2xx`)
  const writes = (await updates()) - before
  console.log(`session-row writes per 1,000 requests of one session: ${writes} (goal <= 1) ${ok(writes <= 1)}`)
  return writes <= 1
}

/** Extra p99 of /api/health while 20 logins hash their passwords concurrently. */
async function hashingInterference(servers: Servers): Promise<boolean> {
  const url = `http://127.0.0.1:${servers.app}/api/health`
  const quiet: number[] = []
  const busy: number[] = []
  let stop = false
  let logins = 0
  let ip = 0
  const loginLoop = async () => {
    while (!stop) {
      ip += 1
      const response = await fetch(`http://127.0.0.1:${servers.app}/api/auth/login`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          origin: 'http://localhost:3000',
          // A new client address each time, so the per-IP auth limit measures nothing here.
          'x-forwarded-for': `10.${(ip >> 16) & 255}.${(ip >> 8) & 255}.${ip & 255}`,
        },
        body: JSON.stringify({ email: servers.email, password: servers.password }),
      })
      if (response.status !== 200) throw new Error(`login answered ${response.status}`)
      await response.arrayBuffer()
      logins += 1
    }
  }
  for (let round = 1; round <= ROUNDS; round++) {
    quiet.push((await load(url, { connections: 5, duration: 3 })).p99)
    stop = false
    const loops = Array.from({ length: 20 }, loginLoop)
    busy.push((await load(url, { connections: 5, duration: 3 })).p99)
    stop = true
    await Promise.all(loops)
  }
  const extra = median(busy) - median(quiet)
  console.log(
    `GET /api/health p99 while 20 logins hash concurrently: ${median(busy)} ms vs ${median(quiet)} ms quiet ` +
      `(${logins} logins), extra ${extra} ms (goal <= 10 ms) ${ok(extra <= 10)}`,
  )
  return extra <= 10
}

/**
 * The dashboard's two loads (GET /api/goals, GET /api/calls/recent) for a paid user with full goals
 * and 5 calls, at 50 connections: app vs a bare Fastify route running the same SQL through the same
 * driver, alternating ROUNDS times. Goals: ratio >= 0.7 and app p99 < 25 ms, for each load.
 */
async function dashboardLoads(servers: Servers): Promise<boolean[]> {
  const connections = 50
  const headers = { cookie: servers.dashboardCookie }
  const outcomes: boolean[] = []
  for (const path of ['/api/goals', '/api/calls/recent']) {
    const appUrl = `http://127.0.0.1:${servers.app}${path}`
    const bareUrl = `http://127.0.0.1:${servers.bare}${path}`
    await load(appUrl, { headers, connections, duration: 2 }) // warm-up
    await load(bareUrl, { headers, connections, duration: 2 })
    const app: Result[] = []
    const bare: Result[] = []
    for (let round = 1; round <= ROUNDS; round++) {
      bare.push(await load(bareUrl, { headers, connections }))
      app.push(await load(appUrl, { headers, connections }))
      console.log(`  round ${round}: bare ${bare.at(-1)!.rps.toFixed(0)} req/s, app ${app.at(-1)!.rps.toFixed(0)} req/s (p99 ${app.at(-1)!.p99} ms)`)
    }
    const appRps = median(app.map((r) => r.rps))
    const bareRps = median(bare.map((r) => r.rps))
    const ratio = appRps / bareRps
    const p99 = median(app.map((r) => r.p99))
    const pass = ratio >= 0.7 && p99 < 25
    console.log(
      `GET ${path} (${connections} connections, ${DURATION_S}s x ${ROUNDS}): app ${appRps.toFixed(0)} req/s (p99 ${p99} ms), ` +
        `bare Fastify ${bareRps.toFixed(0)} req/s (p99 ${median(bare.map((r) => r.p99))} ms), ratio ${ratio.toFixed(2)} ` +
        `(goal >= 0.70, p99 < 25 ms) ${ok(pass)}`,
    )
    outcomes.push(pass)
  }
  return outcomes
}

/** `npm run bench -- me chat` runs only the named benchmarks (health, me, dashboard, sessions, hashing, chat, dst, punctuality, faults). */
const only = process.argv.slice(2)
const wanted = (name: string) => only.length === 0 || only.includes(name)

const results: boolean[] = []
if (wanted('dst')) {
  console.log('\nBenchmark: daily call times across DST changes vs an independent oracle')
  results.push(dstAgreement())
}
if (wanted('punctuality')) {
  console.log('\nBenchmark: daily calls punctuality (lateness of the dial at the fake Vapi, BullMQ and embedded)')
  results.push(...(await callsPunctuality()))
}
if (wanted('faults')) {
  console.log('\nBenchmark: daily calls exactly once under faults (workers killed, Redis restarted)')
  results.push(await callsFaults())
}
const serverBenchmarks = ['health', 'me', 'dashboard', 'sessions', 'hashing', 'chat']
if (only.length > 0 && !serverBenchmarks.some((name) => only.includes(name))) {
  console.log(`\n${results.filter(Boolean).length} of ${results.length} benchmarks met their goal`)
  process.exit(0)
}
const database = await benchDatabase()
const servers = await startServers(database.url)
try {
  console.log(`Database: ${servers.driver}`)
  if (wanted('health')) {
    console.log('\nBenchmark: GET /api/health through the full plugin stack vs a bare Fastify route')
    results.push(await compare('GET /api/health', `http://127.0.0.1:${servers.app}/api/health`, `http://127.0.0.1:${servers.bare}/api/health`, 0.6))
  }
  if (wanted('me')) {
    console.log('\nBenchmark: authenticated GET /api/me vs a bare Fastify route running the same session and user queries')
    results.push(await compare('GET /api/me', `http://127.0.0.1:${servers.app}/api/me`, `http://127.0.0.1:${servers.bare}/api/me`, 0.85, { cookie: servers.cookie }))
  }
  if (wanted('dashboard')) {
    console.log("\nBenchmark: the dashboard's two loads (full goals, 5 calls) vs bare Fastify routes running the same SQL")
    results.push(...(await dashboardLoads(servers)))
  }
  if (wanted('sessions')) {
    console.log('\nBenchmark: session renewal writes')
    results.push(await sessionWrites(servers, database.admin))
  }
  if (wanted('hashing')) {
    console.log('\nBenchmark: password hashing off the event loop')
    results.push(await hashingInterference(servers))
  }
  if (wanted('chat')) {
    console.log('\nBenchmark: chat, time to the first streamed token through the server vs the fake Vapi asked directly')
    results.push(await chatFirstToken(database.url))
  }
} finally {
  await servers.stop()
  await database.drop()
}
console.log(`\n${results.filter(Boolean).length} of ${results.length} benchmarks met their goal`)
