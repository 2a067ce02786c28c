/**
 * The metrics as an operator meets them: the real server entry started with METRICS_PORT, scraped
 * over HTTP on its own port (never the public one), checked by promtool, every name of the
 * operability issue's table present, and a 'Call me now' against the Vapi fake moving
 * `momentum_calls_dialled_total`. Then the worker's own listener, and METRICS_PORT=0.
 */
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { createSession } from '#server/auth/session'
import { profiles } from '#server/db/schema'
import { systemClock } from '#server/lib/clock'
import { activateTestingPlan } from '#server/services/billing'
import { FakeVapi } from '../fakes/vapi'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { insertUser } from '../helpers/factories'
import { freePort, spawnEntry, type Spawned } from '../helpers/process'
import { runPromtool } from '../helpers/promtool'
import { createWebhookCredential } from '../helpers/vapi-credential'

const SECRET = 'metrics-test-webhook-secret-0123456789abcdef'

/** Every metric the operability issue names (prefix momentum_), as the scrape shows them. */
const NAMES = [
  'momentum_http_request_duration_seconds',
  'momentum_calls_dialled_total',
  'momentum_calls_ended_total',
  'momentum_call_lateness_seconds',
  'momentum_vapi_lines_in_use',
  'momentum_vapi_lines_limit',
  'momentum_webhook_events_total',
  'momentum_webhook_event_lag_seconds',
  'momentum_webhook_events_dead',
  'momentum_jobs_waiting',
  'momentum_jobs_oldest_waiting_seconds',
  'momentum_job_duration_seconds',
  'momentum_job_failures_total',
  'momentum_texts_sent_total',
  'momentum_texts_refused_total',
  'momentum_consent_revocations_total',
  'momentum_emails_sent_total',
  'momentum_voice_sessions',
  'momentum_voice_frames_dropped_total',
]

/** The families a scrape declares (`# TYPE name kind`). */
const declared = (body: string) => new Set([...body.matchAll(/^# TYPE (\S+) /gm)].map((match) => match[1]!))

/** A sample's value, by its exact series (name and labels as printed), or 0 when absent. */
function sample(body: string, series: string): number {
  const line = body.split('\n').find((candidate) => candidate.startsWith(`${series} `))
  return line ? Number(line.slice(series.length + 1)) : 0
}

async function scrape(port: number): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${port}/metrics`)
  expect(response.status).toBe(200)
  expect(response.headers.get('content-type')).toContain('text/plain')
  return response.text()
}

/** Scrapes until `ready` holds of the body (the call is placed by a job after the answer): no fixed wait. */
async function scrapeUntil(port: number, ready: (body: string) => boolean): Promise<string> {
  for (let tries = 0; ; tries++) {
    const body = await scrape(port)
    if (ready(body) || tries > 200) return body
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

describe('the server with METRICS_PORT', () => {
  let database: TestDatabase
  let fake: FakeVapi
  let server: Spawned
  let port: number
  let metricsPort: number

  beforeAll(async () => {
    database = await createTestDatabase()
    fake = await FakeVapi.start()
    await createWebhookCredential(fake, SECRET)
    port = await freePort()
    metricsPort = await freePort()
    server = spawnEntry('server/index.ts', {
      DATABASE_URL: database.url,
      PORT: String(port),
      APP_URL: `http://127.0.0.1:${port}`,
      METRICS_PORT: String(metricsPort),
      VAPI_API_KEY: fake.apiKey,
      VAPI_API_URL: fake.url,
      VAPI_ASSISTANT_ID: 'asst-coach',
      VAPI_PHONE_NUMBER_ID: 'pn-coach',
      VAPI_WEBHOOK_SECRET: SECRET,
    })
    await server.waitFor(/Momentum Coach is ready/)
  })

  afterAll(async () => {
    server?.child.kill('SIGTERM')
    await server?.exited
    await fake?.close()
    await database?.destroy()
  })

  it('serves every named metric on its own port, clean by promtool, and counts a "Call me now"', async () => {
    expect(server.output()).toMatch(new RegExp(`"port":${metricsPort}.*metrics served at /metrics`))
    // A member who may be called, signed in.
    const user = await insertUser(database.db, { phoneNumber: '2025550147' })
    await database.db.update(profiles).set({ onboardingCompleted: true }).where(eq(profiles.id, user.id))
    await activateTestingPlan(database.db, user.id, 'basic', new Date())
    const session = await createSession(database.db, systemClock, user.id)
    const headers = { cookie: `session=${session.token}`, origin: `http://127.0.0.1:${port}` }

    const before = await scrape(metricsPort)
    const placed = 'momentum_calls_dialled_total{kind="call_now",outcome="placed"}'
    expect(sample(before, placed)).toBe(0)

    const response = await fetch(`http://127.0.0.1:${port}/api/calls/test`, { method: 'POST', headers })
    expect(response.status).toBe(202)
    const { callId } = (await response.json()) as { callId: string }

    const after = await scrapeUntil(metricsPort, (body) => sample(body, placed) >= 1)
    expect(sample(after, placed)).toBe(1)
    expect(sample(after, 'momentum_calls_due_total{kind="call_now"}')).toBe(1)
    expect(sample(after, 'momentum_call_lateness_seconds_count')).toBe(1)
    expect(sample(after, 'momentum_job_duration_seconds_count{job="place-call"}')).toBeGreaterThanOrEqual(1)
    // The request is labelled by its route's pattern, never its path or ids.
    expect(sample(after, 'momentum_http_request_duration_seconds_count{route="/api/calls/test",method="POST",status_class="2xx"}')).toBe(1)
    expect(after).not.toContain(callId)
    expect(after).not.toContain(user.id)
    expect(after).not.toContain('2025550147')
    // Vapi's lines: the setting's 10 (the call's line is given back once it ends).
    expect(sample(after, 'momentum_vapi_lines_limit')).toBe(10)

    const names = declared(after)
    expect(NAMES.filter((name) => !names.has(name))).toEqual([])
    // prom-client's process metrics come along.
    expect(names.has('process_start_time_seconds')).toBe(true)

    const checked = runPromtool(['check', 'metrics'], after)
    expect(checked.stderr + checked.stdout).toBe('')
    expect(checked.status).toBe(0)
  })

  it('is not served on the public port, and the probes answer there', async () => {
    const onPublic = await fetch(`http://127.0.0.1:${port}/metrics`)
    expect(onPublic.status).not.toBe(200)
    expect(await onPublic.text()).not.toContain('momentum_')
    const live = await fetch(`http://127.0.0.1:${port}/livez`)
    expect(live.status).toBe(200)
    expect(await live.json()).toEqual({ status: 'alive' })
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`)
    expect(ready.status).toBe(200)
    expect(await ready.json()).toMatchObject({ status: 'ready', checks: { database: { ok: true }, migrations: { ok: true }, redis: { ok: true } } })
    // The metrics listener answers only /metrics.
    expect((await fetch(`http://127.0.0.1:${metricsPort}/`)).status).toBe(404)
  })
})

describe('the worker with METRICS_PORT, and METRICS_PORT=0', () => {
  let database: TestDatabase

  beforeAll(async () => {
    database = await createTestDatabase()
  })
  afterAll(async () => {
    await database?.destroy()
  })

  it('the worker serves its own metrics: its queues, from Redis', async () => {
    const metricsPort = await freePort()
    const worker = spawnEntry('worker/index.ts', {
      DATABASE_URL: database.url,
      REDIS_URL: inject('redisUrl'),
      METRICS_PORT: String(metricsPort),
    })
    try {
      await worker.waitFor(/worker ready/)
      const body = await scrape(metricsPort)
      expect(body).toMatch(/^momentum_jobs_waiting\{queue="calls"\} \d+$/m)
      expect(body).toMatch(/^momentum_jobs_oldest_waiting_seconds\{queue="texts"\} [\d.]+$/m)
      expect(runPromtool(['check', 'metrics'], body).status).toBe(0)
    } finally {
      worker.child.kill('SIGTERM')
      await worker.exited
    }
  })

  it('METRICS_PORT=0 serves none', async () => {
    const port = await freePort()
    const server = spawnEntry('server/index.ts', { DATABASE_URL: database.url, PORT: String(port), METRICS_PORT: '0' })
    try {
      await server.waitFor(/Momentum Coach is ready/)
      expect(server.output()).not.toContain('metrics served')
    } finally {
      server.child.kill('SIGTERM')
      await server.exited
    }
  })
})
