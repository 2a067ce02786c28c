/**
 * promtool, Prometheus's own checker: the alerting rules and the Prometheus config of ops/ are
 * checked with it, and a process's /metrics text can be piped into `promtool check metrics`.
 * `npm test` installs it when it is missing (scripts/ensure-promtool.mjs: Debian's "prometheus").
 */
import { spawnSync } from 'node:child_process'
import { ROOT } from './process'

let found: string | undefined

/** promtool's path on PATH; throws, saying how to get it, when it is not there. */
export function promtoolPath(): string {
  if (found) return found
  const lookup = spawnSync('sh', ['-c', 'command -v promtool'], { encoding: 'utf8' })
  const path = lookup.status === 0 ? lookup.stdout.trim() : ''
  if (path === '') {
    throw new Error('promtool is not on PATH: run `node scripts/ensure-promtool.mjs` (npm test does), or install Debian\'s "prometheus" package')
  }
  found = path
  return path
}

/**
 * Runs promtool with `args` from the repository root, `input` on its standard input (for
 * `check metrics`), and returns its exit status and output. A promtool killed by a signal (or its
 * ten-minute limit, far past the half minute the rules' tests take on a busy machine) has status 1.
 */
export function runPromtool(args: string[], input?: string): { status: number; stdout: string; stderr: string } {
  const result = spawnSync(promtoolPath(), args, { cwd: ROOT, input, encoding: 'utf8', timeout: 600_000, maxBuffer: 16 * 1024 * 1024 })
  if (result.error && !result.signal) throw result.error
  return { status: result.status ?? 1, stdout: result.stdout, stderr: result.stderr }
}
