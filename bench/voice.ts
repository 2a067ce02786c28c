/**
 * The voice gateway's benchmarks (issue 14; docs/decisions/042 and 044).
 *
 * - **Added latency**: simulated browsers stream 20 ms PCM16 frames in real time through the
 *   gateway (`/api/voice`, a voice call each) to the Vapi fake, whose calls echo every frame; the
 *   same clients, in the same run, open calls straight on the fake (`POST /call`, its
 *   `websocketCallUrl` with the Bearer key) and stream the same way. A frame's round trip is the
 *   time from its send to its echo's arrival (each frame carries its sequence number). Rounds
 *   come in pairs, the order alternating (direct, gateway / gateway, direct); each pair gives what
 *   the gateway added at p50 and p99, and the figure is the median over the pairs.
 * - **Capacity**: the same at rising numbers of sessions; held means every frame sent came back and
 *   the added p99 (median of the pairs) stayed within its goal. Memory per session: the server's
 *   RSS growth from before the sessions opened to while they are held, divided by their number
 *   (the median over the pairs; each RSS the median of samples a tenth of a second apart).
 * - **Live transcript**: two servers behind one Redis; phone-call transcript webhooks arrive on one,
 *   the person's dashboard socket is on the other; delivery is from the webhook's send to the
 *   line's arrival on the socket.
 *
 * The fake runs in a process of its own (bench/voice-fake.ts), the server(s) in theirs, this
 * process is the load generator; PostgreSQL and a Redis of the bench's own serve the servers.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { Agent, request } from 'undici'
import WebSocket from 'ws'
import { VOICE_FRAME_BYTES, VOICE_FRAME_MS, VOICE_PROTOCOL_VERSION } from '#common/voice'
import { createSession } from '#server/auth/session'
import type { Database } from '#server/db/client'
import { coachingCalls } from '#server/db/schema'
import { systemClock } from '#server/lib/clock'
import { activateTestingPlan } from '#server/services/billing'
import { insertUser } from '../test/helpers/factories'
import { cpuSecondsOf, envNumber, processTree, treeCpuSecondsOf, freePort, LOG_DIR, ok, percentile, postgresDatabase, quantile, ROOT, sleep, spawnProduct, startRedis, type Product } from './calls-setup'

/** Frames a session keeps the send time of (a frame not back after this many is counted lost). */
const RING = 4096
const WEBHOOK_SECRET = 'bench-voice-webhook-secret'
const GOALS = { p50: 1, p99: 5, capacity: 300, capacityP99: 20, kibPerSession: 96, liveP99: 50 }

type FakeProcess = { url: string; apiKey: string; child: ChildProcess; stop(): Promise<void> }

async function startFakeProcess(): Promise<FakeProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/voice-fake.ts'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] })
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve)
    child.once('exit', (code) => reject(new Error(`the voice bench's fake exited with ${code}`)))
  })
  const { url, apiKey } = JSON.parse(line) as { url: string; apiKey: string }
  return {
    url,
    apiKey,
    child,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGTERM')
      await exited
    },
  }
}

/** Resident memory of a process and its descendants in KiB (Linux /proc). */
function rssKiB(pid: number | undefined): number {
  return processTree(pid).reduce((sum, each) => {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${each}/status`, 'utf8'))
    return sum + (match ? Number(match[1]) : Number.NaN)
  }, 0)
}

/** The median of the process's RSS sampled every 100 ms for `ms` (KiB). */
async function rssOver(pid: number | undefined, ms: number): Promise<number> {
  const samples: number[] = []
  for (const end = Date.now() + ms; Date.now() < end; ) {
    samples.push(rssKiB(pid))
    await sleep(100)
  }
  samples.sort((a, b) => a - b)
  return samples[Math.floor(samples.length / 2)] ?? rssKiB(pid)
}

/** Paid people with a live session each, written straight to the database (no password hashing). */
async function seedPeople(database: Database, count: number): Promise<Array<{ userId: string; cookie: string }>> {
  const people: Array<{ userId: string; cookie: string }> = []
  for (let i = 0; i < count; i += 25) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(25, count - i) }, async (_, j) => {
        const user = await insertUser(database.db, { email: `bench-voice-${process.pid}-${i + j}@example.com`, fullName: `Bench Voice ${i + j}` })
        await activateTestingPlan(database.db, user.id, 'basic', new Date())
        const session = await createSession(database.db, systemClock, user.id)
        return { userId: user.id, cookie: `session=${session.token}` }
      }),
    )
    people.push(...batch)
  }
  return people
}

// ---- a simulated browser (or a client of the fake) ----------------------------------------------

/** One streaming session: sends numbered frames, times their echoes. */
class Stream {
  readonly sentAt = new Float64Array(RING)
  seq = 0
  /** Sequence numbers [from, to) sent while measuring, and how many of them came back. */
  from = -1
  to = -1
  back = 0
  #waiters: Array<{ test: (message: Record<string, unknown>) => boolean; resolve: (message: Record<string, unknown>) => void }> = []
  readonly closed: Promise<void>
  readonly ws: WebSocket
  readonly sink: { measuring: boolean; latencies: number[] }

  constructor(ws: WebSocket, sink: { measuring: boolean; latencies: number[] }) {
    this.ws = ws
    this.sink = sink
    ws.binaryType = 'nodebuffer'
    ws.on('message', (data, isBinary) => (isBinary ? this.#echo(data as Buffer) : this.#json(data as Buffer)))
    ws.on('error', () => {})
    this.closed = new Promise((resolve) => ws.once('close', () => resolve()))
  }

  send(now: number): void {
    if (this.ws.readyState !== WebSocket.OPEN) return
    const frame = Buffer.alloc(VOICE_FRAME_BYTES)
    frame.writeUInt32LE(this.seq, 0)
    this.sentAt[this.seq % RING] = now
    if (this.sink.measuring) {
      if (this.from < 0) this.from = this.seq
      this.to = this.seq + 1
    }
    this.seq++
    this.ws.send(frame, { binary: true })
  }

  /** Resolves with the first JSON message that passes `test` (from now on). */
  next(test: (message: Record<string, unknown>) => boolean, ms = 30_000): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no matching message within ${ms} ms`)), ms)
      this.#waiters.push({
        test,
        resolve: (message) => {
          clearTimeout(timer)
          resolve(message)
        },
      })
    })
  }

  get missing(): number {
    return this.from < 0 ? 0 : this.to - this.from - this.back
  }

  #echo(frame: Buffer): void {
    const at = performance.now()
    const seq = frame.readUInt32LE(0)
    if (seq >= this.from && seq < this.to) {
      this.back++
      this.sink.latencies.push(at - this.sentAt[seq % RING]!)
    }
  }

  #json(data: Buffer): void {
    const message = JSON.parse(data.toString('utf8')) as Record<string, unknown>
    const index = this.#waiters.findIndex((waiter) => waiter.test(message))
    if (index >= 0) this.#waiters.splice(index, 1)[0]!.resolve(message)
  }
}

function opened(ws: WebSocket): Promise<void> {
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve())
    ws.once('error', reject)
    ws.once('unexpected-response', (_request, response) => reject(new Error(`upgrade answered ${response.statusCode}`)))
  })
}

type Path = 'direct' | 'gateway'

type Stack = {
  fake: FakeProcess
  server: Product
  base: string
  port: number
  people: Array<{ userId: string; cookie: string }>
  agent: Agent
}

let ipCounter = 0
/** A client address of its own per socket (the gateway limits sockets and connects per address). */
const nextIp = () => {
  ipCounter++
  return `10.${(ipCounter >> 16) & 255}.${(ipCounter >> 8) & 255}.${ipCounter & 255}`
}

/** A voice call through the gateway, live (the server said `listening`). */
async function openGateway(stack: Stack, person: { cookie: string }, sink: Stream['sink']): Promise<Stream> {
  const ws = new WebSocket(`ws://127.0.0.1:${stack.port}/api/voice`, {
    headers: { cookie: person.cookie, origin: stack.base, 'x-forwarded-for': nextIp() },
    perMessageDeflate: false,
  })
  const stream = new Stream(ws, sink)
  const hello = stream.next((m) => m.type === 'hello')
  await opened(ws)
  await hello
  const live = stream.next((m) => (m.type === 'status' && m.status === 'listening') || m.type === 'error' || m.type === 'ended')
  ws.send(JSON.stringify({ type: 'start', v: VOICE_PROTOCOL_VERSION }))
  const answer = await live
  if (answer.type !== 'status') throw new Error(`the gateway refused the call: ${JSON.stringify(answer)}`)
  return stream
}

/** A call straight on the fake, as the gateway makes it: POST /call, then its socket with the key. */
async function openDirect(stack: Stack, sink: Stream['sink']): Promise<Stream> {
  const { statusCode, body } = await request(`${stack.fake.url}/call`, {
    method: 'POST',
    dispatcher: stack.agent,
    headers: { authorization: `Bearer ${stack.fake.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      assistantId: 'asst_bench_voice',
      transport: { provider: 'vapi.websocket', audioFormat: { format: 'pcm_s16le', container: 'raw', sampleRate: 16_000 } },
    }),
  })
  const call = (await body.json()) as { transport?: { websocketCallUrl?: string } }
  const url = call.transport?.websocketCallUrl
  if (statusCode !== 201 || !url) throw new Error(`the fake answered POST /call with ${statusCode}`)
  const ws = new WebSocket(url, { headers: { authorization: `Bearer ${stack.fake.apiKey}` }, perMessageDeflate: false })
  const stream = new Stream(ws, sink)
  await opened(ws)
  return stream
}

async function closeStream(path: Path, stream: Stream): Promise<void> {
  if (stream.ws.readyState === WebSocket.OPEN) {
    if (path === 'gateway') {
      const ended = stream.next((m) => m.type === 'ended', 10_000).catch(() => null)
      stream.ws.send(JSON.stringify({ type: 'end' }))
      await ended
    } else {
      stream.ws.send(JSON.stringify({ type: 'end-call' }))
    }
    stream.ws.close(1000)
  }
  await Promise.race([stream.closed, sleep(3000)])
  stream.ws.terminate()
}

/**
 * Streams 20 ms frames on every stream in real time: 20 groups, one a millisecond apart, so the
 * sends spread over each 20 ms. A late tick skips ahead (never a catch-up burst, as a browser's
 * capture does not send faster than real time).
 */
function drive(streams: readonly Stream[]): () => void {
  let stopped = false
  const start = performance.now() + 20
  const timers: NodeJS.Timeout[] = []
  for (let group = 0; group < VOICE_FRAME_MS; group++) {
    const members = streams.filter((_, i) => i % VOICE_FRAME_MS === group)
    if (members.length === 0) continue
    let k = 0
    const tick = () => {
      if (stopped) return
      const now = performance.now()
      for (const stream of members) stream.send(now)
      k++
      const behind = Math.ceil((performance.now() - start - group) / VOICE_FRAME_MS)
      if (behind > k) k = behind
      timers[group] = setTimeout(tick, Math.max(0, start + group + k * VOICE_FRAME_MS - performance.now()))
    }
    timers[group] = setTimeout(tick, Math.max(0, start + group - performance.now()))
  }
  return () => {
    stopped = true
    for (const timer of timers) if (timer) clearTimeout(timer)
  }
}

/** CPU microseconds per frame sent while measuring, of the server, the fake and this process (the simulated browsers). */
type FrameCpu = { server: number; fake: number; clients: number }

type Phase = { path: Path; sessions: number; latencies: number[]; sent: number; lost: number; rssBefore: number; rssHeld: number; cpu: FrameCpu }

/** Opens `sessions` streams on one path, streams (warm-up, then measured), stops, counts, closes. */
async function phase(stack: Stack, path: Path, sessions: number, measureMs: number): Promise<Phase> {
  const rssBefore = await rssOver(stack.server.child.pid, 1000)
  const sink = { measuring: false, latencies: [] as number[] }
  const streams: Stream[] = []
  for (let i = 0; i < sessions; i += 20) {
    streams.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(20, sessions - i) }, (_, j) => (path === 'gateway' ? openGateway(stack, stack.people[i + j]!, sink) : openDirect(stack, sink))),
      )),
    )
  }
  const stop = drive(streams)
  await sleep(2000)
  const cpu = () => ({ server: treeCpuSecondsOf(stack.server.child.pid), fake: cpuSecondsOf(stack.fake.child.pid), clients: cpuSecondsOf(process.pid) })
  const cpuBefore = cpu()
  sink.measuring = true
  await sleep(Math.max(0, measureMs - 2000))
  const rssHeld = await rssOver(stack.server.child.pid, Math.min(2000, measureMs))
  sink.measuring = false
  const cpuAfter = cpu()
  stop()
  // Every frame sent while measuring has its echo back, or two seconds pass.
  const deadline = Date.now() + 2000
  while (Date.now() < deadline && streams.some((stream) => stream.missing > 0)) await sleep(50)
  const sent = streams.reduce((sum, stream) => sum + Math.max(0, stream.to - stream.from), 0)
  const lost = streams.reduce((sum, stream) => sum + stream.missing, 0)
  for (let i = 0; i < streams.length; i += 50) await Promise.all(streams.slice(i, i + 50).map((stream) => closeStream(path, stream)))
  sink.latencies.sort((a, b) => a - b)
  const perFrame = (key: keyof FrameCpu) => ((cpuAfter[key] - cpuBefore[key]) * 1e6) / Math.max(1, sent)
  return { path, sessions, latencies: sink.latencies, sent, lost, rssBefore, rssHeld, cpu: { server: perFrame('server'), fake: perFrame('fake'), clients: perFrame('clients') } }
}

const ms = (value: number) => `${value.toFixed(2)} ms`
const describe = (p: Phase) =>
  `${p.path} p50 ${ms(percentile(p.latencies, 50))} p99 ${ms(percentile(p.latencies, 99))} (${p.latencies.length} frames, ${p.lost} lost; ` +
  `CPU µs/frame: server ${p.cpu.server.toFixed(0)}, fake ${p.cpu.fake.toFixed(0)}, browsers ${p.cpu.clients.toFixed(0)})`

function pooled(phases: readonly Phase[], path: Path): number[] {
  return phases
    .filter((p) => p.path === path)
    .flatMap((p) => p.latencies)
    .sort((a, b) => a - b)
}

let stackCount = 0

async function startStack(people: number, servers: number, processes = 1): Promise<{ stacks: Stack[]; database: Database; stop(): Promise<void> }> {
  const bench = await postgresDatabase('voice')
  if (!bench) throw new Error('the voice benchmarks need PostgreSQL')
  const redis = await startRedis()
  const fake = await startFakeProcess()
  const agent = new Agent({ connections: 64, keepAliveTimeout: 60_000 })
  const seeded = await seedPeople(bench.database, people)
  const products: Product[] = []
  const stacks: Stack[] = []
  stackCount++
  try {
    for (let n = 1; n <= servers; n++) {
      const port = await freePort()
      const base = `http://127.0.0.1:${port}`
      const server = spawnProduct(`voice-${stackCount}-server-${n}`, 'server/index.ts', {
        PORT: String(port),
        HOST: '127.0.0.1',
        APP_URL: base,
        DATABASE_URL: bench.url!,
        REDIS_URL: redis.url,
        VAPI_API_KEY: fake.apiKey,
        VAPI_API_URL: fake.url,
        VAPI_ASSISTANT_ID: 'asst_bench_voice',
        VAPI_PHONE_NUMBER_ID: 'pn_bench_voice',
        VAPI_WEBHOOK_SECRET: WEBHOOK_SECRET,
        WEB_CONCURRENCY: String(processes),
      }, /Momentum Coach is ready/)
      products.push(server)
      stacks.push({ fake, server, base, port, people: seeded, agent })
    }
    await Promise.all(products.map((product) => product.ready))
  } catch (error) {
    await Promise.all(products.map((product) => product.kill()))
    await fake.stop()
    await redis.stop()
    await bench.drop()
    throw error
  }
  return {
    stacks,
    database: bench.database,
    async stop() {
      await Promise.all(products.map((product) => product.kill()))
      await fake.stop()
      await agent.close()
      await redis.stop()
      await bench.drop()
    },
  }
}

const spread = (values: readonly number[], unit = ' ms') =>
  `${quantile(values, 0.5).toFixed(2)}${unit} (IQR ${quantile(values, 0.25).toFixed(2)} to ${quantile(values, 0.75).toFixed(2)})`

type Pair = { direct: Phase; gateway: Phase; addedP50: number; addedP99: number; kib: number }

/**
 * `pairs` pairs of rounds at `sessions`, the order alternating (direct, gateway / gateway, direct)
 * so a drift in the machine's load weighs on both alike. Each pair gives what the gateway added at
 * p50 and p99 and the server's RSS growth per session; a figure is the median over the pairs (a
 * stall of the noisy shared machine in one round moves one pair, not the figure; ADR 037's method).
 */
async function pairsAt(stack: Stack, sessions: number, pairs: number, measureMs: number): Promise<Pair[]> {
  const result: Pair[] = []
  for (let pair = 0; pair < pairs; pair++) {
    const order: Path[] = pair % 2 === 0 ? ['direct', 'gateway'] : ['gateway', 'direct']
    const done: Partial<Record<Path, Phase>> = {}
    for (const path of order) done[path] = await phase(stack, path, sessions, measureMs)
    const { direct, gateway } = done as Record<Path, Phase>
    const addedP50 = percentile(gateway.latencies, 50) - percentile(direct.latencies, 50)
    const addedP99 = percentile(gateway.latencies, 99) - percentile(direct.latencies, 99)
    const kib = (gateway.rssHeld - gateway.rssBefore) / sessions
    result.push({ direct, gateway, addedP50, addedP99, kib })
    console.log(
      `  ${sessions} sessions, pair ${pair + 1}: ${describe(direct)}; ${describe(gateway)}; added p50 ${ms(addedP50)} p99 ${ms(addedP99)}; ` +
        `server RSS ${(gateway.rssBefore / 1024).toFixed(1)} -> ${(gateway.rssHeld / 1024).toFixed(1)} MiB (${kib.toFixed(1)} KiB per session)`,
    )
  }
  return result
}

const lostIn = (pairs: readonly Pair[]) => pairs.reduce((sum, pair) => sum + pair.direct.lost + pair.gateway.lost, 0)

/** Added latency (100 sessions) and capacity (rising levels), gateway vs straight to the fake. */
export async function voiceGateway(): Promise<boolean[]> {
  const sessions = envNumber('BENCH_VOICE_SESSIONS', 100)
  const pairs = envNumber('BENCH_VOICE_PAIRS', 5)
  const levelPairs = envNumber('BENCH_VOICE_LEVEL_PAIRS', 3)
  const measureMs = envNumber('BENCH_VOICE_MEASURE_S', 8) * 1000
  const levels = (process.env.BENCH_VOICE_LEVELS ?? '300,400').split(',').map(Number).filter((n) => n > 0)
  const processes = envNumber('BENCH_VOICE_PROCESSES', 2)
  const { stacks, stop } = await startStack(Math.max(sessions, ...levels), 1, processes)
  console.log(`  (one server, WEB_CONCURRENCY=${processes}: ${processes === 1 ? 'one process' : `a supervisor and ${processes} server processes sharing its port`})`)
  const stack = stacks[0]!
  try {
    // Warm-up: the JIT and the pools of every part, both paths.
    await phase(stack, 'direct', Math.min(sessions, 20), 1000)
    await phase(stack, 'gateway', Math.min(sessions, 20), 1000)

    const rounds = await pairsAt(stack, sessions, pairs, measureMs)
    const addedP50 = quantile(rounds.map((r) => r.addedP50), 0.5)
    const addedP99 = quantile(rounds.map((r) => r.addedP99), 0.5)
    const lost = lostIn(rounds)
    const latencyPass = addedP50 <= GOALS.p50 && addedP99 <= GOALS.p99 && lost === 0
    const gateway = pooled(rounds.map((r) => r.gateway), 'gateway')
    const direct = pooled(rounds.map((r) => r.direct), 'direct')
    console.log(
      `voice gateway added latency (${sessions} sessions streaming 20 ms frames in real time, ${pairs} pairs of ${measureMs / 1000}s rounds, ${gateway.length} frames through the gateway): ` +
        `added p50 ${spread(rounds.map((r) => r.addedP50))}, p99 ${spread(rounds.map((r) => r.addedP99))} [all rounds: through the gateway p50 ${ms(percentile(gateway, 50))} ` +
        `p99 ${ms(percentile(gateway, 99))}, straight to the fake p50 ${ms(percentile(direct, 50))} p99 ${ms(percentile(direct, 99))}], ${lost} frames lost ` +
        `(goal added p50 <= ${GOALS.p50} ms, p99 <= ${GOALS.p99} ms, none lost) ${ok(latencyPass)}`,
    )

    let held = 0
    let kibPerSession = Number.NaN
    let kibSpread = ''
    const outcomes: string[] = []
    for (const level of levels) {
      const atLevel = await pairsAt(stack, level, levelPairs, measureMs)
      const added = quantile(atLevel.map((r) => r.addedP99), 0.5)
      const levelLost = lostIn(atLevel)
      const holds = levelLost === 0 && added <= GOALS.capacityP99
      if (Number.isNaN(kibPerSession) && level >= GOALS.capacity) {
        kibPerSession = quantile(atLevel.map((r) => r.kib), 0.5)
        kibSpread = spread(atLevel.map((r) => r.kib), ' KiB')
      }
      outcomes.push(`${level}: added p99 ${spread(atLevel.map((r) => r.addedP99))}, ${levelLost} lost, ${holds ? 'held' : 'not held'}`)
      if (!holds) break
      held = level
    }
    const capacityPass = held >= GOALS.capacity
    const memoryPass = kibPerSession <= GOALS.kibPerSession
    console.log(
      `voice gateway capacity (held: 0 lost frames and added p99 <= ${GOALS.capacityP99} ms, median of ${levelPairs} pairs; ${outcomes.join('; ')}): ` +
        `${held} sessions held (goal >= ${GOALS.capacity}) ${ok(capacityPass)}; memory per session at ${GOALS.capacity} (server RSS growth / sessions) ${kibSpread || 'not measured'} ` +
        `(goal <= ${GOALS.kibPerSession} KiB) ${ok(memoryPass)}`,
    )
    return [latencyPass, capacityPass, memoryPass]
  } finally {
    await stop()
    console.log(`  (server logs in ${LOG_DIR})`)
  }
}

/**
 * Live transcript: `calls` phone calls in progress, one dashboard socket each on server B watching
 * (`watch-calls`), final transcript lines posted to server A's webhook (each call a line a second,
 * spread), timed from the post's send to the line's arrival on B's socket.
 */
export async function liveTranscript(): Promise<boolean> {
  const calls = envNumber('BENCH_LIVE_CALLS', 50)
  const measureMs = envNumber('BENCH_LIVE_MEASURE_S', 20) * 1000
  const { stacks, database, stop } = await startStack(calls, 2)
  const [a, b] = stacks as [Stack, Stack]
  try {
    const now = new Date()
    const rows = await database.db
      .insert(coachingCalls)
      .values(
        a.people.slice(0, calls).map((person, i) => ({
          userId: person.userId,
          slot: 'daily' as const,
          kind: 'check_in' as const,
          localDate: now.toISOString().slice(0, 10),
          attempt: 1,
          callDate: now,
          timeZone: 'America/New_York',
          maxDurationSeconds: 1800,
          completionStatus: 'in_progress' as const,
          vapiCallId: `bench-live-${process.pid}-${i}`,
          dialledAt: now,
        })),
      )
      .returning({ id: coachingCalls.id, vapiCallId: coachingCalls.vapiCallId })

    const sentAt = new Map<string, number>()
    const latencies: number[] = []
    let measuring = false
    const sockets: Stream[] = []
    for (let i = 0; i < calls; i++) {
      const ws = new WebSocket(`ws://127.0.0.1:${b.port}/api/voice`, {
        headers: { cookie: b.people[i]!.cookie, origin: b.base, 'x-forwarded-for': nextIp() },
        perMessageDeflate: false,
      })
      const stream = new Stream(ws, { measuring: false, latencies: [] })
      ws.on('message', (data, isBinary) => {
        if (isBinary) return
        const message = JSON.parse(String(data)) as { type: string; text?: string }
        if (message.type !== 'phone-transcript' || !message.text) return
        const at = performance.now()
        const sent = sentAt.get(message.text)
        if (sent === undefined) return
        sentAt.delete(message.text)
        if (measuring) latencies.push(at - sent)
      })
      const hello = stream.next((m) => m.type === 'hello')
      await opened(ws)
      await hello
      const watching = stream.next((m) => m.type === 'phone-call' && m.callId === rows[i]!.id)
      ws.send(JSON.stringify({ type: 'watch-calls' }))
      await watching
      sockets.push(stream)
    }

    let failures = 0
    let posted = 0
    let measuredPosts = 0
    const post = async (i: number, line: number) => {
      const text = `Line ${line} of call ${i}: I will take a walk after lunch.`
      const body = JSON.stringify({
        message: {
          type: 'transcript',
          transcriptType: 'final',
          role: line % 2 === 0 ? 'assistant' : 'user',
          transcript: text,
          timestamp: Date.now() * 1000 + line,
          call: { id: rows[i]!.vapiCallId, metadata: { callId: rows[i]!.id } },
        },
      })
      sentAt.set(text, performance.now())
      posted++
      if (measuring) measuredPosts++
      const response = await request(`${a.base}/api/webhooks/vapi`, {
        method: 'POST',
        dispatcher: a.agent,
        headers: { 'content-type': 'application/json', 'x-vapi-secret': WEBHOOK_SECRET },
        body,
      })
      await response.body.dump()
      if (response.statusCode !== 200) failures++
    }
    // Each call a line a second, the calls spread over the second.
    let stopped = false
    const start = performance.now() + 50
    const loops = rows.map(async (_, i) => {
      for (let line = 0; !stopped; line++) {
        await sleep(start + (i * 1000) / calls + line * 1000 - performance.now())
        if (stopped) break
        await post(i, line)
      }
    })
    await sleep(3000)
    measuring = true
    await sleep(measureMs)
    measuring = false
    stopped = true
    await Promise.all(loops)
    await sleep(1000)
    const lost = sentAt.size
    for (const socket of sockets) socket.ws.close(1000)
    await Promise.all(sockets.map((socket) => Promise.race([socket.closed, sleep(3000)])))
    latencies.sort((x, y) => x - y)
    const p99 = percentile(latencies, 99)
    const pass = p99 <= GOALS.liveP99 && lost === 0 && failures === 0
    console.log(
      `live transcript (webhook on one server, dashboard on the other, one Redis; ${calls} calls in progress, a line a second each, ${latencies.length} lines measured of ${measuredPosts} posted ` +
        `in ${measureMs / 1000}s, ${posted} in all): delivery p50 ${ms(percentile(latencies, 50))} p99 ${ms(p99)} max ${ms(latencies.at(-1) ?? Number.NaN)}, ` +
        `${lost} lines lost, ${failures} webhook posts refused (goal p99 <= ${GOALS.liveP99} ms) ${ok(pass)}`,
    )
    return pass
  } finally {
    await stop()
  }
}
