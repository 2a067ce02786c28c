/**
 * `npm run calls:status`: the operator's view at a glance in a terminal, read straight from
 * PostgreSQL (DATABASE_URL) and Redis (REDIS_URL), with no server running: the phone calls by
 * status in the last hour and today, the answer rate against a week ago, lateness, Vapi's lines,
 * the queues, parked webhook messages, stuck calls and refused texts (what `/ops` shows).
 * `--json` prints the snapshot as JSON. Exit 0; 1 when it cannot read.
 */
import { Redis } from 'ioredis'
import type { OpsSnapshot } from '#common/ops'
import { ConfigError, loadConfig } from '#server/config'
import { openDatabase } from '#server/db/client'
import { createBullmqEnqueuer } from '#server/jobs/bullmq'
import { JOBS } from '#server/jobs/index'
import { systemClock } from '#server/lib/clock'
import { callLines } from '#server/services/calls'
import { operationsSnapshot } from '#server/services/ops'

const pad = (value: string | number, width: number) => String(value).padEnd(width)
const percent = (rate: number | null) => (rate === null ? '—' : `${Math.round(rate * 1000) / 10}%`)
const seconds = (value: number | null) => (value === null ? '—' : `${value} s`)

/** The snapshot as a few aligned sections of plain text. */
function formatSnapshot(snapshot: OpsSnapshot, notes: { lines: string | null; queues: string | null }): string {
  const out: string[] = [`Momentum Coach, ${snapshot.at}`, '']
  const statuses = (rows: OpsSnapshot['calls']['today']) => (rows.length === 0 ? 'none' : rows.map((row) => `${row.status} ${row.count}`).join(', '))
  out.push('Calls (phone)')
  out.push(`  last hour   ${statuses(snapshot.calls.lastHour)}`)
  out.push(`  today (UTC) ${statuses(snapshot.calls.today)}`)
  const { today, lastWeek } = snapshot.calls.answerRate
  out.push(`  answered    ${percent(today.rate)} today (${today.reached} of ${today.reached + today.notReached}); ${percent(lastWeek.rate)} a week ago`)
  out.push(`  lateness    p50 ${seconds(snapshot.lateness.p50Seconds)}, p99 ${seconds(snapshot.lateness.p99Seconds)} over ${snapshot.lateness.dialled} dialled in the last hour`)
  out.push('')
  out.push('Vapi lines')
  if (snapshot.lines) out.push(`  ${snapshot.lines.inUse} of ${snapshot.lines.limit} in use, ${snapshot.lines.waiting} calls waiting for one`)
  else out.push(`  ${notes.lines ?? 'could not be read'}`)
  out.push('')
  out.push('Queues')
  if (snapshot.queues.length === 0) out.push(`  ${notes.queues ?? 'none'}`)
  for (const queue of snapshot.queues) out.push(`  ${pad(queue.queue, 14)} ${pad(`${queue.waiting} waiting`, 12)} oldest ${queue.oldestWaitingSeconds} s`)
  out.push('')
  out.push(`Webhook messages parked: ${snapshot.webhooks.parkedCount}`)
  for (const event of snapshot.webhooks.parked) out.push(`  #${event.id} ${event.type}, parked ${event.parkedAt} after ${event.attempts} tries: ${event.lastError ?? ''}`)
  out.push(`Stuck calls: ${snapshot.stuckCalls.length}`)
  for (const call of snapshot.stuckCalls) out.push(`  ${call.id} ${call.status}, ${call.minutesPastEnd} min past its end`)
  out.push(`Texts refused (24 h): ${snapshot.textsRefused.length === 0 ? 'none' : snapshot.textsRefused.map((row) => `${row.code} ×${row.count}`).join(', ')}`)
  return out.join('\n')
}

async function main(): Promise<number> {
  const config = loadConfig()
  if (!config.databaseUrl) {
    console.error('calls:status reads PostgreSQL: set DATABASE_URL. With the embedded database, the server process owns it: open /ops in the app instead.')
    return 1
  }
  const database = await openDatabase({ databaseUrl: config.databaseUrl, maxConnections: 2 })
  const redis = config.redisUrl ? new Redis(config.redisUrl, { maxRetriesPerRequest: 1 }) : undefined
  const queues = redis ? createBullmqEnqueuer({ jobs: JOBS, connection: redis }) : undefined
  try {
    await redis?.ping()
    // The fleet's count of lines lives in Redis (keys under the services' prefix, as the servers keep them).
    const lines = redis ? callLines(redis, 'mc:lines:', config.callLines, systemClock) : undefined
    const snapshot = await operationsSnapshot({
      db: database.db,
      now: systemClock.now(),
      lines: lines ? () => lines.state() : () => Promise.reject(new Error('no Redis')),
      queues: queues ? () => queues.stats() : async () => [],
    })
    if (process.argv.includes('--json')) console.log(JSON.stringify(snapshot, null, 2))
    else {
      const inProcess = 'without REDIS_URL the lines and queues live in the server process: see /ops'
      console.log(formatSnapshot(snapshot, { lines: redis ? null : inProcess, queues: redis ? null : inProcess }))
    }
    return 0
  } finally {
    await queues?.close()
    redis?.disconnect()
    await database.close()
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof ConfigError ? error.message : `calls:status failed: ${(error as Error).message}`)
    process.exit(1)
  },
)
