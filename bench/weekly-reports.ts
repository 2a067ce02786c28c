/**
 * Weekly reports for 10,000 people (BENCH_REPORTS_USERS), spread over the 8 product zones, each with
 * a week of calls, commitments and goals: two runners (two sets of services over one PostgreSQL, as
 * two workers) run the `weekly-reports` tick at the same time at each zone's Sunday 6:00 PM on a
 * test clock. Figures: how long claiming, writing the figures and queueing the deliveries took
 * (BullMQ when Redis answers, else an in-memory queue), next to the time one SQL query takes to read
 * the same rows (the week's calls, the commitments and the goals of those people), in the same run.
 * Goals: every person exactly one report and one queued delivery, each claimed at its own zone's
 * 6:00 PM (an independent oracle's instant).
 */
import { randomBytes } from 'node:crypto'
import { sql } from 'drizzle-orm'
import { Redis } from 'ioredis'
import { pino } from 'pino'
import { TIMEZONES } from '#common/goals'
import { loadConfig } from '#server/config'
import { createServices } from '#server/container'
import { createBullmqEnqueuer } from '#server/jobs/bullmq'
import { JOBS } from '#server/jobs/index'
import type { AppJobQueue } from '#server/jobs/index'
import { oracleFireInstant } from '../test/helpers/dst-oracle'
import { fakeClock } from '../test/helpers/clock'
import { envNumber, ok, postgresDatabase, seconds } from './calls-setup'

/** The Sunday the week ends on, and the Sunday before. */
const WEEK_ENDING = '2026-11-29'
const WEEK_BEFORE = '2026-11-22'

const rowsOf = <T>(result: unknown): T[] => (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[]

async function redisQueue(): Promise<{ queue: AppJobQueue & { close(): Promise<void> }; label: string; count(): number } | null> {
  const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'
  const connection = new Redis(url, { maxRetriesPerRequest: null, lazyConnect: true, connectTimeout: 1000 })
  try {
    await connection.connect()
    await connection.ping()
  } catch {
    connection.disconnect()
    return null
  }
  const prefix = `mc-bench-reports-${randomBytes(4).toString('hex')}`
  const enqueuer = createBullmqEnqueuer({ jobs: JOBS, connection, prefix })
  let n = 0
  return {
    label: 'BullMQ',
    count: () => n,
    queue: {
      async enqueue(name, payload, options) {
        const id = await enqueuer.enqueue(name, payload, options)
        n++
        return id
      },
      async close() {
        await enqueuer.close()
        // The bench's queue keys go with it.
        let cursor = '0'
        do {
          const [next, keys] = await connection.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000)
          cursor = next
          if (keys.length > 0) await connection.del(...keys)
        } while (cursor !== '0')
        await connection.quit()
      },
    },
  }
}

export async function weeklyReportsBench(): Promise<boolean> {
  const users = envNumber('BENCH_REPORTS_USERS', 10_000)
  const bench = await postgresDatabase('weekly_reports')
  if (!bench) {
    console.log('Weekly reports: needs PostgreSQL; skipped')
    return true
  }
  const redis = await redisQueue()
  let memoryCount = 0
  const queue: AppJobQueue & { close(): Promise<void> } = redis?.queue ?? {
    enqueue: async () => String(++memoryCount),
    close: async () => {},
  }
  const enqueued = () => redis?.count() ?? memoryCount
  try {
    const { db } = bench.database
    const zones = TIMEZONES.map((zone) => zone.iana)
    const zoneArray = sql.raw(`array[${zones.map((zone) => `'${zone}'`).join(', ')}]::text[]`)
    const people = sql`
      select i, (substr(h, 1, 12) || '4' || substr(h, 14, 3) || '8' || substr(h, 18))::uuid as id, (${zoneArray})[1 + i % ${zones.length}] as zone
      from generate_series(0, ${users - 1}) as i, md5('mc-bench-report-' || i) as h`
    const seedStarted = Date.now()
    await db.execute(sql`
      insert into users (id, email, password_hash, full_name, phone_number, communication_consent_version, communication_consent_at, terms_accepted_at, email_confirmed_at, created_at)
      select id, 'bench-report-' || i || '@example.com', 'bench-no-password', 'Bench Reader' || i, '555' || lpad(i::text, 7, '0'), 'v1', '2026-10-01', '2026-10-01', '2026-10-01', '2026-10-01'
      from (${people}) as p`)
    await db.execute(sql`insert into profiles (id, name, timezone, daily_call_time, onboarding_completed) select id, 'Reader' || i, zone, '09:00', true from (${people}) as p`)
    await db.execute(sql`insert into subscribers (user_id, subscribed, tier, status, source) select id, true, 'premium', 'active', 'testing' from (${people}) as p`)
    // Goals: the eight areas, scored.
    await db.execute(sql`
      insert into goals (user_id, life_area, satisfaction_score, updated_at)
      select p.id, a.area, 1 + (p.i + a.n) % 10, '2026-10-01' from (${people}) as p
      cross join (values ('faith', 0), ('family', 1), ('fitness', 2), ('finance', 3), ('friends', 4), ('fun', 5), ('service', 6), ('personal_development', 7)) as a(area, n)`)
    // Two weeks of daily calls (this week's and the week before's, for the mood trend), most completed.
    await db.execute(sql`
      insert into coaching_calls (user_id, slot, local_date, attempt, call_date, time_zone, completion_status, call_duration, areas_discussed, mood)
      select p.id, 'daily', d::date, 0, d + interval '15 hours', p.zone,
             case when (p.i + extract(day from d)::int) % 7 = 0 then 'no_answer' else 'completed' end,
             120 + (p.i % 300), array['fitness', 'finance'], 1 + (p.i + extract(day from d)::int) % 10
      from (${people}) as p, generate_series('2026-11-16'::date, '2026-11-29'::date, interval '1 day') as d`)
    // Commitments: made this week, one kept, one open.
    await db.execute(sql`
      insert into commitments (user_id, call_id, position, text, status, made_at, resolved_at, resolved_by)
      select c.user_id, c.id, k, 'Bench commitment ' || k, case when k = 0 then 'kept' else 'open' end, c.call_date + interval '10 minutes',
             case when k = 0 then c.call_date + interval '1 day' else null end, case when k = 0 then 'call' else null end
      from coaching_calls c cross join generate_series(0, 1) as k
      where c.local_date = '2026-11-24' and c.completion_status = 'completed'`)
    await db.execute(sql`analyze`)
    console.log(`  seeded ${users} people in ${zones.length} zones (a week of calls, commitments, goals) in ${seconds(Date.now() - seedStarted)}; deliveries queued on ${redis?.label ?? 'an in-memory queue (no Redis)'}`)

    // Two runners over the same database, ticking at the same instants.
    const clock = fakeClock(new Date('2026-11-29T00:00:00Z'))
    const config = loadConfig({ APP_URL: 'http://127.0.0.1:9', LOG_LEVEL: 'silent' })
    const log = pino({ level: 'silent' })
    const runners = [0, 1].map(() => createServices(config, { db, redis: undefined, clock, log, jobs: queue }))
    const instants = [...new Set(zones.map((zone) => oracleFireInstant(WEEK_ENDING, '18:00', zone).getTime()))].sort((a, b) => a - b)
    let workMs = 0
    let slowestMs = 0
    let claimed = 0
    for (const instant of instants) {
      clock.set(new Date(instant))
      const started = performance.now()
      const ticks = await Promise.all(runners.map((services) => services.reports.tick()))
      const elapsed = performance.now() - started
      workMs += elapsed
      slowestMs = Math.max(slowestMs, elapsed)
      claimed += ticks.reduce((sum, tick) => sum + tick.claimed, 0)
    }
    await Promise.all(runners.map((services) => services.close()))

    // The baseline: one statement reading the same rows (the people's week of calls, commitments, goals).
    const readStarted = performance.now()
    const read = rowsOf<unknown>(
      await db.execute(sql`
        select r.id,
          (select json_agg(json_build_object('slot', c.slot, 'local_date', c.local_date, 'status', c.completion_status, 'call_date', c.call_date, 'duration', c.call_duration, 'areas', c.areas_discussed, 'mood', c.mood))
             from coaching_calls c where c.user_id = r.user_id and c.call_date >= r.period_start - interval '7 days' and c.call_date < r.period_end) as calls,
          (select json_agg(json_build_object('status', m.status, 'made_at', m.made_at, 'resolved_at', m.resolved_at))
             from commitments m where m.user_id = r.user_id) as commitments,
          (select json_agg(json_build_object('area', g.life_area, 'score', g.satisfaction_score, 'updated_at', g.updated_at))
             from goals g where g.user_id = r.user_id) as goals
        from weekly_reports r where r.week_ending = ${WEEK_ENDING}::date`),
    )
    const readMs = performance.now() - readStarted

    // Exactly once, each at its own 6:00 PM.
    const [check] = rowsOf<{ reports: number; people: number; generated: number; early: number }>(
      await db.execute(sql`
        select count(*)::int as reports, count(distinct user_id)::int as people, count(generated_at)::int as generated,
               count(*) filter (where created_at < period_end)::int as early
        from weekly_reports where week_ending = ${WEEK_ENDING}::date`),
    )
    const offTheirTime = rowsOf<{ zone: string; n: number }>(
      await db.execute(sql`
        select r.time_zone as zone, count(*)::int as n from weekly_reports r
        where r.week_ending = ${WEEK_ENDING}::date and (r.created_at <> r.period_end) group by r.time_zone`),
    )
    const wrongInstant = zones.filter((zone) => {
      const due = oracleFireInstant(WEEK_ENDING, '18:00', zone).getTime()
      const start = oracleFireInstant(WEEK_BEFORE, '18:00', zone).getTime()
      return !instants.includes(due) || start >= due
    })
    const exact = check!.reports === users && check!.people === users && claimed === users && enqueued() === users && check!.generated === users
    const onTime = check!.early === 0 && offTheirTime.length === 0 && wrongInstant.length === 0
    console.log(
      `Weekly reports, ${users} people in ${zones.length} zones, 2 runners ticking at once at each zone's Sunday 6:00 PM: ` +
        `claimed, written and queued in ${seconds(workMs)} (the busiest instant ${seconds(slowestMs)}; ${Math.round(users / (workMs / 1000))} reports/s); ` +
        `reading the same rows with one SQL query: ${seconds(readMs)} (${read.length} reports' rows; ratio ${(workMs / readMs).toFixed(1)}x)`,
    )
    console.log(
      `  ${check!.reports} reports for ${check!.people} people, ${claimed} claims, ${enqueued()} deliveries queued, ${check!.generated} written; ` +
        `${offTheirTime.reduce((sum, row) => sum + row.n, 0)} claimed off their own 6:00 PM (goal: exactly one each, each at its 6:00 PM) ${ok(exact && onTime)}`,
    )
    return exact && onTime
  } finally {
    await queue.close()
    await bench.drop()
  }
}
