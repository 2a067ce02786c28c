// `npm test`: every test the project has. Unit and integration tests (vitest, real PostgreSQL and
// Redis, and promtool for the alerting rules, installed if missing), then the browser end-to-end
// tests in Debian's Chromium against the production build (the web app and the compiled server).
// With CI=true a skipped test fails the run: nothing may be skipped for a missing service.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const bin = (name) => join(root, 'node_modules', '.bin', name)
const ci = process.env.CI === 'true' || process.env.CI === '1'
const reports = join(root, '.tmp')
mkdirSync(reports, { recursive: true })
const vitestReport = join(reports, 'vitest-report.json')
const playwrightReport = join(reports, 'playwright-report.json')
rmSync(vitestReport, { force: true })
rmSync(playwrightReport, { force: true })

function run(label, command, args, env = {}) {
  console.log(`\n▶ ${label}`)
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } })
  if (result.status !== 0) {
    console.error(`\n✖ ${label} failed`)
    process.exit(result.status ?? 1)
  }
}

run('promtool for the alerting rules', process.execPath, [join(root, 'scripts', 'ensure-promtool.mjs')])
run('unit and integration tests (vitest)', bin('vitest'), ['run', '--reporter=default', '--reporter=json', `--outputFile.json=${vitestReport}`])
run('Chromium for the browser tests', process.execPath, [join(root, 'scripts', 'ensure-chromium.mjs')])
run('production build of the web app', process.execPath, [join(root, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--config', 'web/vite.config.ts', '--logLevel', 'warn'])
run('the compiled server and worker (dist/)', process.execPath, [join(root, 'scripts', 'build-server.mjs')])
run('bundle size of / and /auth', process.execPath, [join(root, 'scripts', 'bundle-size.mjs')])
run('browser end-to-end tests (Playwright, Chromium)', bin('playwright'), ['test'], { PLAYWRIGHT_JSON_OUTPUT_NAME: playwrightReport })

// Count what ran.
const vitest = JSON.parse(readFileSync(vitestReport, 'utf8'))
let passed = vitest.numPassedTests
let failed = vitest.numFailedTests
let skipped = vitest.numPendingTests + vitest.numTodoTests
if (existsSync(playwrightReport)) {
  const stats = JSON.parse(readFileSync(playwrightReport, 'utf8')).stats
  passed += stats.expected + stats.flaky
  failed += stats.unexpected
  skipped += stats.skipped
}
console.log(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped`)
if (ci && skipped > 0) {
  console.error('CI=true: skipped tests are not allowed (nothing may be skipped for a missing service).')
  process.exit(1)
}
if (passed === 0) {
  console.error('No test ran.')
  process.exit(1)
}
