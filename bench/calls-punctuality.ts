/**
 * Punctuality of the daily calls: 10,000 people whose call falls in the next 10 minutes (a burst
 * on each minute boundary, across the 8 product zones, on paid testing plans), the fake Vapi
 * answering POST /call in ~5 ms, the product scheduling them itself (the calls-tick every minute,
 * delayed place-call jobs). Lateness = the fake's receipt of POST /call minus the instant the call
 * was due. Figures: p50, p99 and max lateness, calls missed (due, never dialled) and duplicates.
 * Goals: p99 <= 1 s in BullMQ mode (2 `npm run worker` processes), p99 <= 2 s embedded (the server
 * alone, no REDIS_URL: the in-process runner); 0 missed, 0 duplicates in both.
 *
 * BENCH_CALLS_USERS and BENCH_CALLS_WINDOW_S shrink it for a smoke run; BENCH_CALLS_MODES picks
 * the modes (bullmq,embedded); BENCH_CALLS_EMBEDDED_DB picks the embedded mode's database: pglite
 * (the contract's embedded default, default here) or postgres (DATABASE_URL, no Redis).
 */
import { loadavg } from 'node:os'
import {
  claimRows,
  cpuSecondsOf,
  envNumber,
  freePort,
  LOG_DIR,
  minuteAfter,
  ok,
  percentile,
  pgliteDatabase,
  postgresCpuSeconds,
  postgresDatabase,
  seconds,
  seedPeople,
  spawnProduct,
  startFake,
  startRedis,
  tally,
  waitUntil,
  type BenchDatabase,
  type Product,
  UNBOUNDED_LINES_ENV,
} from './calls-setup'
import { openDatabase } from '#server/db/client'

/** From the bench's start to the first due minute: seeding, the processes' start and one tick before it. */
const LEAD_MS = 150_000

type Mode = 'bullmq' | 'embedded'

async function run(mode: Mode, users: number, minutes: number): Promise<boolean> {
  const embeddedDb = process.env.BENCH_CALLS_EMBEDDED_DB === 'postgres' ? 'postgres' : 'pglite'
  const usePglite = mode === 'embedded' && embeddedDb === 'pglite'
  const goalMs = mode === 'bullmq' ? 1000 : 2000
  const label = mode === 'bullmq' ? 'BullMQ, 2 workers, PostgreSQL' : `embedded (in-process runner, no Redis), ${usePglite ? 'PGlite' : 'PostgreSQL'}`

  const bench: BenchDatabase | null = usePglite ? await pgliteDatabase() : await postgresDatabase('calls_punctuality')
  if (!bench) {
    console.log(`Punctuality (${label}): needs PostgreSQL; skipped`)
    return true
  }
  const fake = await startFake()
  const redis = mode === 'bullmq' ? await startRedis() : undefined
  const products: Product[] = []
  try {
    const firstDue = minuteAfter(LEAD_MS)
    const seedStarted = Date.now()
    const expected = await seedPeople(bench.database, users, firstDue, minutes)
    const lastDue = Math.max(...expected.map((call) => call.dueAt))
    console.log(`  seeded ${users} people in ${seconds(Date.now() - seedStarted)}; calls due ${new Date(firstDue).toISOString()} to ${new Date(lastDue).toISOString()}; logs in ${LOG_DIR}`)
    if (usePglite) await bench.database.close() // the server opens the directory itself

    const common = { ...fake.env, ...UNBOUNDED_LINES_ENV, APP_URL: 'http://127.0.0.1:9' }
    if (mode === 'bullmq') {
      for (const n of [1, 2]) {
        products.push(spawnProduct(`punctuality-worker-${n}`, 'worker/index.ts', { ...common, DATABASE_URL: bench.url!, REDIS_URL: redis!.url }, /worker ready/))
      }
    } else {
      const port = await freePort()
      const env: Record<string, string> = { ...common, PORT: String(port), HOST: '127.0.0.1', APP_URL: `http://127.0.0.1:${port}` }
      if (usePglite) env.DATA_DIR = bench.dataDir!
      else env.DATABASE_URL = bench.url!
      products.push(spawnProduct('punctuality-server', 'server/index.ts', env, /Momentum Coach is ready/))
    }
    await Promise.all(products.map((product) => product.ready))
    const spare = firstDue - Date.now()
    if (spare < 65_000) console.log(`  warning: ready only ${seconds(spare)} before the first call; no tick may run before it`)
    const loadBefore = loadavg()
    // CPU seconds each part uses from here to the count: the product's processes, PostgreSQL's
    // backends of this database, Redis, and this process (the fake Vapi).
    const cpu = () => ({
      product: products.map((product) => cpuSecondsOf(product.child.pid)),
      postgres: bench.name ? postgresCpuSeconds(bench.name) : Number.NaN,
      redis: cpuSecondsOf(redis?.pid()),
      fake: (process.cpuUsage().user + process.cpuUsage().system) / 1e6,
    })
    const cpuBefore = cpu()

    // Until every call was dialled (then a little longer, for any second dial) or a minute and a half past the last.
    const expectedKeys = new Set(expected.map((call) => `${call.userId}|${call.localDate}`))
    const allDialled = () => {
      const seen = new Set(fake.dials().map((dial) => `${dial.userId}|${dial.localDate}`))
      for (const key of expectedKeys) if (!seen.has(key)) return false
      return true
    }
    await waitUntil(() => Date.now() > lastDue && allDialled(), lastDue + 90_000, 2000)
    await waitUntil(() => false, Date.now() + 10_000)
    const loadAfter = loadavg()
    const cpuAfter = cpu()
    const used = (after: number, before: number) => (after - before).toFixed(1)
    const cpuText =
      `CPU s: ${products.map((product, i) => `${product.name.replace('punctuality-', '')} ${used(cpuAfter.product[i]!, cpuBefore.product[i]!)}`).join(', ')}, ` +
      `PostgreSQL ${used(cpuAfter.postgres, cpuBefore.postgres)}, Redis ${used(cpuAfter.redis, cpuBefore.redis)}, fake Vapi ${used(cpuAfter.fake, cpuBefore.fake)}`

    const figures = tally(expected, fake.dials())
    let claims: Awaited<ReturnType<typeof claimRows>>
    if (usePglite) {
      await Promise.all(products.map((product) => product.kill()))
      const reopened = await openDatabase({ dataDir: bench.dataDir! })
      claims = await claimRows(reopened)
      await reopened.close()
    } else {
      claims = await claimRows(bench.database)
    }
    const p50 = percentile(figures.lateness, 50)
    const p99 = percentile(figures.lateness, 99)
    const max = figures.lateness.at(-1) ?? Number.NaN
    const min = figures.lateness[0] ?? Number.NaN
    const duplicates = figures.extraDials + figures.unexpected
    const pass = figures.lateness.length > 0 && p99 <= goalMs && figures.missed === 0 && duplicates === 0 && claims.multiple === 0
    console.log(
      `  claim rows: ${claims.rows} for ${claims.keys} (user, slot, date) keys, ${claims.multiple} keys with more than one; ` +
        `statuses ${JSON.stringify(claims.byStatus)}; earliest dial ${seconds(min)} from its instant; ` +
        `load average ${loadBefore.map((n) => n.toFixed(2)).join(' ')} before, ${loadAfter.map((n) => n.toFixed(2)).join(' ')} after; ${cpuText}`,
    )
    console.log(
      `Punctuality (${label}): ${users} calls due over ${minutes} min in 8 zones, fake Vapi ~5 ms: lateness p50 ${seconds(p50)}, ` +
        `p99 ${seconds(p99)}, max ${seconds(max)}; missed ${figures.missed}, duplicates ${duplicates} ` +
        `(goal p99 <= ${goalMs / 1000} s, 0 missed, 0 duplicates) ${ok(pass)}`,
    )
    return pass
  } finally {
    await Promise.all(products.map((product) => product.kill()))
    await redis?.stop()
    await fake.fake.close()
    await bench.drop()
  }
}

export async function callsPunctuality(): Promise<boolean[]> {
  const users = Math.round(envNumber('BENCH_CALLS_USERS', 10_000))
  const minutes = Math.max(1, Math.round(envNumber('BENCH_CALLS_WINDOW_S', 600) / 60))
  const modes = (process.env.BENCH_CALLS_MODES ?? 'bullmq,embedded').split(',').filter((mode): mode is Mode => mode === 'bullmq' || mode === 'embedded')
  const results: boolean[] = []
  for (const mode of modes) results.push(await run(mode, users, minutes))
  return results
}
