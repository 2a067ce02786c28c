// The browser tests drive Debian's Chromium (Playwright's own browser download does not work on
// these machines). Installs it with apt-get when missing and we may; otherwise names what is missing.
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'

export const CHROMIUM = '/usr/bin/chromium'

if (!existsSync(CHROMIUM)) {
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0
  const hasApt = spawnSync('which', ['apt-get']).status === 0
  if (!isRoot || !hasApt) {
    console.error(
      `Chromium is missing: the browser tests need ${CHROMIUM}. Install Debian's package as root: apt-get install chromium`,
    )
    process.exit(1)
  }
  console.log('Installing Chromium (Debian package "chromium") for the browser tests...')
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
  try {
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env })
    execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'chromium', 'fonts-liberation'], { stdio: 'inherit', env })
  } catch {
    console.error('Chromium could not be installed with apt-get; install the Debian package "chromium" and run the tests again.')
    process.exit(1)
  }
  if (!existsSync(CHROMIUM)) {
    console.error(`apt-get finished but ${CHROMIUM} is still missing.`)
    process.exit(1)
  }
}
