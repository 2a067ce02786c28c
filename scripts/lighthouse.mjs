#!/usr/bin/env node
/**
 * `npm run lighthouse`: Lighthouse's mobile preset (its default: a mid-range phone on a slow 4G
 * network, simulated throttling) against the production build served locally, three runs per page,
 * and the median performance and accessibility scores of `/` and `/auth` (the goal: performance
 * ≥ 95, accessibility 100; docs/decisions/052). A measurement, not a test: the machine's other work
 * moves the figures, so it prints each run and exits 0 whatever the scores.
 *
 * Builds the web app and the server if needed (scripts/ensure-build.mjs), starts the compiled server
 * as `npm start` does, on a free port with the embedded defaults and a fresh data folder, runs Lighthouse 13's CLI in
 * Debian's Chromium (CHROME_PATH, headless), then stops the server.
 *
 *   npm run lighthouse                 # / and /auth, 3 runs each
 *   npm run lighthouse -- --runs 5 /   # other pages or run counts
 */
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const CHROMIUM = '/usr/bin/chromium'
const TARGET = { performance: 95, accessibility: 100 }

const args = process.argv.slice(2)
const runsAt = args.indexOf('--runs')
const RUNS = runsAt === -1 ? 3 : Number(args.splice(runsAt, 2)[1])
if (!Number.isInteger(RUNS) || RUNS < 1) throw new Error('--runs takes a whole number')
const PAGES = args.length > 0 ? args : ['/', '/auth']

function step(label, command, commandArgs) {
  const result = spawnSync(command, commandArgs, { cwd: root, stdio: 'inherit' })
  if (result.status !== 0) {
    console.error(`lighthouse: ${label} failed`)
    process.exit(result.status ?? 1)
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })
}

async function waitForHealth(base, server) {
  const deadline = Date.now() + 90_000
  while (Date.now() < deadline) {
    if (server.exitCode !== null) throw new Error(`the server exited with ${server.exitCode}`)
    try {
      if ((await fetch(`${base}/api/health`)).ok) return
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  throw new Error('the server did not answer /api/health within 90 s')
}

/** One Lighthouse run (mobile preset, simulated throttling): the two scores and the main metrics. */
function lighthouse(url, outputPath) {
  const result = spawnSync(
    process.execPath,
    [
      join(root, 'node_modules', 'lighthouse', 'cli', 'index.js'),
      url,
      '--only-categories=performance,accessibility',
      '--output=json',
      `--output-path=${outputPath}`,
      '--quiet',
      '--chrome-flags=--headless=new --no-sandbox --disable-gpu --no-first-run --disable-background-networking',
    ],
    { cwd: root, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, CHROME_PATH: CHROMIUM }, encoding: 'utf8' },
  )
  if (result.status !== 0) throw new Error(`Lighthouse failed on ${url}:\n${result.stderr}`)
  const report = JSON.parse(readFileSync(outputPath, 'utf8'))
  if (report.runtimeError) throw new Error(`Lighthouse could not load ${url}: ${report.runtimeError.message}`)
  const metric = (id) => report.audits[id]?.numericValue ?? Number.NaN
  return {
    performance: Math.round(report.categories.performance.score * 100),
    accessibility: Math.round(report.categories.accessibility.score * 100),
    fcp: metric('first-contentful-paint'),
    lcp: metric('largest-contentful-paint'),
    tbt: metric('total-blocking-time'),
    cls: metric('cumulative-layout-shift'),
    si: metric('speed-index'),
  }
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`
const describe = (run) =>
  `performance ${run.performance}, accessibility ${run.accessibility} (FCP ${seconds(run.fcp)}, LCP ${seconds(run.lcp)}, TBT ${Math.round(run.tbt)} ms, CLS ${run.cls.toFixed(3)}, SI ${seconds(run.si)})`

step('Chromium', process.execPath, [join(root, 'scripts', 'ensure-chromium.mjs')])
step('the build', process.execPath, [join(root, 'scripts', 'ensure-build.mjs')])

const port = await freePort()
const base = `http://127.0.0.1:${port}`
const dataDir = mkdtempSync(join(tmpdir(), 'mc-lighthouse-'))
const server = spawn(process.execPath, [join(root, 'dist', 'server', 'index.js')], {
  cwd: root,
  stdio: ['ignore', 'ignore', 'inherit'],
  // The embedded defaults, whatever this shell's environment says.
  env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', APP_URL: base, DATA_DIR: dataDir, LOG_LEVEL: 'warn', DATABASE_URL: '', REDIS_URL: '', NODE_ENV: '' },
})
const stopServer = async () => {
  if (server.exitCode === null) {
    server.kill('SIGTERM')
    await new Promise((resolve) => server.once('exit', resolve))
  }
  rmSync(dataDir, { recursive: true, force: true })
}

const results = []
try {
  await waitForHealth(base, server)
  console.log(`Lighthouse ${JSON.parse(readFileSync(join(root, 'node_modules', 'lighthouse', 'package.json'), 'utf8')).version}, mobile preset, ${RUNS} runs per page, against ${base}`)
  for (const path of PAGES) {
    const runs = []
    for (let i = 1; i <= RUNS; i++) {
      const run = lighthouse(`${base}${path}`, join(dataDir, `report-${runs.length}.json`))
      runs.push(run)
      console.log(`  ${path} run ${i}: ${describe(run)}`)
    }
    const summary = Object.fromEntries(Object.keys(runs[0]).map((key) => [key, median(runs.map((run) => run[key]))]))
    results.push({ path, summary })
  }
} finally {
  await stopServer()
}

console.log(`\nMedian of ${RUNS} runs (target: performance ≥ ${TARGET.performance}, accessibility ${TARGET.accessibility}):`)
for (const { path, summary } of results) {
  const met = summary.performance >= TARGET.performance && summary.accessibility >= TARGET.accessibility
  console.log(`  ${path.padEnd(6)} ${describe(summary)}  ${met ? 'target met' : 'BELOW TARGET'}`)
}
