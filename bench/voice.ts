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
 *   (the median over the rounds); each RSS is read right after a full garbage collection in every
 *   server process (bench/inspector.ts), so it counts what the sessions hold, not garbage.
 * - **The floor**: every round also streams through a bare relay (bench/voice-relay.ts: the same
 *   `ws`, the same process count, nothing else), so each figure comes with what the barest Node
 *   relay costs on the same machine in the same run: what the gateway adds beyond it is its own,
 *   and a level the bare relay cannot hold is beyond the machine, not the gateway.
 * - **Live transcript**: two servers behind one Redis; phone-call transcript webhooks arrive on one,
 *   the person's dashboard socket is on the other; delivery is from the webhook's send to the
 *   line's arrival on the socket.
 *
 * The fake runs in a process of its own (bench/voice-fake.ts), the server(s) in theirs, this
 * process is the load generator; PostgreSQL and a Redis of the bench's own serve the servers.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { createInterface } from 'node:readline'
import { Agent, request } from 'undici'
import WebSocket from 'ws'
import { VOICE_FRAME_BYTES, VOICE_FRAME_MS, VOICE_PROTOCOL_VERSION } from '#common/voice'
import { VAPI_SECRET_HEADER, VAPI_WEBHOOK_PATH } from '#common/webhooks'
import { createSession } from '#server/auth/session'
import type { Database } from '#server/db/client'
import { coachingCalls } from '#server/db/schema'
import { systemClock } from '#server/lib/clock'
import { activateTestingPlan } from '#server/services/billing'
import { insertUser } from '../test/helpers/factories'
import { collectGarbage, inspectFlag, inspectorPorts } from './inspector'
import { cpuSecondsOf, envNumber, machineTicks, processTree, treeCpuSecondsOf, freePort, LOG_DIR, ok, percentile, postgresDatabase, quantile, ROOT, sleep, spawnProduct, startRedis, type Product } from './calls-setup'

/** Frames a session keeps the send time of (a frame not back after this many is counted lost). */
const RING = 4096
const WEBHOOK_SECRET = 'bench-voice-webhook-secret-0123456789abcdef'
const GOALS = { p50: 1, p99: 5, capacity: 300, capacityP99: 20, kibPerSession: 96, liveP99: 50 }

type Helper<T> = T & { child: ChildProcess; stop(): Promise<void> }
type FakeProcess = Helper<{ url: string; apiKey: string }>
type RelayProcess = Helper<{ url: string }>

/** A bench helper process (`entry`) that prints one JSON line once it serves; SIGTERM stops it. */
async function startHelper<H extends Helper<object>>(entry: string, env: Record<string, string> = {}, nodeArgs: readonly string[] = []): Promise<H> {
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', entry], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  // Its errors pass through; the inspector's greetings (bench/inspector.ts) do not.
  createInterface({ input: child.stderr! }).on('line', (line) => {
    if (!/^(Debugger (listening on|ending on|attached)|For help, see)/.test(line)) console.error(line)
  })
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve)
    child.once('exit', (code) => reject(new Error(`${entry} exited with ${code}`)))
  })
  return {
    ...(JSON.parse(line) as object),
    child,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGTERM')
      await exited
    },
  } as H
}

/** Resident memory of a process and its descendants in KiB (Linux /proc). */
function rssKiB(pid: number | undefined): number {
  return processTree(pid).reduce((sum, each) => {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${each}/status`, 'utf8'))
    return sum + (match ? Number(match[1]) : Number.NaN)
  }, 0)
}

/**
 * The resident memory of a process and its cluster (KiB) right after a full garbage collection in
 * each of them (on their inspectors' `ports`): what they hold, not the garbage a round left behind.
 * The pages a collection frees go back to the system over the next moments, on a helper thread:
 * the least of samples a tenth of a second apart over the second after it.
 */
async function settledRssKiB(pid: number | undefined, ports: readonly number[]): Promise<number> {
  if (pid === undefined) return 0
  await collectGarbage(ports)
  let least = Number.POSITIVE_INFINITY
  for (let i = 0; i < 10; i++) {
    await sleep(100)
    least = Math.min(least, rssKiB(pid))
  }
  return least
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

  /**
   * One frame buffer for every send: a client masks each frame into a copy as it sends it, so the
   * buffer is free again at once. A new one per frame (5,000 a second at 100 sessions) made this
   * process run a full collection every second for the memory outside its heap, stalling every
   * path's echoes for 10 ms or more.
   */
  readonly #frame = Buffer.alloc(VOICE_FRAME_BYTES)

  send(now: number): void {
    if (this.ws.readyState !== WebSocket.OPEN) return
    const frame = this.#frame
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

/** Straight to the fake; through the bare relay (the floor); through the gateway. */
type Path = 'direct' | 'relay' | 'gateway'

type Stack = {
  fake: FakeProcess
  /** The bare relay, when the bench measures the floor (the gateway benchmarks). */
  relay: RelayProcess | undefined
  server: Product
  /** The inspectors' ports of the server's processes and of the bare relay's. */
  inspectors: { server: number[]; relay: number[] }
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

/** A call through the bare relay, live (its socket to the fake open). */
async function openRelay(stack: Stack, sink: Stream['sink']): Promise<Stream> {
  const ws = new WebSocket(stack.relay!.url, { perMessageDeflate: false })
  const stream = new Stream(ws, sink)
  const live = stream.next((m) => m.type === 'status' && m.status === 'listening')
  await opened(ws)
  await live
  return stream
}

const OPEN: Record<Path, (stack: Stack, person: { cookie: string }, sink: Stream['sink']) => Promise<Stream>> = {
  direct: (stack, _person, sink) => openDirect(stack, sink),
  relay: (stack, _person, sink) => openRelay(stack, sink),
  gateway: openGateway,
}

async function closeStream(path: Path, stream: Stream): Promise<void> {
  if (stream.ws.readyState === WebSocket.OPEN) {
    if (path === 'gateway') {
      const ended = stream.next((m) => m.type === 'ended', 10_000).catch(() => null)
      stream.ws.send(JSON.stringify({ type: 'end' }))
      await ended
    } else if (path === 'relay') {
      stream.ws.send(JSON.stringify({ type: 'end' }))
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

/** CPU microseconds per frame sent while measuring, of the path's middle (the server, or the bare relay; none straight to the fake), the fake and this process (the simulated browsers). */
type FrameCpu = { middle: number; fake: number; clients: number }

/** `steal`: the share of the machine's CPU time its host took for others while measuring (0 on bare metal). */
type Phase = { path: Path; sessions: number; latencies: number[]; sent: number; lost: number; rssBefore: number; rssHeld: number; cpu: FrameCpu; steal: number }

/** Opens `sessions` streams on one path, streams (warm-up, then measured), stops, counts, closes. */
async function phase(stack: Stack, path: Path, sessions: number, measureMs: number): Promise<Phase> {
  const middle = path === 'gateway' ? stack.server.child.pid : path === 'relay' ? stack.relay!.child.pid : undefined
  const inspectors = path === 'gateway' ? stack.inspectors.server : stack.inspectors.relay
  const rssBefore = await settledRssKiB(middle, inspectors)
  const sink = { measuring: false, latencies: [] as number[] }
  const streams: Stream[] = []
  for (let i = 0; i < sessions; i += 20) {
    streams.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(20, sessions - i) }, (_, j) => OPEN[path](stack, stack.people[i + j]!, sink)),
      )),
    )
  }
  const stop = drive(streams)
  await sleep(2000)
  const cpu = () => ({ middle: middle === undefined ? 0 : treeCpuSecondsOf(middle), fake: cpuSecondsOf(stack.fake.child.pid), clients: cpuSecondsOf(process.pid) })
  const cpuBefore = cpu()
  const ticksBefore = machineTicks()
  sink.measuring = true
  await sleep(measureMs)
  sink.measuring = false
  const cpuAfter = cpu()
  const ticksAfter = machineTicks()
  // Read while every session still streams, after the measuring (a collection pauses the process).
  const rssHeld = await settledRssKiB(middle, inspectors)
  stop()
  // Every frame sent while measuring has its echo back, or two seconds pass.
  const deadline = Date.now() + 2000
  while (Date.now() < deadline && streams.some((stream) => stream.missing > 0)) await sleep(50)
  const sent = streams.reduce((sum, stream) => sum + Math.max(0, stream.to - stream.from), 0)
  const lost = streams.reduce((sum, stream) => sum + stream.missing, 0)
  for (let i = 0; i < streams.length; i += 50) await Promise.all(streams.slice(i, i + 50).map((stream) => closeStream(path, stream)))
  sink.latencies.sort((a, b) => a - b)
  const perFrame = (key: keyof FrameCpu) => ((cpuAfter[key] - cpuBefore[key]) * 1e6) / Math.max(1, sent)
  const steal = (ticksAfter.steal - ticksBefore.steal) / Math.max(1, ticksAfter.total - ticksBefore.total)
  return { path, sessions, latencies: sink.latencies, sent, lost, rssBefore, rssHeld, cpu: { middle: perFrame('middle'), fake: perFrame('fake'), clients: perFrame('clients') }, steal }
}

const ms = (value: number) => `${value.toFixed(2)} ms`
const describe = (p: Phase) =>
  `${p.path} p50 ${ms(percentile(p.latencies, 50))} p99 ${ms(percentile(p.latencies, 99))} (${p.latencies.length} frames, ${p.lost} lost; ` +
  `CPU µs/frame: ${p.path === 'direct' ? '' : `${p.path === 'gateway' ? 'server' : 'relay'} ${p.cpu.middle.toFixed(0)}, `}fake ${p.cpu.fake.toFixed(0)}, browsers ${p.cpu.clients.toFixed(0)}; host steal ${(p.steal * 100).toFixed(1)}%)`

function pooled(phases: readonly Phase[], path: Path): number[] {
  return phases
    .filter((p) => p.path === path)
    .flatMap((p) => p.latencies)
    .sort((a, b) => a - b)
}

let stackCount = 0

async function startStack(people: number, servers: number, processes = 1, withRelay = false): Promise<{ stacks: Stack[]; database: Database; stop(): Promise<void> }> {
  const bench = await postgresDatabase('voice')
  if (!bench) throw new Error('the voice benchmarks need PostgreSQL')
  const redis = await startRedis()
  const fake = await startHelper<FakeProcess>('bench/voice-fake.ts')
  // The relay is a supervisor and its processes; a server is one too when it has more than one.
  const relayInspectors = withRelay ? await inspectorPorts(processes + 1) : []
  const relay = withRelay
    ? await startHelper<RelayProcess>(
        'bench/voice-relay.ts',
        { BENCH_RELAY_PORT: String(await freePort()), BENCH_RELAY_PROCESSES: String(processes), VAPI_API_URL: fake.url, VAPI_API_KEY: fake.apiKey },
        [inspectFlag(relayInspectors)],
      )
    : undefined
  const agent = new Agent({ connections: 64, keepAliveTimeout: 60_000 })
  const seeded = await seedPeople(bench.database, people)
  const products: Product[] = []
  const stacks: Stack[] = []
  stackCount++
  try {
    for (let n = 1; n <= servers; n++) {
      const port = await freePort()
      const base = `http://127.0.0.1:${port}`
      const inspectors = await inspectorPorts(processes > 1 ? processes + 1 : 1)
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
      }, /Momentum Coach is ready/, [inspectFlag(inspectors)])
      products.push(server)
      stacks.push({ fake, relay, server, inspectors: { server: inspectors, relay: relayInspectors }, base, port, people: seeded, agent })
    }
    await Promise.all(products.map((product) => product.ready))
  } catch (error) {
    await Promise.all(products.map((product) => product.kill()))
    await relay?.stop()
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
      await relay?.stop()
      await fake.stop()
      await agent.close()
      await redis.stop()
      await bench.drop()
    },
  }
}

const spread = (values: readonly number[], unit = ' ms') =>
  `${quantile(values, 0.5).toFixed(2)}${unit} (IQR ${quantile(values, 0.25).toFixed(2)} to ${quantile(values, 0.75).toFixed(2)})`

/** One round of each path at the same number of sessions, and what they give. */
type Round = {
  phases: Partial<Record<Path, Phase>>
  direct: Phase
  gateway: Phase
  /** The gateway's p50 and p99 less the same straight to the fake (the goals). */
  addedP50: number
  addedP99: number
  /** The bare relay's, when measured: the floor of any Node relay on this machine. */
  floorP50: number
  floorP99: number
  /** The server's RSS growth per session. */
  kib: number
  /** The bare relay's, when measured. */
  floorKib: number
}

/** The paths a stack streams through: the bare relay when it has one. */
const pathsOf = (stack: Stack): Path[] => (stack.relay ? ['direct', 'relay', 'gateway'] : ['direct', 'gateway'])

/**
 * `count` rounds at `sessions`: each streams once per path, the order rotating from round to round
 * (direct, relay, gateway / relay, gateway, direct / ...) so a drift in the machine's load weighs on
 * every path alike. Each round gives what the gateway (and the bare relay) added at p50 and p99 and
 * the server's RSS growth per session; a figure is the median over the rounds (a stall of the noisy
 * shared machine in one round moves one round, not the figure; ADR 037's method).
 */
async function roundsAt(stack: Stack, sessions: number, count: number, measureMs: number): Promise<Round[]> {
  const paths = pathsOf(stack)
  const result: Round[] = []
  for (let n = 0; n < count; n++) {
    const order = paths.map((_, i) => paths[(i + n) % paths.length]!)
    const phases: Partial<Record<Path, Phase>> = {}
    for (const path of order) phases[path] = await phase(stack, path, sessions, measureMs)
    const direct = phases.direct!
    const gateway = phases.gateway!
    const added = (p: Phase | undefined, q: number) => (p ? percentile(p.latencies, q) - percentile(direct.latencies, q) : Number.NaN)
    const round: Round = {
      phases,
      direct,
      gateway,
      addedP50: added(gateway, 50),
      addedP99: added(gateway, 99),
      floorP50: added(phases.relay, 50),
      floorP99: added(phases.relay, 99),
      kib: (gateway.rssHeld - gateway.rssBefore) / sessions,
      floorKib: phases.relay ? (phases.relay.rssHeld - phases.relay.rssBefore) / sessions : Number.NaN,
    }
    result.push(round)
    console.log(
      `  ${sessions} sessions, round ${n + 1}: ${order.map((path) => describe(phases[path]!)).join('; ')}; added p50 ${ms(round.addedP50)} p99 ${ms(round.addedP99)}` +
        `${phases.relay ? ` (bare relay: p50 ${ms(round.floorP50)} p99 ${ms(round.floorP99)})` : ''}; ` +
        `server RSS ${(gateway.rssBefore / 1024).toFixed(1)} -> ${(gateway.rssHeld / 1024).toFixed(1)} MiB (${round.kib.toFixed(1)} KiB per session)` +
        `${phases.relay ? `, bare relay RSS ${(phases.relay.rssBefore / 1024).toFixed(1)} -> ${(phases.relay.rssHeld / 1024).toFixed(1)} MiB (${round.floorKib.toFixed(1)} KiB per session)` : ''}`,
    )
  }
  return result
}

const lostIn = (rounds: readonly Round[], path: Path) => rounds.reduce((sum, round) => sum + round.direct.lost + (round.phases[path]?.lost ?? 0), 0)

/** What the bare relay did over the same rounds (nothing when it was not measured). */
function floorOf(rounds: readonly Round[], goalP99: number): string {
  if (!rounds[0]?.phases.relay) return ''
  const p99 = quantile(rounds.map((r) => r.floorP99), 0.5)
  const lost = lostIn(rounds, 'relay')
  return `; the bare relay (the floor) added p50 ${spread(rounds.map((r) => r.floorP50))}, p99 ${spread(rounds.map((r) => r.floorP99))}, ${lost} lost${p99 <= goalP99 && lost === 0 ? '' : ', over the goal itself'}`
}

/**
 * The machine's budget at a level, from the CPU each part spent per frame (medians over the
 * rounds): how many cores the simulated browsers and the fake need alone (the direct path) and
 * with the gateway, against the cores there are. Above them, no gateway can hold the level here.
 */
function coresAt(rounds: readonly Round[], sessions: number): string {
  const framesPerSecond = (sessions * 1000) / VOICE_FRAME_MS
  const cores = (cpu: (round: Round) => number) => (quantile(rounds.map(cpu), 0.5) * framesPerSecond) / 1e6
  const harness = cores((r) => r.direct.cpu.fake + r.direct.cpu.clients)
  const withGateway = cores((r) => r.gateway.cpu.middle + r.gateway.cpu.fake + r.gateway.cpu.clients)
  const steal = quantile(rounds.flatMap((r) => Object.values(r.phases).map((phase) => phase.steal)), 0.5)
  return (
    `CPU needed: browsers and fake alone ${harness.toFixed(2)} cores, with the gateway ${withGateway.toFixed(2)}, of ${availableParallelism()}` +
    ` (the host took ${(steal * 100).toFixed(1)}% of their time)`
  )
}

/** Added latency (100 sessions) and capacity (rising levels), gateway vs straight to the fake, with the bare relay's floor. */
export async function voiceGateway(): Promise<boolean[]> {
  const sessions = envNumber('BENCH_VOICE_SESSIONS', 100)
  const pairs = envNumber('BENCH_VOICE_PAIRS', 5)
  const levelPairs = envNumber('BENCH_VOICE_LEVEL_PAIRS', 3)
  const measureMs = envNumber('BENCH_VOICE_MEASURE_S', 8) * 1000
  const levels = (process.env.BENCH_VOICE_LEVELS ?? '300,400').split(',').map(Number).filter((n) => n > 0)
  const processes = envNumber('BENCH_VOICE_PROCESSES', 2)
  const withRelay = process.env.BENCH_VOICE_RELAY !== '0'
  const { stacks, stop } = await startStack(Math.max(sessions, ...levels), 1, processes, withRelay)
  console.log(
    `  (one server, WEB_CONCURRENCY=${processes}: ${processes === 1 ? 'one process' : `a supervisor and ${processes} server processes sharing its port`}` +
      `${withRelay ? `; the bare relay in as many processes` : ''})`,
  )
  const stack = stacks[0]!
  try {
    // Warm-up: the JIT and the pools of every part, every path.
    for (const path of pathsOf(stack)) await phase(stack, path, Math.min(sessions, 20), 1000)

    const rounds = await roundsAt(stack, sessions, pairs, measureMs)
    const addedP50 = quantile(rounds.map((r) => r.addedP50), 0.5)
    const addedP99 = quantile(rounds.map((r) => r.addedP99), 0.5)
    const lost = lostIn(rounds, 'gateway')
    const latencyPass = addedP50 <= GOALS.p50 && addedP99 <= GOALS.p99 && lost === 0
    const gateway = pooled(rounds.map((r) => r.gateway), 'gateway')
    const direct = pooled(rounds.map((r) => r.direct), 'direct')
    console.log(
      `voice gateway added latency (${sessions} sessions streaming 20 ms frames in real time, ${pairs} rounds of ${measureMs / 1000}s per path, ${gateway.length} frames through the gateway): ` +
        `added p50 ${spread(rounds.map((r) => r.addedP50))}, p99 ${spread(rounds.map((r) => r.addedP99))} [all rounds: through the gateway p50 ${ms(percentile(gateway, 50))} ` +
        `p99 ${ms(percentile(gateway, 99))}, straight to the fake p50 ${ms(percentile(direct, 50))} p99 ${ms(percentile(direct, 99))}], ${lost} frames lost` +
        `${floorOf(rounds, GOALS.p99)}; ${coresAt(rounds, sessions)} (goal added p50 <= ${GOALS.p50} ms, p99 <= ${GOALS.p99} ms, none lost) ${ok(latencyPass)}`,
    )

    let held = 0
    let floorHeld = 0
    let kibPerSession = Number.NaN
    let kibSpread = ''
    let floorKibSpread = ''
    const outcomes: string[] = []
    for (const level of levels) {
      const atLevel = await roundsAt(stack, level, levelPairs, measureMs)
      const added = quantile(atLevel.map((r) => r.addedP99), 0.5)
      const levelLost = lostIn(atLevel, 'gateway')
      const holds = levelLost === 0 && added <= GOALS.capacityP99
      if (withRelay && lostIn(atLevel, 'relay') === 0 && quantile(atLevel.map((r) => r.floorP99), 0.5) <= GOALS.capacityP99 && floorHeld === held) floorHeld = level
      if (Number.isNaN(kibPerSession) && level >= GOALS.capacity) {
        kibPerSession = quantile(atLevel.map((r) => r.kib), 0.5)
        kibSpread = spread(atLevel.map((r) => r.kib), ' KiB')
        if (withRelay) floorKibSpread = ` [the bare relay: ${spread(atLevel.map((r) => r.floorKib), ' KiB')}]`
      }
      outcomes.push(`${level}: added p99 ${spread(atLevel.map((r) => r.addedP99))}, ${levelLost} lost, ${holds ? 'held' : 'not held'}${floorOf(atLevel, GOALS.capacityP99)}; ${coresAt(atLevel, level)}`)
      if (!holds) break
      held = level
    }
    const capacityPass = held >= GOALS.capacity
    const memoryPass = kibPerSession <= GOALS.kibPerSession
    console.log(
      `voice gateway capacity (held: 0 lost frames and added p99 <= ${GOALS.capacityP99} ms, median of ${levelPairs} rounds; ${outcomes.join('; ')}): ` +
        `${held} sessions held (goal >= ${GOALS.capacity}) ${ok(capacityPass)}${withRelay ? ` [the bare relay held ${floorHeld} of the levels measured]` : ''}; ` +
        `memory per session at ${GOALS.capacity} (server RSS growth / sessions) ${kibSpread || 'not measured'}${floorKibSpread} (goal <= ${GOALS.kibPerSession} KiB) ${ok(memoryPass)}`,
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
      const response = await request(`${a.base}${VAPI_WEBHOOK_PATH}`, {
        method: 'POST',
        dispatcher: a.agent,
        headers: { 'content-type': 'application/json', [VAPI_SECRET_HEADER]: WEBHOOK_SECRET },
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
