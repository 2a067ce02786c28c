// `node scripts/measure-start.mjs [rounds]`: the server's start as `npm start` ran it through tsx
// (`node --import tsx server/index.ts`) against the compiled one (`node dist/server/index.js`), in
// one run: start to health (spawn until GET /api/health first answers 200) and the idle memory
// (resident set of the process tree a few seconds after that). Both on the embedded defaults (PGlite
// in a DATA_DIR of their own, no Redis), each started once unmeasured first (the database created,
// tsx's cache and the file cache warm); then the rounds alternate which goes first. Prints each
// round and the medians (docs/decisions/066-compiled-server.md). Linux (reads /proc).
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import net from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const ROUNDS = Number(process.argv[2] ?? process.env.MEASURE_ROUNDS ?? 7)
const IDLE_MS = 3000

const WAYS = {
  tsx: ['--import', 'tsx', 'server/index.ts'],
  compiled: ['dist/server/index.js'],
}

/** The process and its descendants (children of any of its threads). */
export function processTree(pid) {
  let children = []
  try {
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      children.push(...readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean).map(Number))
    }
  } catch {
    children = [] // gone meanwhile
  }
  return [pid, ...children.flatMap((child) => processTree(child))]
}

/** CPU time (user and system) the process has used so far, in milliseconds (clock ticks of 10 ms). */
function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
    return (Number(fields[11]) + Number(fields[12])) * 10
  } catch {
    return 0
  }
}

function rssKiB(pid) {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB/m)
    return line ? Number(line[1]) : 0
  } catch {
    return 0
  }
}

const commandLine = (pid) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim()
  } catch {
    return ''
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })
}

async function healthy(port) {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/api/health`)
    await response.arrayBuffer()
    return response.status === 200
  } catch {
    return false
  }
}

/** One start: milliseconds to the first 200, then the tree's memory after IDLE_MS; stops it. */
async function start(way, dataDir) {
  const port = await freePort()
  const started = performance.now()
  const child = spawn(process.execPath, WAYS[way], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn', DATABASE_URL: '', REDIS_URL: '' },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let errors = ''
  child.stderr.on('data', (chunk) => (errors += chunk))
  const exited = new Promise((resolve) => child.once('exit', resolve))
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${way}: the server exited (${child.exitCode}) before answering:\n${errors}`)
      if (performance.now() - started > 60_000) throw new Error(`${way}: no answer from /api/health within 60 s:\n${errors}`)
      if (await healthy(port)) break
      await sleep(5)
    }
    const startMs = performance.now() - started
    const startCpuMs = processTree(child.pid).reduce((sum, pid) => sum + cpuMs(pid), 0)
    await sleep(IDLE_MS)
    const tree = processTree(child.pid)
    const rssMiB = tree.reduce((sum, pid) => sum + rssKiB(pid), 0) / 1024
    const withTsx = tree.filter((pid) => /\btsx\b/.test(commandLine(pid))).length
    return { startMs, startCpuMs, rssMiB, processes: tree.length, withTsx }
  } finally {
    child.kill('SIGTERM')
    await exited
  }
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

const build = spawnSync(process.execPath, [join(root, 'scripts', 'ensure-build.mjs'), '--server'], { cwd: root, stdio: 'inherit' })
if (build.status !== 0) process.exit(build.status ?? 1)

const dataDirs = { tsx: mkdtempSync(join(tmpdir(), 'mc-measure-tsx-')), compiled: mkdtempSync(join(tmpdir(), 'mc-measure-compiled-')) }
const results = { tsx: [], compiled: [] }
try {
  console.log(`Warming up (creates each embedded database)...`)
  for (const way of Object.keys(WAYS)) await start(way, dataDirs[way])
  for (let round = 1; round <= ROUNDS; round++) {
    const order = round % 2 ? ['tsx', 'compiled'] : ['compiled', 'tsx']
    for (const way of order) {
      const result = await start(way, dataDirs[way])
      results[way].push(result)
      console.log(`round ${round} ${way.padEnd(8)} start to health ${result.startMs.toFixed(0).padStart(5)} ms (CPU ${result.startCpuMs.toFixed(0).padStart(5)} ms), idle RSS ${result.rssMiB.toFixed(1)} MiB (${result.processes} process${result.processes === 1 ? '' : 'es'}, ${result.withTsx} with tsx)`)
    }
  }
} finally {
  for (const dir of Object.values(dataDirs)) rmSync(dir, { recursive: true, force: true })
}

const summary = Object.fromEntries(
  Object.entries(results).map(([way, list]) => [way, { startMs: median(list.map((r) => r.startMs)), startCpuMs: median(list.map((r) => r.startCpuMs)), rssMiB: median(list.map((r) => r.rssMiB)) }]),
)
console.log(`\nmedians of ${ROUNDS} rounds (node ${process.version}, ${Object.keys(WAYS).join(' vs ')}):`)
for (const [way, { startMs, startCpuMs, rssMiB }] of Object.entries(summary)) {
  console.log(`  ${way.padEnd(8)} start to health ${startMs.toFixed(0).padStart(5)} ms (CPU ${startCpuMs.toFixed(0).padStart(5)} ms)   idle RSS ${rssMiB.toFixed(1)} MiB`)
}
const ratio = summary.compiled.startMs / summary.tsx.startMs
console.log(`  compiled/tsx: start ${(ratio * 100).toFixed(0)}% (goal at most 50%: ${ratio <= 0.5 ? 'OK' : 'NOT MET'}), CPU to health ${((summary.compiled.startCpuMs / summary.tsx.startCpuMs) * 100).toFixed(0)}%, memory ${((summary.compiled.rssMiB / summary.tsx.rssMiB) * 100).toFixed(0)}%`)
if (results.compiled.some((r) => r.withTsx > 0)) {
  console.error('A compiled start had tsx in its process tree.')
  process.exitCode = 1
}
