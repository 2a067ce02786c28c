/**
 * `npm run bench`: each benchmark prints its figures and the ratio to a baseline measured in the
 * same run. App-vs-bare comparisons run many short rounds in pairs (bare, app / app, bare, the
 * order alternating), read the servers' CPU time around each round, and report the median of the
 * per-pair ratios with its interquartile range: on these noisy 2-core machines a long round
 * measures the neighbours as much as the server, two adjacent short rounds see nearly the same
 * machine, and CPU per request moves far less with other load than req/s (docs/benchmarks.md).
 */
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import autocannon from 'autocannon'
import postgres from 'postgres'
import { callsCapacity } from './calls-capacity'
import { callsFaults } from './calls-faults'
import { callsPunctuality } from './calls-punctuality'
import { chatFirstToken } from './chat'
import { webhookBench } from './calls-webhooks'
import { processTree, quantile } from './calls-setup'
import { dstAgreement } from './dst'
import { memoryBriefBench } from './memory-brief'
import { textsMatcherBench } from './texts-matcher'
import { liveTranscript, voiceGateway } from './voice'
import { weeklyReportsBench } from './weekly-reports'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
/** Rounds of the benchmarks that are not app-vs-bare pairs (hashing). */
const ROUNDS = 3
/** Pairs of rounds per app-vs-bare comparison, and seconds per round. */
const PAIRS = Number(process.env.BENCH_PAIRS ?? 20)
const DURATION_S = Number(process.env.BENCH_DURATION ?? 1)
const CONNECTIONS = 20
const CLIENTS = 4096

type Result = { rps: number; p99: number; requests: number }
type Servers = {
  app: number
  /** The same app with METRICS_PORT=0. */
  appWithoutMetrics: number
  bare: number
  driver: string
  cookie: string
  dashboardCookie: string
  sessionId: string
  email: string
  password: string
  /** CPU time (all threads) the servers' process has used so far, in microseconds. */
  cpuMicros(): Promise<number>
  stop(): Promise<void>
}

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
  return { rps: result.requests.total / result.duration, p99: result.latency.p99, requests: result.requests.total }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
const ok = (pass: boolean) => (pass ? 'OK' : 'BELOW GOAL')
const spread = (values: number[]) => `${quantile(values, 0.5).toFixed(2)} (IQR ${quantile(values, 0.25).toFixed(2)}-${quantile(values, 0.75).toFixed(2)})`
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
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  })
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve)
    child.once('exit', (code) => reject(new Error(`bench servers exited with ${code}`)))
  })
  return {
    ...(JSON.parse(line) as Omit<Servers, 'cpuMicros' | 'stop'>),
    // Asked between rounds, over the IPC channel: the process's own getrusage (every thread, µs).
    cpuMicros: () =>
      new Promise<number>((resolve) => {
        child.once('message', (message) => resolve((message as { cpuMicros: number }).cpuMicros))
        child.send('cpu')
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve())
        child.kill('SIGTERM')
      }),
  }
}

type Round = Result & { cpuPerRequest: number }

/** One round of load on one server, with the CPU time the servers' process spent per request (µs). */
async function measureRound(servers: Servers, url: string, options: { connections: number; headers?: Record<string, string> }): Promise<Round> {
  const before = await servers.cpuMicros()
  const result = await load(url, options)
  const cpu = (await servers.cpuMicros()) - before
  return { ...result, cpuPerRequest: cpu / result.requests }
}

type Comparison = { app: Round[]; bare: Round[]; cpuRatios: number[]; rpsRatios: number[]; ratio: number }

/**
 * App vs bare in PAIRS pairs of short rounds, the order alternating (bare, app / app, bare) so a
 * drift in the machine's load weighs on both alike. Per pair: the CPU ratio (bare's server CPU per
 * request over the app's: the throughput ratio the app reaches when the server's CPU is what limits
 * it) and the throughput ratio (app req/s over bare req/s). The figure is the median CPU ratio.
 */
async function compare(servers: Servers, appUrl: string, bareUrl: string, options: { connections?: number; headers?: Record<string, string> } = {}): Promise<Comparison> {
  const connections = options.connections ?? CONNECTIONS
  await load(appUrl, { ...options, connections, duration: 2 }) // warm-up
  await load(bareUrl, { ...options, connections, duration: 2 })
  const app: Round[] = []
  const bare: Round[] = []
  for (let pair = 1; pair <= PAIRS; pair++) {
    if (pair % 2 === 1) {
      bare.push(await measureRound(servers, bareUrl, { ...options, connections }))
      app.push(await measureRound(servers, appUrl, { ...options, connections }))
    } else {
      app.push(await measureRound(servers, appUrl, { ...options, connections }))
      bare.push(await measureRound(servers, bareUrl, { ...options, connections }))
    }
    const [a, b] = [app.at(-1)!, bare.at(-1)!]
    console.log(
      `  pair ${pair}: bare ${b.rps.toFixed(0)} req/s ${b.cpuPerRequest.toFixed(0)} µs CPU/req, app ${a.rps.toFixed(0)} req/s ` +
        `${a.cpuPerRequest.toFixed(0)} µs CPU/req (p99 ${a.p99} ms): ratio ${(b.cpuPerRequest / a.cpuPerRequest).toFixed(2)} (throughput ${(a.rps / b.rps).toFixed(2)})`,
    )
  }
  const cpuRatios = app.map((a, i) => bare[i]!.cpuPerRequest / a.cpuPerRequest)
  const rpsRatios = app.map((a, i) => a.rps / bare[i]!.rps)
  return { app, bare, cpuRatios, rpsRatios, ratio: quantile(cpuRatios, 0.5) }
}

/** The one line a comparison prints: both servers' figures, the ratio with its spread, the goal. */
function compareLine(label: string, connections: number, c: Comparison, goal: string, pass: boolean): string {
  const figures = (rounds: Round[]) =>
    `${quantile(rounds.map((r) => r.rps), 0.5).toFixed(0)} req/s, ${quantile(rounds.map((r) => r.cpuPerRequest), 0.5).toFixed(0)} µs CPU/req (p99 ${median(rounds.map((r) => r.p99))} ms)`
  return (
    `${label} (${connections} connections, ${PAIRS} pairs of ${DURATION_S}s rounds): app ${figures(c.app)}, bare Fastify ${figures(c.bare)}, ` +
    `ratio ${spread(c.cpuRatios)} [throughput ratio ${spread(c.rpsRatios)}] (goal ${goal}) ${ok(pass)}`
  )
}

async function compareTo(servers: Servers, label: string, path: string, goal: number, headers?: Record<string, string>): Promise<boolean> {
  const c = await compare(servers, `http://127.0.0.1:${servers.app}${path}`, `http://127.0.0.1:${servers.bare}${path}`, { headers })
  const pass = c.ratio >= goal
  console.log(compareLine(label, CONNECTIONS, c, `>= ${goal.toFixed(2)}`, pass))
  return pass
}

/** GET /api/me with the metrics on, against the same app with them off: the CPU ratio, goal >= 0.97 (at most 3%). */
async function metricsCost(servers: Servers): Promise<boolean> {
  const path = '/api/me'
  const c = await compare(servers, `http://127.0.0.1:${servers.app}${path}`, `http://127.0.0.1:${servers.appWithoutMetrics}${path}`, { headers: { cookie: servers.cookie } })
  const pass = c.ratio >= 0.97
  console.log(compareLine('GET /api/me, metrics on vs off', CONNECTIONS, c, '>= 0.97', pass).replace('bare Fastify', 'metrics off'))
  return pass
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
 * driver (compare). Goals: ratio >= 0.7 and app p99 < 25 ms, for each load.
 */
async function dashboardLoads(servers: Servers): Promise<boolean[]> {
  const connections = 50
  const outcomes: boolean[] = []
  for (const path of ['/api/goals', '/api/calls/recent']) {
    const c = await compare(servers, `http://127.0.0.1:${servers.app}${path}`, `http://127.0.0.1:${servers.bare}${path}`, {
      connections,
      headers: { cookie: servers.dashboardCookie },
    })
    const p99 = median(c.app.map((r) => r.p99))
    const pass = c.ratio >= 0.7 && p99 < 25
    console.log(compareLine(`GET ${path}`, connections, c, '>= 0.70, p99 < 25 ms', pass))
    outcomes.push(pass)
  }
  return outcomes
}

// Interrupted (Ctrl-C, a timeout's SIGTERM): every process the benchmarks started (servers, fakes,
// Redis, PostgreSQL clients' children) goes too, rather than staying behind holding ports and CPU.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    for (const pid of processTree(process.pid).slice(1).reverse()) {
      try {
        process.kill(pid, 'SIGKILL')
      } catch {
        // already gone
      }
    }
    console.log(`\n(interrupted by ${signal}: the processes the benchmarks started were stopped)`)
    process.exit(130)
  })
}

/** `npm run bench -- me chat` runs only the named benchmarks (health, me, dashboard, sessions, hashing, chat, dst, texts-matcher, webhooks, punctuality, capacity, reports, faults, voice, live). */
const only = process.argv.slice(2)
const wanted = (name: string) => only.length === 0 || only.includes(name)

const results: boolean[] = []
/** Lines printed again after the summary: the capacity bench's figures are the run's last line. */
const closing: string[] = []
const summary = () => {
  console.log(`\n${results.filter(Boolean).length} of ${results.length} benchmarks met their goal`)
  for (const line of closing) console.log(line)
}
if (wanted('dst')) {
  console.log('\nBenchmark: daily call times across DST changes vs an independent oracle')
  results.push(dstAgreement())
}
if (wanted('texts-matcher')) {
  console.log('\nBenchmark: reading an inbound text (keywords, opt-outs in words, crisis words) with the linear matcher vs a plain includes scan of the same text')
  results.push(textsMatcherBench())
}
if (wanted('webhooks')) {
  console.log('\nBenchmark: Vapi webhooks duplicated, shuffled and dropped vs in-order delivery; the sweep; acknowledgement latency')
  results.push(await webhookBench())
}
if (wanted('punctuality')) {
  console.log('\nBenchmark: daily calls punctuality (lateness of the dial at the fake Vapi, BullMQ and embedded)')
  results.push(...(await callsPunctuality()))
}
if (wanted('voice')) {
  console.log('\nBenchmark: the voice gateway, audio through it vs straight to the fake Vapi (echoing): added latency, capacity, memory per session')
  results.push(...(await voiceGateway()))
}
if (wanted('live')) {
  console.log('\nBenchmark: a phone call watched live, webhook on one server and dashboard on another (one Redis)')
  results.push(await liveTranscript())
}
if (wanted('reports')) {
  console.log("\nBenchmark: weekly reports for 10,000 people, each at its own Sunday 6:00 PM, 2 runners at once, vs reading the same rows with one SQL query")
  results.push(await weeklyReportsBench())
}
if (wanted('memory')) {
  console.log('\nBenchmark: the coach brief for a person with two years of daily calls vs reading the same rows with plain queries')
  results.push(await memoryBriefBench())
}
if (wanted('faults')) {
  console.log('\nBenchmark: daily calls exactly once under faults (workers killed, Redis restarted)')
  results.push(await callsFaults())
}
if (wanted('capacity')) {
  console.log('\nBenchmark: calls at scale, 2,000 people due within 5 minutes on 50 Vapi lines (the fake refusing a call past the limit) vs a perfect scheduler')
  const capacity = await callsCapacity()
  results.push(capacity.pass)
  closing.push(capacity.line)
}
const serverBenchmarks = ['health', 'me', 'dashboard', 'sessions', 'hashing', 'chat']
if (only.length > 0 && !serverBenchmarks.some((name) => only.includes(name))) {
  summary()
  process.exit(0)
}
const database = await benchDatabase()
const servers = await startServers(database.url)
try {
  console.log(`Database: ${servers.driver}`)
  if (wanted('health')) {
    console.log('\nBenchmark: GET /api/health through the full plugin stack vs a bare Fastify route')
    results.push(await compareTo(servers, 'GET /api/health', '/api/health', 0.6))
  }
  if (wanted('me')) {
    console.log('\nBenchmark: authenticated GET /api/me vs a bare Fastify route running the same session and user queries')
    results.push(await compareTo(servers, 'GET /api/me', '/api/me', 0.85, { cookie: servers.cookie }))
    console.log('\nBenchmark: authenticated GET /api/me with the metrics on vs off (METRICS_PORT=0): what measuring costs')
    results.push(await metricsCost(servers))
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
summary()
