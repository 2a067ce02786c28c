/**
 * Webhooks (issue 13): 200 calls' webhook streams delivered 3× each in shuffled order give the same
 * records as in-order delivery (ratio of identical records, goal 1.000); with 10% of the deliveries
 * of another 200 calls dropped, the sweep completes 100% of them; the acknowledgement's p99 at 200
 * deliveries a second stays ≤ 20 ms.
 *
 * Two server processes (the production entry, embedded jobs, each on its own PostgreSQL database)
 * receive the same streams: one in order (the reference), one duplicated, shuffled and partly
 * dropped, paced at 200 deliveries a second. The Vapi fake plays the calls (its record is what the
 * sweep asks for); the bench runs the sweep itself with a clock past the calls' end.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { createServer } from 'node:http'
import { mkdtempSync, rmSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { inArray, isNull } from 'drizzle-orm'
import { pino } from 'pino'
import postgres from 'postgres'
import { VAPI_SECRET_HEADER, VAPI_WEBHOOK_PATH } from '#common/webhooks'
import { loadConfig } from '#server/config'
import { createServices } from '#server/container'
import { openDatabase, type Database } from '#server/db/client'
import { coachingCalls, consentEvents, profiles, users, vapiWebhookEvents } from '#server/db/schema'
import { FakeVapi } from '../test/fakes/vapi'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const CALLS = Number(process.env.BENCH_WEBHOOK_CALLS ?? 200)
const RATE = 200
const SECRET = 'bench-webhook-secret-0123456789abcdef'
const log = pino({ level: 'silent' })

type Message = { type: string; status?: unknown } & Record<string, unknown>

/** A seeded PRNG (mulberry32): the same shuffle and drops on every run. */
function random(seed: number) {
  return () => {
    seed |= 0
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

function shuffle<T>(items: T[], next: () => number): T[] {
  const copy = [...items]
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1))
    ;[copy[i], copy[j]] = [copy[j]!, copy[i]!]
  }
  return copy
}

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

async function createDatabase(admin: postgres.Sql, adminUrl: string, name: string): Promise<{ url: string; database: Database }> {
  await admin.unsafe(`create database "${name}"`)
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  const database = await openDatabase({ databaseUrl: url.toString(), maxConnections: 4 })
  await database.migrate()
  return { url: url.toString(), database }
}

async function startServer(env: Record<string, string>): Promise<{ url: string; child: ChildProcess; dataDir: string }> {
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const dataDir = mkdtempSync(join(tmpdir(), 'mc-bench-webhooks-'))
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/index.ts'], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', APP_URL: url, DATA_DIR: dataDir, REDIS_URL: '', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  for (let tries = 0; ; tries++) {
    if (child.exitCode !== null) throw new Error('a bench server exited')
    try {
      if ((await fetch(`${url}/api/health`)).ok) break
    } catch {
      // not listening yet
    }
    if (tries > 300) throw new Error('a bench server did not start')
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  return { url, child, dataDir }
}

/** Posts the deliveries at RATE a second (open loop); returns each acknowledgement's latency in ms. */
async function deliver(url: string, deliveries: Message[]): Promise<number[]> {
  const latencies: number[] = []
  const failures: string[] = []
  const started = performance.now()
  const inFlight: Array<Promise<void>> = []
  for (let i = 0; i < deliveries.length; i++) {
    const due = started + (i * 1000) / RATE
    const wait = due - performance.now()
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
    const body = JSON.stringify({ message: deliveries[i] })
    inFlight.push(
      (async () => {
        const sent = performance.now()
        const response = await fetch(`${url}${VAPI_WEBHOOK_PATH}`, { method: 'POST', headers: { 'content-type': 'application/json', [VAPI_SECRET_HEADER]: SECRET }, body })
        await response.arrayBuffer()
        if (response.status !== 200) throw new Error(`webhook answered ${response.status}`)
        latencies.push(performance.now() - sent)
      })().catch((error: unknown) => {
        failures.push(error instanceof Error ? `${error.message} ${String((error as { cause?: unknown }).cause ?? '')}` : String(error))
      }),
    )
  }
  await Promise.all(inFlight)
  if (failures.length > 0) throw new Error(`${failures.length} of ${deliveries.length} deliveries failed, e.g. ${failures[0]}`)
  return latencies
}

const RECORD = {
  id: coachingCalls.id,
  completionStatus: coachingCalls.completionStatus,
  endedReason: coachingCalls.endedReason,
  callDuration: coachingCalls.callDuration,
  summary: coachingCalls.summary,
  areasDiscussed: coachingCalls.areasDiscussed,
  mood: coachingCalls.mood,
  energy: coachingCalls.energy,
  commitments: coachingCalls.commitments,
  transcript: coachingCalls.transcript,
  startedAt: coachingCalls.startedAt,
  endedAt: coachingCalls.endedAt,
}

async function records(database: Database, ids: string[]): Promise<Map<string, string>> {
  const rows = await database.db.select(RECORD).from(coachingCalls).where(inArray(coachingCalls.id, ids))
  return new Map(rows.map((row) => [row.id, JSON.stringify(row)]))
}

/** What the sweep can know (it asks Vapi for the call, not for its webhooks): the outcome and the report. */
async function outcomes(database: Database, ids: string[]): Promise<Map<string, string>> {
  const rows = await database.db.select(RECORD).from(coachingCalls).where(inArray(coachingCalls.id, ids))
  return new Map(rows.map((row) => [row.id, JSON.stringify([row.completionStatus, row.endedReason, row.summary, row.areasDiscussed, row.mood, row.commitments])]))
}

export async function webhookBench(): Promise<boolean> {
  const adminUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} })
  try {
    await admin`select 1`
  } catch {
    await admin.end().catch(() => {})
    console.log('webhooks: needs PostgreSQL; skipped')
    return true
  }
  const names = [`mc_bench_wh_a_${process.pid}`, `mc_bench_wh_b_${process.pid}`]
  const collector = createServer((_request, response) => response.end('{}'))
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve))
  const fake = await FakeVapi.start({ pacing: 'manual', webhookUrl: `http://127.0.0.1:${(collector.address() as AddressInfo).port}/` })
  const servers: Array<{ child: ChildProcess; dataDir: string }> = []
  const databases: Database[] = []
  try {
    const reference = await createDatabase(admin, adminUrl, names[0]!)
    const faulty = await createDatabase(admin, adminUrl, names[1]!)
    databases.push(reference.database, faulty.database)

    // 2 × CALLS calls: placed at the fake (as the dialler would), each with its claim row in both databases.
    const now = new Date()
    const calls: Array<{ id: string; vapiCallId: string; set: 'duplicated' | 'dropped' }> = []
    for (let i = 0; i < 2 * CALLS; i++) {
      const userId = randomUUID()
      const id = randomUUID()
      const phone = `555${String(1_000_000 + i).slice(-7)}`
      const user = { id: userId, email: `bench-wh-${i}-${process.pid}@example.com`, passwordHash: 'x', fullName: `Bench ${i}`, phoneNumber: phone, communicationConsentVersion: 'bench', communicationConsentAt: now, termsAcceptedAt: now }
      const response = await fetch(`${fake.url}/call`, {
        method: 'POST',
        headers: { authorization: `Bearer ${fake.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          assistantId: 'asst-bench',
          phoneNumberId: 'pn-bench',
          name: `mc ${id}`,
          customer: { number: `+1${phone}`, name: `Bench ${i}` },
          assistantOverrides: { maxDurationSeconds: 300, metadata: { callId: id }, serverMessages: ['status-update', 'end-of-call-report'], variableValues: { firstName: `Bench ${i}` } },
        }),
      })
      const vapiCallId = ((await response.json()) as { id: string }).id
      for (const { database } of [reference, faulty]) {
        await database.db.insert(users).values(user)
        await database.db.insert(profiles).values({ id: userId })
        // Consent to calls, as sign-up records it (a retry is planned only for a person who may be called).
        await database.db.insert(consentEvents).values({ userId, channel: 'calls', action: 'granted', source: 'sign_up', text: 'Bench consent', at: now })
        await database.db.insert(coachingCalls).values({ id, userId, callDate: now, localDate: now.toISOString().slice(0, 10), vapiCallId, completionStatus: 'queued', dialledAt: now, maxDurationSeconds: 300, timeZone: 'America/New_York' })
      }
      calls.push({ id, vapiCallId, set: i < CALLS ? 'duplicated' : 'dropped' })
    }
    for (const call of calls) await fake.calls.play(call.vapiCallId)
    const streams = new Map(calls.map((call) => [call.id, fake.calls.messages(call.vapiCallId) as Message[]]))

    const env = (databaseUrl: string) => ({ DATABASE_URL: databaseUrl, VAPI_API_KEY: fake.apiKey, VAPI_API_URL: fake.url, VAPI_ASSISTANT_ID: 'asst-bench', VAPI_PHONE_NUMBER_ID: 'pn-bench', VAPI_WEBHOOK_SECRET: SECRET })
    const first = await startServer(env(reference.url))
    const second = await startServer(env(faulty.url))
    servers.push(first, second)

    // Waits until a server has applied what it stored (its jobs run in-process).
    const settled = async (database: Database) => {
      for (let tries = 0; tries < 600; tries++) {
        const pending = await database.db.select({ id: vapiWebhookEvents.id }).from(vapiWebhookEvents).where(isNull(vapiWebhookEvents.processedAt)).limit(1)
        if (pending.length === 0) return
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
    }
    // The reference: every stream once, in order, applied before the measured run starts.
    await deliver(first.url, calls.flatMap((call) => streams.get(call.id)!))
    await settled(reference.database)
    // The faulty server: the first set three times each, shuffled; the second set with 10% dropped.
    const next = random(13)
    const duplicated = calls.filter((call) => call.set === 'duplicated').flatMap((call) => [...streams.get(call.id)!, ...streams.get(call.id)!, ...streams.get(call.id)!])
    const dropped = calls.filter((call) => call.set === 'dropped').flatMap((call) => streams.get(call.id)!).filter(() => next() >= 0.1)
    const deliveries = shuffle([...duplicated, ...dropped], next)
    const latencies = await deliver(second.url, deliveries)

    // Then sweep the faulty server's database as if 30 minutes had passed.
    await settled(faulty.database)
    const later = { now: () => new Date(Date.now() + 30 * 60_000) }
    const sweeper = createServices(loadConfig({ APP_URL: 'http://127.0.0.1:1', LOG_LEVEL: 'silent', ...env(faulty.url) }), { db: faulty.database.db, redis: undefined, clock: later, log })
    const droppedIds = calls.filter((call) => call.set === 'dropped').map((call) => call.id)
    const beforeSweep = await outcomes(faulty.database, droppedIds)
    const unfinished = [...beforeSweep.values()].filter((value) => !value.startsWith('["completed"')).length
    await sweeper.calls.sweep()
    await sweeper.close()

    const duplicatedIds = calls.filter((call) => call.set === 'duplicated').map((call) => call.id)
    const want = await records(reference.database, duplicatedIds)
    const got = await records(faulty.database, duplicatedIds)
    const same = duplicatedIds.filter((id) => want.get(id) === got.get(id) && JSON.parse(want.get(id)!).completionStatus === 'completed').length
    const ratio = same / duplicatedIds.length
    const wantOutcomes = await outcomes(reference.database, droppedIds)
    const gotOutcomes = await outcomes(faulty.database, droppedIds)
    const completed = droppedIds.filter((id) => gotOutcomes.get(id) === wantOutcomes.get(id) && gotOutcomes.get(id)!.startsWith('["completed"')).length
    const sorted = [...latencies].sort((a, b) => a - b)
    const p99 = sorted[Math.floor(sorted.length * 0.99)] ?? 0
    const p50 = sorted[Math.floor(sorted.length * 0.5)] ?? 0
    const pass = ratio === 1 && completed === droppedIds.length && p99 <= 20
    console.log(
      `webhooks: ${duplicatedIds.length} calls delivered 3x shuffled = in-order records ratio ${ratio.toFixed(3)} (goal 1.000); ` +
        `10% of ${droppedIds.length} calls' deliveries dropped (${unfinished} left unfinished), after the sweep ${((100 * completed) / droppedIds.length).toFixed(1)}% complete (goal 100%); ` +
        `ack at ${RATE}/s over ${deliveries.length} deliveries p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms (goal <= 20) ${pass ? 'OK' : 'BELOW GOAL'}`,
    )
    return pass
  } finally {
    for (const server of servers) {
      const exited = new Promise((resolve) => server.child.once('exit', resolve))
      server.child.kill('SIGTERM')
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))])
      rmSync(server.dataDir, { recursive: true, force: true })
    }
    for (const database of databases) await database.close()
    await fake.close()
    collector.close()
    for (const name of names) await admin.unsafe(`drop database if exists "${name}" with (force)`).catch(() => {})
    await admin.end()
  }
}
