/**
 * What the daily-calls benchmarks (calls-punctuality.ts, calls-faults.ts) share: a bench database
 * (PostgreSQL, or an embedded PGlite directory), a `redis-server` of their own on a free port with
 * no persistence, the Vapi fake in this process (5 ms answers, webhooks off: manual pacing), the
 * people due in the window seeded in bulk SQL, the product's own processes (`npm run worker`, the
 * server) spawned with their output in a log file, and the dials read back from the fake.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { createHash } from 'node:crypto'
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { sql } from 'drizzle-orm'
import { Redis } from 'ioredis'
import postgres from 'postgres'
import { LIFE_AREA_STEPS, TIMEZONES } from '#common/goals'
import { openDatabase, type Database } from '#server/db/client'
import { FakeVapi, type FakeVapiOptions } from '../test/fakes/vapi'
import { freePort } from '../test/helpers/process'
import { createWebhookCredential } from '../test/helpers/vapi-credential'

export { freePort }

export const ROOT = fileURLToPath(new URL('..', import.meta.url))
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, ms)))
export const ok = (pass: boolean) => (pass ? 'OK' : 'BELOW GOAL')
export const LOG_DIR = mkdtempSync(join(tmpdir(), 'mc-bench-calls-'))

const numberFrom = (name: string, fallback: number) => {
  const value = Number(process.env[name])
  return Number.isFinite(value) && value > 0 ? value : fallback
}
export { numberFrom as envNumber }

// ---- the database ----------------------------------------------------------------------------

const ADMIN_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'

export type BenchDatabase = { database: Database; name: string | undefined; url: string | undefined; dataDir: string | undefined; drop(): Promise<void> }

/** A fresh, migrated PostgreSQL database of its own (null when no PostgreSQL answers). */
export async function postgresDatabase(label: string): Promise<BenchDatabase | null> {
  const admin = postgres(ADMIN_URL, { max: 1, connect_timeout: 2, onnotice: () => {} })
  const name = `mc_bench_${label}_${process.pid}`
  try {
    await admin.unsafe(`drop database if exists "${name}" with (force)`)
    await admin.unsafe(`create database "${name}"`)
  } catch {
    await admin.end().catch(() => {})
    return null
  }
  const url = new URL(ADMIN_URL)
  url.pathname = `/${name}`
  const database = await openDatabase({ databaseUrl: url.toString(), maxConnections: 4 })
  await database.migrate()
  return {
    database,
    name,
    url: url.toString(),
    dataDir: undefined,
    async drop() {
      await database.close().catch(() => {})
      await admin.unsafe(`drop database if exists "${name}" with (force)`).catch(() => {})
      await admin.end().catch(() => {})
    },
  }
}

/** An embedded PGlite in a directory of its own (the server opens it once this process has closed it). */
export async function pgliteDatabase(): Promise<BenchDatabase> {
  const dataDir = mkdtempSync(join(tmpdir(), 'mc-bench-pglite-'))
  const database = await openDatabase({ dataDir })
  await database.migrate()
  return { database, name: undefined, url: undefined, dataDir, drop: () => database.close().catch(() => {}) }
}

// ---- Redis -----------------------------------------------------------------------------------

type BenchRedis = { url: string; port: number; pid(): number | undefined; restart(): Promise<void>; stop(): Promise<void> }

async function launchRedis(port: number): Promise<ChildProcess> {
  // No RDB snapshots, no AOF: a restart loses everything, delayed jobs and job schedulers included.
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'], {
    stdio: 'ignore',
  })
  const probe = new Redis({ port, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 })
  probe.on('error', () => {})
  for (let tries = 0; ; tries++) {
    if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}`)
    try {
      await probe.connect()
      await probe.ping()
      probe.disconnect()
      return child
    } catch {
      probe.disconnect()
      if (tries > 100) throw new Error('redis-server did not start')
      await sleep(50)
    }
  }
}

/** A `redis-server` of the bench's own on a free port, without persistence. */
export async function startRedis(): Promise<BenchRedis> {
  const port = await freePort()
  let child = await launchRedis(port)
  const kill = async () => {
    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.kill('SIGKILL')
    await exited
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    pid: () => child.pid,
    async restart() {
      await kill()
      child = await launchRedis(port)
    },
    stop: kill,
  }
}

// ---- the Vapi fake ---------------------------------------------------------------------------

/**
 * Lines and pace out of the way, for the benches that measure the scheduler itself (punctuality,
 * faults): the fake reports this many lines (the product learns its limit from the answers) and
 * the product may dial this fast (the most VAPI_DIALS_PER_SECOND allows). The capacity bench sets its own.
 */
const UNBOUNDED_LINES = 100_000
export const UNBOUNDED_LINES_ENV: Record<string, string> = {
  VAPI_MAX_CONCURRENT_CALLS: String(UNBOUNDED_LINES),
  VAPI_LINES_RESERVED_FOR_APP: '0',
  VAPI_DIALS_PER_SECOND: '1000',
}

type BenchFake = { fake: FakeVapi; env: Record<string, string>; dials(): Dial[] }

/** One POST /call the fake received. */
type Dial = { callId: string; userId: string; slot: string; localDate: string; attempt: number; receivedAt: number }

/**
 * The fake in this process: every POST /call answered after ~5 ms (a latency fault on all of
 * them), webhooks off by default (manual pacing: no call plays its scenario; `options` may set
 * another pacing, a line limit…), and the arrival instants of the dials as wall-clock milliseconds.
 */
export async function startFake(options: FakeVapiOptions = {}): Promise<BenchFake> {
  // The fake records arrivals as performance.now() since its start; its start is taken here.
  const origin = performance.timeOrigin + performance.now()
  const fake = await FakeVapi.start({ pacing: 'manual', concurrencyLimit: UNBOUNDED_LINES, ...options })
  fake.inject('POST /call', { kind: 'latency', ms: 5 }, Infinity)
  const secret = 'bench-calls-webhook-secret-0123456789abcdef'
  // As in production: the webhook credential `npm run vapi:setup` made, which every dial references.
  await createWebhookCredential(fake, secret)
  return {
    fake,
    env: {
      VAPI_API_KEY: fake.apiKey,
      VAPI_API_URL: fake.url,
      VAPI_ASSISTANT_ID: 'asst_bench_calls',
      VAPI_PHONE_NUMBER_ID: 'pn_bench_calls',
      VAPI_WEBHOOK_SECRET: secret,
    },
    dials: () =>
      fake.requestsTo('POST', '/call').map((request) => {
        const metadata = ((request.body as { assistantOverrides?: { metadata?: Record<string, unknown> } }).assistantOverrides?.metadata ?? {}) as Record<string, unknown>
        return {
          callId: String(metadata.callId),
          userId: String(metadata.userId),
          slot: String(metadata.slot),
          localDate: String(metadata.localDate),
          attempt: Number(metadata.attempt),
          receivedAt: origin + request.at,
        }
      }),
  }
}

// ---- the people ------------------------------------------------------------------------------

const ZONES = TIMEZONES.map((zone) => zone.iana)
const TIERS = ['basic', 'premium', 'elite'] as const

/** The user id of the i-th bench person (md5-derived, as the seeding SQL writes it). */
function benchUserId(i: number): string {
  const hex = createHash('md5').update(`mc-bench-call-${i}`).digest('hex')
  // Version 4, variant 8: a well-formed UUID, as the job payloads' schema requires.
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20)}`
}

/** A call that must be placed: whose, its claim key, and the instant it is due. */
type ExpectedCall = { userId: string; slot: 'daily'; localDate: string; dueAt: number }

export const keyOf = (call: { userId: string; slot: string; localDate: string }) => `${call.userId}|${call.slot}|${call.localDate}`

const localDate = (instant: number, timeZone: string) =>
  new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date(instant))

/**
 * Seeds `count` people whose daily call falls on the minute boundaries firstDue, firstDue + 1 min,
 * ... (`minutes` of them, round robin), across the product's 8 zones (each person's call time is
 * the local wall-clock time of their instant in their zone), on Basic, Premium and Elite testing
 * plans (the evening check-in six hours away from the window), onboarding done, consent given, a
 * proven phone number and a few goals. Bulk SQL: one statement per table.
 */
export async function seedPeople(database: Database, count: number, firstDue: number, minutes: number): Promise<ExpectedCall[]> {
  if (firstDue % 60_000 !== 0) throw new Error('firstDue must be on a minute boundary')
  const zones = sql.raw(`array[${ZONES.map((zone) => `'${zone}'`).join(', ')}]::text[]`)
  const tiers = sql.raw(`array[${TIERS.map((tier) => `'${tier}'`).join(', ')}]::text[]`)
  const first = new Date(firstDue).toISOString()
  const people = sql`
    select i, (substr(h, 1, 12) || '4' || substr(h, 14, 3) || '8' || substr(h, 18))::uuid as id,
           (${zones})[1 + (i / ${minutes}) % ${ZONES.length}] as zone,
           ${first}::timestamptz + (i % ${minutes}) * interval '1 minute' as due_at
    from generate_series(0, ${count - 1}) as i, md5('mc-bench-call-' || i) as h`
  const { db } = database
  await db.execute(sql`
    insert into users (id, email, password_hash, full_name, phone_number, communication_consent_version, communication_consent_at, terms_accepted_at, email_confirmed_at)
    select id, 'bench-call-' || i || '@example.com', 'bench-no-password', 'Bench Caller' || i, '2122' || lpad(i::text, 6, '0'), 'v1', now(), now(), now()
    from (${people}) as p`)
  await db.execute(sql`
    insert into profiles (id, name, timezone, daily_call_time, evening_call_time, onboarding_completed)
    select id, 'Caller' || i || ' Bench', zone, (due_at at time zone zone)::time, (due_at at time zone zone)::time + interval '6 hours', true
    from (${people}) as p`)
  // Numbers 212-2xx-xxxx (New York geographic numbers: only a callable US or Canadian number is
  // dialled), each proven (as by the code texted to it): nothing reaches an unproven number (ADR 060).
  await db.execute(sql`
    insert into phone_proofs (user_id, phone_number, method, proven_at)
    select id, '2122' || lpad(i::text, 6, '0'), 'code', now()
    from (${people}) as p`)
  // Consent to calls, as sign-up records it in the ledger (the trigger fills consent_states).
  await db.execute(sql`
    insert into consent_events (user_id, channel, action, source, text, at)
    select id, 'calls', 'granted', 'sign_up', 'Bench consent', now()
    from (${people}) as p`)
  await db.execute(sql`
    insert into subscribers (user_id, subscribed, tier, status, source)
    select id, true, (${tiers})[1 + i % ${TIERS.length}], 'active', 'testing'
    from (${people}) as p`)
  const areas = LIFE_AREA_STEPS.slice(0, 3).map((area, index) => sql`(${area.id}, ${`{${area.options.slice(0, 2).map((o) => o.id).join(',')}}`}::text[], ${index + 3}::int)`)
  await db.execute(sql`
    insert into goals (user_id, life_area, selected_options, satisfaction_score, custom_notes)
    select p.id, a.area, a.options, a.score, 'Bench notes'
    from (${people}) as p cross join (values ${sql.join(areas, sql`, `)}) as a(area, options, score)`)
  await db.execute(sql`
    insert into goals (user_id, life_area, specific_goals)
    select id, 'specific_goals', '{"goal_90_days": "Run a 5k", "obstacles": "Time"}'::jsonb
    from (${people}) as p`)

  return Array.from({ length: count }, (_, i) => {
    const dueAt = firstDue + (i % minutes) * 60_000
    const zone = ZONES[Math.floor(i / minutes) % ZONES.length]!
    return { userId: benchUserId(i), slot: 'daily' as const, localDate: localDate(dueAt, zone), dueAt }
  })
}

/** Claim rows of the daily slot per (user, slot, local date): how many keys have 1, and how many more. */
export async function claimRows(database: Database): Promise<{ keys: number; rows: number; byStatus: Record<string, number>; multiple: number }> {
  const rows = (await database.db.execute(sql`
    select user_id::text as "userId", slot, local_date::text as "localDate", count(*)::int as n, string_agg(completion_status, ',') as statuses
    from coaching_calls where slot <> 'test' group by user_id, slot, local_date`)) as unknown as
    | Array<{ n: number; statuses: string }>
    | { rows: Array<{ n: number; statuses: string }> }
  const list = Array.isArray(rows) ? rows : rows.rows
  const byStatus: Record<string, number> = {}
  let total = 0
  for (const row of list) {
    total += row.n
    for (const status of row.statuses.split(',')) byStatus[status] = (byStatus[status] ?? 0) + 1
  }
  return { keys: list.length, rows: total, byStatus, multiple: list.filter((row) => row.n > 1).length }
}

// ---- the product's processes -----------------------------------------------------------------

export type Product = { name: string; child: ChildProcess; log: string; ready: Promise<void>; kill(signal?: NodeJS.Signals): Promise<void> }

/**
 * Runs a product entry (`worker/index.ts`, `server/index.ts`) with only the given environment, its
 * output straight into a log file (not through this process, which serves the fake);
 * `ready` resolves when a line of it matches `readyPattern`.
 */
export function spawnProduct(name: string, entry: string, env: Record<string, string>, readyPattern: RegExp, extraNodeArgs: readonly string[] = []): Product {
  const log = join(LOG_DIR, `${name}.log`)
  const fd = openSync(log, 'a')
  // BENCH_CALLS_NODE_ARGS: node flags for the product's processes (e.g. --cpu-prof --cpu-prof-dir=/tmp/prof).
  const nodeArgs = [...(process.env.BENCH_CALLS_NODE_ARGS ?? '').split(' ').filter(Boolean), ...extraNodeArgs]
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', entry], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', fd, fd],
  })
  closeSync(fd)
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const ready = (async () => {
    for (;;) {
      if (readFileSync(log, 'utf8').split('\n').some((line) => readyPattern.test(line))) return
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${name} exited (${child.exitCode ?? child.signalCode}) before it was ready; see ${log}`)
      await sleep(100)
    }
  })()
  ready.catch(() => {})
  return {
    name,
    child,
    log,
    ready,
    async kill(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return
      child.kill(signal)
      await exited
    },
  }
}

/** CPU seconds a process has used (user + system, Linux /proc), or NaN elsewhere. */
export function cpuSecondsOf(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return Number.NaN
  }
}

/**
 * The machine's CPU time so far (Linux /proc/stat, all CPUs, in ticks): all of it, and the part a
 * virtual machine's host took for others ("steal"). Two readings give the share stolen between them.
 */
export function machineTicks(): { total: number; steal: number } {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1, 9).map(Number)
    return { total: fields.reduce((sum, value) => sum + value, 0), steal: fields[7] ?? 0 }
  } catch {
    return { total: Number.NaN, steal: Number.NaN }
  }
}

/** A process and its descendants (a server under WEB_CONCURRENCY is a supervisor and its processes), Linux /proc. */
export function processTree(pid: number | undefined): number[] {
  if (pid === undefined) return []
  let children: number[] = []
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number)
  } catch {
    // gone, or not Linux
  }
  return [pid, ...children.flatMap((child) => processTree(child))]
}

/** CPU seconds a process and its descendants have used (each counted while it lives). */
export function treeCpuSecondsOf(pid: number | undefined): number {
  return processTree(pid).reduce((sum, each) => sum + cpuSecondsOf(each), 0)
}

/** CPU seconds used so far by the PostgreSQL backends connected to a database (their titles name it). */
export function postgresCpuSeconds(database: string): number {
  try {
    let total = 0
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue
      try {
        const title = readFileSync(`/proc/${entry}/cmdline`, 'utf8')
        if (title.startsWith('postgres: ') && title.includes(` ${database} `)) total += cpuSecondsOf(Number(entry))
      } catch {
        // gone meanwhile
      }
    }
    return total
  } catch {
    return Number.NaN
  }
}

// ---- figures ---------------------------------------------------------------------------------

/** The q-quantile (0..1) of values, interpolating between neighbours (so the median of an even count is the mean of the middle two). */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  const at = (sorted.length - 1) * q
  const low = Math.floor(at)
  const high = Math.ceil(at)
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (at - low)
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!
}

/** How the dials the fake received compare with the calls that were due. */
export function tally(expected: readonly ExpectedCall[], dials: readonly Dial[]) {
  const due = new Map(expected.map((call) => [keyOf(call), call]))
  const byKey = new Map<string, Dial[]>()
  const byCallId = new Map<string, number>()
  let unexpected = 0
  for (const dial of dials) {
    byCallId.set(dial.callId, (byCallId.get(dial.callId) ?? 0) + 1)
    if (!due.has(keyOf(dial))) {
      unexpected++
      continue
    }
    const list = byKey.get(keyOf(dial)) ?? []
    list.push(dial)
    byKey.set(keyOf(dial), list)
  }
  const lateness: number[] = []
  let missed = 0
  let duplicateKeys = 0
  let extraDials = 0
  for (const [key, call] of due) {
    const list = byKey.get(key)
    if (!list) {
      missed++
      continue
    }
    if (list.length > 1) {
      duplicateKeys++
      extraDials += list.length - 1
    }
    lateness.push(Math.min(...list.map((dial) => dial.receivedAt)) - call.dueAt)
  }
  lateness.sort((a, b) => a - b)
  const sameCallTwice = [...byCallId.values()].filter((n) => n > 1).length
  return { lateness, missed, duplicateKeys, extraDials, sameCallTwice, unexpected, dialled: byKey.size }
}

/** Waits until `done()` or the deadline (epoch ms); true when done. */
export async function waitUntil(done: () => boolean | Promise<boolean>, deadline: number, stepMs = 1000): Promise<boolean> {
  while (Date.now() < deadline) {
    if (await done()) return true
    await sleep(Math.min(stepMs, deadline - Date.now()))
  }
  return done()
}

/** The next minute boundary at least `leadMs` from now. */
export const minuteAfter = (leadMs: number) => Math.ceil((Date.now() + leadMs) / 60_000) * 60_000

export const seconds = (ms: number) => `${(ms / 1000).toFixed(3)} s`
