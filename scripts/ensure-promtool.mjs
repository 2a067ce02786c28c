// The alerting rules and the Prometheus config are checked with promtool (ops/, test/integration/
// ops-rules.test.ts). Finds promtool on PATH; when it is missing and we may, installs Debian's
// "prometheus" package (which ships it) with apt-get, without letting the package start its own
// Prometheus service; otherwise names what is missing. Prints promtool's path.
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'

const POLICY = '/usr/sbin/policy-rc.d'

/** promtool's path on PATH, or null. */
function findPromtool() {
  const found = spawnSync('sh', ['-c', 'command -v promtool'], { encoding: 'utf8' })
  const path = found.status === 0 ? found.stdout.trim() : ''
  return path === '' ? null : path
}

/**
 * Runs fn with a policy-rc.d that refuses every service start (exit 101, "action forbidden"), the
 * Debian way of installing a daemon's package without starting it: the package's postinst starts
 * /etc/init.d/prometheus through invoke-rc.d, and deb-systemd-invoke where systemd runs, and both
 * ask policy-rc.d first. A policy-rc.d already there is put back afterwards.
 */
function withServicesHeld(fn) {
  const saved = `${POLICY}.ensure-promtool`
  const had = existsSync(POLICY)
  if (had) renameSync(POLICY, saved)
  try {
    writeFileSync(POLICY, '#!/bin/sh\n# Written by scripts/ensure-promtool.mjs while it installs prometheus: no service starts.\nexit 101\n', { mode: 0o755 })
    fn()
  } finally {
    rmSync(POLICY, { force: true })
    if (had) renameSync(saved, POLICY)
  }
}

let promtool = findPromtool()
if (!promtool) {
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0
  const hasApt = spawnSync('which', ['apt-get']).status === 0
  if (!isRoot || !hasApt) {
    console.error("promtool is missing: the alerting rules' tests need it. Install Debian's package as root: apt-get install --no-install-recommends prometheus")
    process.exit(1)
  }
  console.log('Installing promtool (Debian package "prometheus", its service not started) for the alerting rules\' tests...')
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
  try {
    withServicesHeld(() => {
      execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env })
      execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'prometheus'], { stdio: 'inherit', env })
    })
  } catch {
    console.error('promtool could not be installed with apt-get; install the Debian package "prometheus" and run the tests again.')
    process.exit(1)
  }
  promtool = findPromtool()
  if (!promtool) {
    console.error('apt-get finished but promtool is still not on PATH.')
    process.exit(1)
  }
  // Belt and braces: a Prometheus the package started anyway (a policy-rc.d ignored) is stopped.
  const pidFile = '/run/prometheus/prometheus.pid'
  if (existsSync(pidFile)) {
    console.error(`The prometheus package started a service (${pidFile}: ${readFileSync(pidFile, 'utf8').trim()}); stop it with: service prometheus stop`)
    process.exit(1)
  }
}
console.log(promtool)
