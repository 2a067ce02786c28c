/**
 * Calls at scale (issue 33): 2,000 people due within the same 5 minutes (400 on each minute
 * boundary, across the 8 product zones and the three plans), 50 Vapi lines, and the real product
 * (a server for the webhooks, 2 `npm run worker` processes, PostgreSQL and Redis) dialling the
 * Vapi fake with its line limit enforced: a call placed while every line is taken is refused
 * (concurrencyBlocked, then ended with the subscription start error).
 *
 * Durations: each answered call talks a lognormal time (median 3.5 min, sigma 0.5: mean about
 * 4 min; the same draw for the same number), capped by the call's maxDurationSeconds (Basic
 * 5 min; Premium's and Elite's first call of the month is a 30-minute goal session), after 6 s of
 * ringing. 2,000 × ~4 min over 50 lines is ~2.5 hours of calls, past the product's 60-minute "no
 * line free" skip, and too long for a bench; so the fake plays **scaled durations**: every
 * interval of a call's script (ring, answer, talk, the report's lag) divided by BENCH_CAPACITY_SCALE
 * (30: a 4-minute call holds its line ~8 s, and the backlog drains in ~5 minutes instead of
 * ~2.5 hours). The product runs on the real clock, unchanged; its own delays (ticks, queues,
 * webhooks) are not scaled, so each counts 30 times heavier than it would in production.
 * The pace is scaled by the same factor (the default 1 dial a second, fleet-wide and per caller
 * number, becomes 30), so lines, not the pace, are the bottleneck, as they are at 1 dial a second
 * with real durations (50 lines free ~0.2 calls a second). No line is reserved for the app
 * (VAPI_LINES_RESERVED_FOR_APP=0): the bench places no call in the app.
 *
 * Figures:
 * - refused: calls the fake refused for concurrency (goal 0);
 * - line use while calls wait: over the time at least one due call had not been dialled (the union
 *   of every call's due-to-dial interval), the mean of the lines in use at the fake over the line
 *   limit (goal ≥ 95%);
 * - lateness (the fake accepting the dial minus the instant the call was due) against a perfect
 *   scheduler replayed on the same arrivals, lines, pace, caller numbers and line hold times
 *   (bench/capacity-sim.ts): the ratio of the p99s (goal ≤ 1.10);
 * - missed (due, never dialled, e.g. skipped 'no_line_free') and duplicates (dialled more than
 *   once), goal 0.
 * Also: per call, Redis commands, PostgreSQL writes and CPU seconds of each part (the capacity
 * plan, docs/capacity.md, scales these up).
 *
 * Knobs: BENCH_CAPACITY_USERS (2000), BENCH_CAPACITY_WINDOW_S (300), BENCH_CAPACITY_LINES (50),
 * BENCH_CAPACITY_SCALE (30), BENCH_CAPACITY_DPS (1 × the scale), BENCH_CAPACITY_NUMBERS (3 caller
 * numbers), BENCH_CAPACITY_SEED (1).
 */
import { sql } from 'drizzle-orm'
import { Redis } from 'ioredis'
import { lognormalTalkSeconds, type FakeCall } from '../test/fakes/vapi'
import { lineUseWhileWaiting, simulatePerfect, type SimCall } from './capacity-sim'
import {
  claimRows,
  cpuSecondsOf,
  envNumber,
  freePort,
  keyOf,
  LOG_DIR,
  minuteAfter,
  percentile,
  postgresCpuSeconds,
  postgresDatabase,
  seconds,
  seedPeople,
  sleep,
  spawnProduct,
  startFake,
  startRedis,
  waitUntil,
  type Product,
} from './calls-setup'

/** From the bench's start to the first due minute: seeding, the processes' start and a tick before it. */
const LEAD_MS = 150_000
/** After the last call ended: long enough for a second dial of anything to show. */
const QUIET_MS = 15_000
const START_ERROR = 'call.start.error-subscription-concurrency-limit-reached'

type CapacityResult = { pass: boolean; line: string }

type Taken = { callId: string; key: string; userId: string; numberId: string; takenAt: number; freedAt: number | undefined }

const metadataOf = (call: FakeCall) => (call.assistantOverrides?.metadata ?? {}) as Record<string, unknown>

export async function callsCapacity(): Promise<CapacityResult> {
  const users = Math.round(envNumber('BENCH_CAPACITY_USERS', 2000))
  const minutes = Math.max(1, Math.round(envNumber('BENCH_CAPACITY_WINDOW_S', 300) / 60))
  const lines = Math.round(envNumber('BENCH_CAPACITY_LINES', 50))
  const scale = envNumber('BENCH_CAPACITY_SCALE', 30)
  const dialsPerSecond = envNumber('BENCH_CAPACITY_DPS', scale)
  const numbers = Array.from({ length: Math.round(envNumber('BENCH_CAPACITY_NUMBERS', 3)) }, (_, i) => `pn_bench_capacity_${i + 1}`)
  const seed = Math.round(envNumber('BENCH_CAPACITY_SEED', 1))

  const bench = await postgresDatabase('calls_capacity')
  if (!bench) {
    const line = 'capacity: needs PostgreSQL; skipped'
    console.log(line)
    return { pass: true, line }
  }
  const fake = await startFake({ pacing: 'clock', enforceConcurrency: true, concurrencyLimit: lines, timeScale: scale, talkSeconds: lognormalTalkSeconds({ medianSeconds: 210, sigma: 0.5, seed }) })
  const redis = await startRedis()
  const products: Product[] = []
  // Every line taken and given back at the fake, and the lines in use over time (wall clock).
  const taken = new Map<string, Taken>()
  const timeline: Array<[number, number]> = []
  fake.fake.calls.onLinesChange = (active, call) => {
    const now = Date.now()
    timeline.push([now, active])
    const held = taken.get(call.id)
    if (held) held.freedAt = now
    else {
      const metadata = metadataOf(call)
      const key = keyOf({ userId: String(metadata.userId), slot: String(metadata.slot), localDate: String(metadata.localDate) })
      taken.set(call.id, { callId: call.id, key, userId: String(metadata.userId), numberId: String(call.phoneNumberId), takenAt: now, freedAt: undefined })
    }
  }
  const probe = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 })
  try {
    const firstDue = minuteAfter(LEAD_MS)
    const expected = await seedPeople(bench.database, users, firstDue, minutes)
    const lastDue = Math.max(...expected.map((call) => call.dueAt))
    const dueByKey = new Map(expected.map((call) => [keyOf(call), call.dueAt]))
    console.log(
      `  seeded ${users} people due ${new Date(firstDue).toISOString()} to ${new Date(lastDue).toISOString()}; ${lines} lines, durations / ${scale}, ` +
        `${dialsPerSecond} dials/s fleet-wide and per number, ${numbers.length} caller numbers; logs in ${LOG_DIR}`,
    )

    const port = await freePort()
    const appUrl = `http://127.0.0.1:${port}`
    const { VAPI_PHONE_NUMBER_ID: _single, ...vapiEnv } = fake.env
    const common = {
      ...vapiEnv,
      VAPI_PHONE_NUMBER_IDS: numbers.join(','),
      VAPI_MAX_CONCURRENT_CALLS: String(lines),
      VAPI_LINES_RESERVED_FOR_APP: '0',
      VAPI_DIALS_PER_SECOND: String(dialsPerSecond),
      VAPI_DIALS_PER_SECOND_PER_NUMBER: String(dialsPerSecond),
      APP_URL: appUrl,
      DATABASE_URL: bench.url!,
      REDIS_URL: redis.url,
    }
    products.push(spawnProduct('capacity-server', 'server/index.ts', { ...common, PORT: String(port), HOST: '127.0.0.1' }, /Momentum Coach is ready/))
    for (const n of [1, 2]) products.push(spawnProduct(`capacity-worker-${n}`, 'worker/index.ts', common, /worker ready/))
    await Promise.all(products.map((product) => product.ready))
    const spare = firstDue - Date.now()
    if (spare < 65_000) console.log(`  warning: ready only ${seconds(spare)} before the first call; no tick may run before it`)

    await probe.connect()
    const counters = async () => {
      const stats = await probe.info('stats')
      const commands = Number(/total_commands_processed:(\d+)/.exec(stats)?.[1] ?? Number.NaN)
      const rows = (await bench.database.db.execute(sql`
        select (tup_inserted + tup_updated + tup_deleted)::bigint::text as writes, xact_commit::bigint::text as commits
        from pg_stat_database where datname = current_database()`)) as unknown as Array<{ writes: string; commits: string }>
      return {
        commands,
        writes: Number(rows[0]?.writes ?? Number.NaN),
        commits: Number(rows[0]?.commits ?? Number.NaN),
        product: products.map((product) => cpuSecondsOf(product.child.pid)),
        postgres: bench.name ? postgresCpuSeconds(bench.name) : Number.NaN,
        redis: cpuSecondsOf(redis.pid()),
        fake: (process.cpuUsage().user + process.cpuUsage().system) / 1e6,
      }
    }
    const before = await counters()

    // Until every call was dialled and every line given back, or the deadline: three times the
    // backlog's expected drain (mean hold ~4 min / scale), plus 3 minutes.
    const drainMs = (users * ((6 + 240) / scale) * 1000) / lines
    const deadline = firstDue + 3 * drainMs + 180_000
    const accepted = () => new Set([...taken.values()].map((held) => held.key))
    const done = () => {
      if (Date.now() < lastDue || fake.fake.calls.activeCalls > 0) return false
      const seen = accepted()
      for (const key of dueByKey.keys()) if (!seen.has(key)) return false
      return true
    }
    const finished = await waitUntil(done, deadline, 1000)
    const endedAt = Date.now()
    await sleep(QUIET_MS)
    // Give PostgreSQL's statistics a moment to be flushed by the idle backends.
    await sleep(1500)
    const after = await counters()

    // ---- figures ----
    const refused = fake.fake.calls.refused
    const refusedRecords = fake.fake.calls.list().filter((call) => call.type === 'outboundPhoneCall' && call.endedReason === START_ERROR).length
    const firstByKey = new Map<string, Taken>()
    let extraDials = 0
    let unexpected = 0
    for (const held of [...taken.values()].sort((a, b) => a.takenAt - b.takenAt)) {
      if (!dueByKey.has(held.key)) unexpected++
      else if (firstByKey.has(held.key)) extraDials++
      else firstByKey.set(held.key, held)
    }
    const missed = [...dueByKey.keys()].filter((key) => !firstByKey.has(key)).length
    const claims = await claimRows(bench.database)
    const duplicates = extraDials + unexpected + claims.multiple
    const skipped = (await bench.database.db.execute(sql`
      select coalesce(skip_reason, '') as reason, count(*)::int as n from coaching_calls where completion_status = 'skipped' group by 1`)) as unknown as Array<{ reason: string; n: number }>

    const lateness = [...firstByKey.values()].map((held) => held.takenAt - dueByKey.get(held.key)!).sort((a, b) => a - b)
    const waits: Array<[number, number]> = [...dueByKey].map(([key, dueAt]) => [dueAt, firstByKey.get(key)?.takenAt ?? endedAt])
    const use = lineUseWhileWaiting(waits, timeline, lines)

    // The perfect scheduler on the same arrivals, lines, pace, numbers and hold times (a call
    // never dialled holds the mean of the others).
    const holds = [...firstByKey.values()].map((held) => (held.freedAt ?? endedAt) - held.takenAt)
    const meanHold = holds.reduce((sum, hold) => sum + hold, 0) / Math.max(1, holds.length)
    const simCalls: SimCall[] = [...dueByKey].map(([key, dueAt]) => {
      const held = firstByKey.get(key)
      return { id: key, dueAt, holdMs: held ? (held.freedAt ?? endedAt) - held.takenAt : meanHold, numberId: held?.numberId }
    })
    // The product lets a second's dials go at once, at most that many in any second (lines.ts); the
    // replay's bucket holds as many (a bucket is a little more generous at a second's edges).
    const pace = { perSecond: dialsPerSecond, burst: Math.max(1, Math.floor(dialsPerSecond)) }
    const perfect = simulatePerfect(simCalls, { lines, pace, perNumber: pace })
    const perfectLateness = simCalls.map((call) => perfect.dialledAt.get(call.id)! - call.dueAt).sort((a, b) => a - b)
    const perfectWaits: Array<[number, number]> = simCalls.map((call) => [call.dueAt, perfect.dialledAt.get(call.id)!])
    const perfectUse = lineUseWhileWaiting(perfectWaits, perfect.lines, lines)
    const p99 = percentile(lateness, 99)
    const perfectP99 = percentile(perfectLateness, 99)
    const ratio = p99 / Math.max(1, perfectP99)

    const per = (value: number) => (value / Math.max(1, taken.size)).toFixed(2)
    const used = (a: number, b: number) => (a - b).toFixed(1)
    const lastDial = Math.max(...[...firstByKey.values()].map((held) => held.takenAt))
    console.log(
      `  ${finished ? 'all dialled and ended' : 'NOT all dialled by the deadline'}; last dial ${seconds(lastDial - firstDue)} after the first due instant ` +
        `(perfect ${seconds(Math.max(...perfect.dialledAt.values()) - firstDue)}); line hold mean ${seconds(meanHold)} (× ${scale} = ${(meanHold * scale / 60_000).toFixed(2)} min); ` +
        `${taken.size} lines taken, ${refused} refused (${refusedRecords} calls ended with the start error)`,
    )
    console.log(
      `  lateness p50 ${seconds(percentile(lateness, 50))}, p99 ${seconds(p99)}, max ${seconds(lateness.at(-1) ?? Number.NaN)}; ` +
        `perfect p50 ${seconds(percentile(perfectLateness, 50))}, p99 ${seconds(perfectP99)}, max ${seconds(perfectLateness.at(-1) ?? Number.NaN)}; ` +
        `line use while waiting ${(use.share * 100).toFixed(1)}% over ${seconds(use.waitedMs)} (perfect ${(perfectUse.share * 100).toFixed(1)}% over ${seconds(perfectUse.waitedMs)})`,
    )
    console.log(
      `  claim rows ${claims.rows} for ${claims.keys} keys (${claims.multiple} with more than one), statuses ${JSON.stringify(claims.byStatus)}, skipped ${JSON.stringify(Object.fromEntries(skipped.map((row) => [row.reason, row.n])))}; ` +
        `${extraDials} second dials, ${unexpected} unexpected`,
    )
    console.log(
      `  per line taken: Redis commands ${per(after.commands - before.commands)}, PostgreSQL row writes ${per(after.writes - before.writes)}, commits ${per(after.commits - before.commits)}; ` +
        `CPU s: ${products.map((product, i) => `${product.name.replace('capacity-', '')} ${used(after.product[i]!, before.product[i]!)}`).join(', ')}, ` +
        `PostgreSQL ${used(after.postgres, before.postgres)}, Redis ${used(after.redis, before.redis)}, fake Vapi and bench ${used(after.fake, before.fake)}`,
    )
    const pass = refused === 0 && use.share >= 0.95 && ratio <= 1.1 && missed === 0 && duplicates === 0
    const line = `capacity: refused ${refused}, line use ${(use.share * 100).toFixed(1)}%, lateness p99 ratio ${ratio.toFixed(2)}, missed ${missed}, duplicates ${duplicates}`
    console.log(line)
    return { pass, line }
  } finally {
    probe.disconnect()
    await Promise.all(products.map((product) => product.kill()))
    await redis.stop()
    await fake.fake.close()
    await bench.drop()
  }
}
