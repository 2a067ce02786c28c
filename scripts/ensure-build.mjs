// Builds the web app when web/dist is missing, unfinished or older than its sources (used by
// `npm start` and `npm run lighthouse`). The build's last step writes the marker (web/vite.config.ts).
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const marker = join(root, 'web', 'dist', '.vite', 'prerender.json')

function newest(dir) {
  let latest = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'dist' || entry.name === 'node_modules' || entry.name.startsWith('.')) continue
    const path = join(dir, entry.name)
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs)
  }
  return latest
}

const sources = Math.max(
  newest(join(root, 'web')),
  newest(join(root, 'common')),
  newest(join(root, 'scripts', 'web-build')),
  statSync(join(root, 'package-lock.json')).mtimeMs,
)
if (existsSync(marker) && statSync(marker).mtimeMs >= sources) process.exit(0)

console.log('Building the web app (web/dist)...')
const result = spawnSync(process.execPath, [join(root, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--config', 'web/vite.config.ts', '--logLevel', 'warn'], {
  cwd: root,
  stdio: 'inherit',
})
process.exit(result.status ?? 1)
