/**
 * `npm run bench`: each benchmark prints its figures and the ratio to a baseline measured in the
 * same run, alternating the two three times and reporting medians (these machines are noisy).
 */
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import autocannon from 'autocannon'
import postgres from 'postgres'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const ROUNDS = 3
const DURATION_S = Number(process.env.BENCH_DURATION ?? 5)
const CONNECTIONS = 20

type Result = { rps: number; p99: number }

async function load(url: string): Promise<Result> {
  const result = await autocannon({ url, connections: CONNECTIONS, duration: DURATION_S, pipelining: 1 })
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`)
  return { rps: result.requests.average, p99: result.latency.p99 }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

/** PostgreSQL when one answers (DATABASE_URL or 127.0.0.1), else the embedded PGlite. */
async function benchDatabase(): Promise<{ url: string | undefined; drop(): Promise<void> }> {
  const admin = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
  const client = postgres(admin, { max: 1, connect_timeout: 2, onnotice: () => {} })
  try {
    const name = `mc_bench_${process.pid}`
    await client.unsafe(`create database "${name}"`)
    const url = new URL(admin)
    url.pathname = `/${name}`
    return {
      url: url.toString(),
      async drop() {
        await client.unsafe(`drop database if exists "${name}" with (force)`)
        await client.end()
      },
    }
  } catch {
    await client.end().catch(() => {})
    return { url: undefined, drop: async () => {} }
  }
}

async function startServers(databaseUrl: string | undefined) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/servers.ts'], {
    cwd: ROOT,
    env: { ...process.env, BENCH_DATABASE_URL: databaseUrl ?? '' },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve)
    child.once('exit', (code) => reject(new Error(`bench servers exited with ${code}`)))
  })
  const ports = JSON.parse(line) as { app: number; bare: number; driver: string }
  return { ...ports, stop: () => new Promise<void>((resolve) => { child.once('exit', () => resolve()); child.kill('SIGTERM') }) }
}

async function healthBenchmark(databaseUrl: string | undefined) {
  const servers = await startServers(databaseUrl)
  try {
    const appUrl = `http://127.0.0.1:${servers.app}/api/health`
    const bareUrl = `http://127.0.0.1:${servers.bare}/api/health`
    await load(appUrl) // warm-up
    await load(bareUrl)
    const app: Result[] = []
    const bare: Result[] = []
    for (let round = 1; round <= ROUNDS; round++) {
      bare.push(await load(bareUrl))
      app.push(await load(appUrl))
      console.log(`  round ${round}: bare ${bare.at(-1)!.rps.toFixed(0)} req/s, app ${app.at(-1)!.rps.toFixed(0)} req/s`)
    }
    const appRps = median(app.map((r) => r.rps))
    const bareRps = median(bare.map((r) => r.rps))
    const ratio = appRps / bareRps
    console.log(
      `GET /api/health (${servers.driver}, ${CONNECTIONS} connections, ${DURATION_S}s x ${ROUNDS}): ` +
        `app ${appRps.toFixed(0)} req/s (p99 ${median(app.map((r) => r.p99))} ms), ` +
        `bare Fastify ${bareRps.toFixed(0)} req/s (p99 ${median(bare.map((r) => r.p99))} ms), ` +
        `ratio ${ratio.toFixed(2)} (goal >= 0.60) ${ratio >= 0.6 ? 'OK' : 'BELOW GOAL'}`,
    )
    return ratio >= 0.6
  } finally {
    await servers.stop()
  }
}

const database = await benchDatabase()
let ok = true
try {
  console.log('Benchmark: health route through the full plugin stack vs a bare Fastify route')
  ok = (await healthBenchmark(database.url)) && ok
} finally {
  await database.drop()
}
process.exit(ok ? 0 : 1)
