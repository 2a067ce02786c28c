/**
 * Exactly once under faults: 500 people whose daily call falls within 2 minutes (three minute
 * boundaries, the first and last two minutes apart), 2 `npm run worker` processes, a worker
 * SIGKILLed 5 times during the window (each restarted at once; three kills land in the middle of a
 * burst of dials, once part of it has reached the fake), and the bench's own `redis-server` (no persistence) restarted once, which loses
 * every delayed job, the jobs in flight and the job schedulers. After the window and the catch-up
 * (leases running out, the tick's look-back, the sweep), every (user, slot, date) must have been
 * dialled exactly once at the fake Vapi (POST /call counted per metadata.callId and per
 * user/slot/local date) and have exactly one claim row in the database.
 *
 * BENCH_FAULTS_USERS changes the number of people (default 500).
 */
import {
  claimRows,
  envNumber,
  keyOf,
  LOG_DIR,
  minuteAfter,
  ok,
  postgresDatabase,
  seconds,
  seedPeople,
  sleep,
  spawnProduct,
  startFake,
  startRedis,
  tally,
  waitUntil,
  type Product,
  UNBOUNDED_LINES_ENV,
} from './calls-setup'
import { sql } from 'drizzle-orm'

const LEAD_MS = 150_000
/** Three minute boundaries: calls due at F, F + 1 min and F + 2 min. */
const MINUTES = 3
/** How long after the last due instant the loop may take to catch up before the count. */
const CATCH_UP_MS = 6 * 60_000
/** After everything was dialled: long enough for a retried job or a tick to dial anything twice. */
const QUIET_MS = 75_000

type Fault = { when(): Promise<unknown>; what: string; run(): Promise<void> }

export async function callsFaults(): Promise<boolean> {
  const users = Math.round(envNumber('BENCH_FAULTS_USERS', 500))
  const bench = await postgresDatabase('calls_faults')
  if (!bench) {
    console.log('Exactly once under faults: needs PostgreSQL; skipped')
    return true
  }
  const fake = await startFake()
  const redis = await startRedis()
  const workers: Product[] = []
  const generation = [0, 0]
  const env = { ...fake.env, ...UNBOUNDED_LINES_ENV, APP_URL: 'http://127.0.0.1:9', DATABASE_URL: bench.url!, REDIS_URL: redis.url }
  const startWorker = (slot: number) => {
    generation[slot]! += 1
    const worker = spawnProduct(`faults-worker-${'ab'[slot]}-${generation[slot]}`, 'worker/index.ts', env, /worker ready/)
    workers[slot] = worker
    return worker
  }
  try {
    const firstDue = minuteAfter(LEAD_MS)
    const expected = await seedPeople(bench.database, users, firstDue, MINUTES)
    const lastDue = firstDue + (MINUTES - 1) * 60_000
    console.log(`  seeded ${users} people; calls due at ${new Date(firstDue).toISOString()}, +1 min and +2 min; logs in ${LOG_DIR}`)
    await Promise.all([startWorker(0).ready, startWorker(1).ready])

    const timeline: string[] = []
    const kill = (slot: number) => async () => {
      await workers[slot]!.kill('SIGKILL')
      startWorker(slot)
    }
    // Once `share` of the calls due at `dueAt` have reached the fake: a kill then lands in the
    // middle of a burst, with claims written and dials on their way.
    const perSlot = Math.ceil(users / MINUTES)
    const dialsOf = (dueAt: number) => {
      const due = new Set(expected.filter((call) => call.dueAt === dueAt).map(keyOf))
      return fake.dials().filter((dial) => due.has(keyOf(dial))).length
    }
    const midBurst = (dueAt: number, share: number) => async () => {
      await waitUntil(() => dialsOf(dueAt) >= share * perSlot, dueAt + 30_000, 10)
    }
    const at = (instant: number) => () => sleep(instant - Date.now())
    // One kill while only delayed jobs wait, three in the middle of a burst, one between bursts;
    // Redis restarts between the second and third bursts, after the last worker restart (so no
    // worker start re-creates the job schedulers for it), with the third burst's jobs delayed in it.
    const faults: Fault[] = [
      { when: at(firstDue - 20_000), what: 'SIGKILL worker a (delayed jobs waiting)', run: kill(0) },
      { when: midBurst(firstDue, 1 / 3), what: 'SIGKILL worker b (a third of burst 1 dialled)', run: kill(1) },
      { when: at(firstDue + 30_000), what: 'SIGKILL worker a', run: kill(0) },
      { when: midBurst(firstDue + 60_000, 1 / 4), what: 'SIGKILL worker b (a quarter of burst 2 dialled)', run: kill(1) },
      { when: midBurst(firstDue + 60_000, 1 / 2), what: 'SIGKILL worker a (half of burst 2 dialled)', run: kill(0) },
      { when: at(firstDue + 90_000), what: 'restart Redis (no persistence)', run: () => redis.restart() },
    ]
    for (const fault of faults) {
      await fault.when()
      await fault.run()
      timeline.push(`${seconds(Date.now() - firstDue)} ${fault.what}`)
    }
    console.log(`  faults (from the first due instant): ${timeline.join('; ')}`)

    // The catch-up: every call dialled and no claim left dialling, or the deadline.
    const pendingClaims = async () => {
      const result = (await bench.database.db.execute(sql`select count(*)::int as n from coaching_calls where completion_status = 'dialling'`)) as unknown as Array<{ n: number }>
      return result[0]?.n ?? 0
    }
    const expectedKeys = new Set(expected.map(keyOf))
    const settled = async () => {
      if (Date.now() < lastDue) return false
      const seen = new Set(fake.dials().map(keyOf))
      for (const key of expectedKeys) if (!seen.has(key)) return false
      return (await pendingClaims()) === 0
    }
    const caughtUp = await waitUntil(settled, lastDue + CATCH_UP_MS, 2000)
    const caughtUpAt = Date.now() - lastDue
    await sleep(QUIET_MS)

    const dials = fake.dials()
    const figures = tally(expected, dials)
    const claims = await claimRows(bench.database)
    const eventRows = (await bench.database.db.execute(sql`select type, count(*)::int as n from coaching_call_events group by type order by type`)) as unknown as Array<{ type: string; n: number }>
    const events = Object.fromEntries(eventRows.map((row) => [row.type, row.n]))
    const exactlyOnce = figures.dialled - figures.duplicateKeys
    const pass =
      exactlyOnce === users && figures.missed === 0 && figures.extraDials === 0 && figures.sameCallTwice === 0 && figures.unexpected === 0 && claims.keys === users && claims.multiple === 0
    console.log(
      `  ${caughtUp ? `caught up ${seconds(caughtUpAt)} after the last due instant` : `not caught up ${seconds(CATCH_UP_MS)} after the last due instant`}; ` +
        `${dials.length} POST /call; claim rows ${claims.rows} for ${claims.keys} keys, statuses ${JSON.stringify(claims.byStatus)}; timeline events ${JSON.stringify(events)}; ` +
        `lateness p50 ${seconds(figures.lateness[Math.floor(figures.lateness.length / 2)] ?? Number.NaN)}, max ${seconds(figures.lateness.at(-1) ?? Number.NaN)}`,
    )
    console.log(
      `Exactly once under faults (${users} calls due within 2 min, 2 workers, 5 SIGKILLs, Redis restarted once): ` +
        `${exactlyOnce} of ${users} (user, slot, date) dialled exactly once, ${figures.duplicateKeys} more than once (${figures.extraDials} extra dials, ` +
        `${figures.sameCallTwice} call ids posted twice, ${figures.unexpected} unexpected), ${figures.missed} never; ` +
        `${claims.multiple} keys with more than one claim row (goal: all exactly once, one claim row each) ${ok(pass)}`,
    )
    return pass
  } finally {
    await Promise.all(workers.map((worker) => worker.kill()))
    await redis.stop()
    await fake.fake.close()
    await bench.drop()
  }
}
