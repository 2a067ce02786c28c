/**
 * A test-support entry (never part of the product): the real app, built by `buildApp` as
 * server/index.ts builds it, but on a test clock with manual timers, and the Vapi fake in the same
 * process on the same clock, so a browser test can move time instead of waiting for the scheduler.
 *
 *   node --import tsx test/e2e/support/clocked-server.ts
 *
 * The app reads its configuration from the environment as usual (PORT, HOST, APP_URL, DATA_DIR,
 * SMTP_URL, VAPI_ASSISTANT_ID, VAPI_PHONE_NUMBER_ID, VAPI_WEBHOOK_SECRET…); VAPI_API_URL and
 * VAPI_API_KEY are the fake's. Besides those:
 * - CLOCK_START: the test clock's first instant (ISO 8601);
 * - CONTROL_PORT: a separate loopback port (not the app's) for the test's controls:
 *     GET  /now            → { now }
 *     POST /advance {to}   → moves the clock to `to`, firing each timer due on the way at its own
 *                            instant and letting the jobs and the fake's webhooks settle; { now }
 *     GET  /vapi/calls     → { calls }: the phone calls the fake received, as GET /call returns them
 *     POST /vapi/hold {before} → holds every phone call before its step `before` (e.g.
 *                            'status-update:ended': the call stays in progress); settling then
 *                            stops waiting for a held call once it is held at the latest hold set
 *     POST /vapi/hold/reached {before} → { step }: once a call is held there
 *     POST /vapi/release {before} → lets the calls held there go on (to the next hold), and settles
 *     POST /vapi/chat-replies {inputStartsWith, content} → the next chat whose input starts so is
 *                            answered with `content` (a scripted memory extraction: FakeVapi.scriptChatReply)
 * The clock moves only on /advance; a job due at the current instant runs at once (see appTimers).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { isNull } from 'drizzle-orm'
import { buildApp } from '#server/app'
import { loadConfig } from '#server/config'
import { openDatabase } from '#server/db/client'
import { vapiWebhookEvents } from '#server/db/schema'
import type { JobRunner, Timers } from '#server/jobs/in-process'
import { FakeVapi, type StepInfo } from '../../fakes/vapi'
import { fakeClock } from '../../helpers/clock'
import { manualTimers } from '../../helpers/timers'
import { createWebhookCredential } from '../../helpers/vapi-credential'

/** One settle or advance at a time. */
let queue: Promise<unknown> = Promise.resolve()
function serialized<T>(work: () => Promise<T>): Promise<T> {
  const run = queue.then(work)
  queue = run.catch(() => {})
  return run
}

const start = new Date(process.env.CLOCK_START ?? '')
const controlPort = Number(process.env.CONTROL_PORT)
if (Number.isNaN(start.getTime()) || !Number.isInteger(controlPort) || controlPort <= 0) {
  console.error('clocked-server: CLOCK_START (an ISO instant) and CONTROL_PORT are required')
  process.exit(1)
}

const clock = fakeClock(start)
const timers = manualTimers(clock)
/**
 * The job runner's timers. The clock stands still between advances, but a job due at the current
 * instant (an email to send, a webhook to apply) runs at once, as on a real server: arming a timer
 * for now queues a settle.
 */
const appTimers: Timers = {
  setTimeout(callback, ms) {
    const handle = timers.timers.setTimeout(callback, ms)
    if (ms <= 0) setImmediate(() => void serialized(settle).catch((error: unknown) => console.error('clocked-server: settle failed', error)))
    return handle
  },
  clearTimeout: (handle) => timers.timers.clearTimeout(handle),
}
const fake = await FakeVapi.start({ clock })
const config = loadConfig({ ...process.env, VAPI_API_KEY: fake.apiKey, VAPI_API_URL: fake.url })
// What `npm run vapi:setup` leaves in the account: the webhook credential the calls reference.
if (config.vapi?.webhookSecret) await createWebhookCredential(fake, config.vapi.webhookSecret, config.vapi.webhookAuth)
const database = await openDatabase(config.databaseUrl ? { databaseUrl: config.databaseUrl } : { dataDir: config.dataDir })
await database.migrate()
/** The app's job runner, once the app is built (settling waits for it). */
let runner: JobRunner | null = null
const app = await buildApp(config, { database, clock, timers: appTimers })
if (!app.jobRunner) throw new Error('clocked-server: the in-process job runner is off (REDIS_URL must be empty)')
runner = app.jobRunner
// The voice gateway's heartbeat runs on the test clock too: a jump of minutes would ping a browser
// socket and, the next instant, find no pong (the browser answers in real time) and cut it. A real
// browser answers in milliseconds; here the heartbeat is left out of the jumps.
app.services.voice.settings.heartbeatMs = 24 * 3_600_000

/** The holds set over /vapi/hold by step label: a held call never settles, so settling waits until it is held (at the latest hold). */
const holds = new Map<string, { reached: Promise<StepInfo>; release: () => void }>()
const fakeSettled = (): Promise<unknown> => {
  const latest = [...holds.values()].at(-1)
  return latest ? Promise.race([fake.settled(), latest.reached]) : fake.settled()
}

/** Runs everything due up to now: armed jobs, the fake's webhooks, the jobs they enqueue. */
async function settle(): Promise<void> {
  if (!runner) return
  for (let round = 0; round < 50; round++) {
    await fakeSettled()
    timers.advanceTo(clock.now())
    await runner.drain()
    await fakeSettled()
    const due = timers.armed().some((instant) => instant.getTime() <= clock.now().getTime())
    const pending = await database.db.select({ id: vapiWebhookEvents.id }).from(vapiWebhookEvents).where(isNull(vapiWebhookEvents.processedAt))
    if (!due && pending.length === 0) return
  }
  throw new Error('clocked-server: the jobs did not settle in 50 rounds')
}

/** Moves the test clock to `to`, stopping at each armed timer's instant on the way. */
async function advanceTo(to: Date): Promise<void> {
  for (;;) {
    const next = timers.armed().find((instant) => instant.getTime() > clock.now().getTime() && instant.getTime() <= to.getTime())
    if (!next) break
    timers.advanceTo(next)
    await settle()
  }
  timers.advanceTo(to)
  await settle()
}

async function readJson(request: IncomingMessage): Promise<Record<string, unknown>> {
  let text = ''
  for await (const chunk of request) text += String(chunk)
  const body: unknown = text ? JSON.parse(text) : {}
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new Error('the body must be a JSON object')
  return body as Record<string, unknown>
}

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body))
}

const control = createServer((request, response) => {
  void (async () => {
    try {
      if (request.method === 'GET' && request.url === '/now') return send(response, 200, { now: clock.now().toISOString() })
      if (request.method === 'GET' && request.url === '/vapi/calls') return send(response, 200, { calls: fake.calls.list() })
      if (request.method === 'POST' && request.url === '/vapi/chat-replies') {
        const { inputStartsWith, content } = await readJson(request)
        if (typeof inputStartsWith !== 'string' || !inputStartsWith || typeof content !== 'string') return send(response, 400, { error: 'inputStartsWith and content must be strings' })
        fake.scriptChatReply(inputStartsWith, content)
        return send(response, 200, { ok: true })
      }
      if (request.url?.startsWith('/vapi/hold') || request.url === '/vapi/release') {
        const before = request.method === 'POST' ? (await readJson(request)).before : undefined
        if (typeof before !== 'string' || !before) return send(response, 400, { error: 'before must be a step label such as status-update:ended' })
        if (request.url === '/vapi/hold') {
          holds.get(before)?.release()
          holds.delete(before)
          holds.set(before, fake.calls.holdBefore(before))
          return send(response, 200, { ok: true })
        }
        const hold = holds.get(before)
        if (!hold) return send(response, 404, { error: `no hold before ${before}` })
        if (request.url === '/vapi/hold/reached') return send(response, 200, { step: await hold.reached })
        if (request.url === '/vapi/release') {
          holds.delete(before)
          hold.release()
          await serialized(settle)
          return send(response, 200, { ok: true })
        }
      }
      if (request.method === 'POST' && request.url === '/advance') {
        const to = new Date(String((await readJson(request)).to))
        if (Number.isNaN(to.getTime())) return send(response, 400, { error: 'to must be an ISO instant' })
        if (to.getTime() < clock.now().getTime()) return send(response, 400, { error: `the clock is already at ${clock.now().toISOString()}` })
        await serialized(() => advanceTo(to))
        return send(response, 200, { now: clock.now().toISOString() })
      }
      return send(response, 404, { error: `no control ${request.method} ${request.url}` })
    } catch (error) {
      console.error('clocked-server: control request failed', error)
      return send(response, 500, { error: (error as Error).message })
    }
  })()
})

async function shutdown(): Promise<void> {
  control.close()
  await app.close().catch((error: unknown) => console.error('clocked-server: app close', error))
  await fake.close().catch(() => {})
  await database.close().catch(() => {})
  process.exit(0)
}
process.once('SIGTERM', () => void shutdown())
process.once('SIGINT', () => void shutdown())

await serialized(settle)
await new Promise<void>((resolve) => control.listen(controlPort, '127.0.0.1', resolve))
await app.listen({ port: config.port, host: config.host })
