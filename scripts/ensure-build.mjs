// Builds what is missing or older than its sources (used by `npm start`, `npm run worker`, the
// database commands and `npm run lighthouse`): the web app (web/dist) and the compiled server and
// worker (dist/, scripts/build-server.mjs). `--server`: only dist/. A copy without the sources
// (the Docker image ships only what the build made) has nothing to build.
// The web build's last step writes its marker (web/vite.config.ts); dist/meta.json lists the
// files of ours the server's build read (the packages it bundles come with the lock file).
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const serverOnly = process.argv.includes('--server')
const mtime = (path) => (existsSync(path) ? statSync(path).mtimeMs : Infinity)

function newest(dir) {
  let latest = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'dist' || entry.name === 'node_modules' || entry.name.startsWith('.')) continue
    const path = join(dir, entry.name)
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs)
  }
  return latest
}

function webUpToDate() {
  if (!existsSync(join(root, 'web', 'src'))) return true
  const marker = join(root, 'web', 'dist', '.vite', 'prerender.json')
  const sources = Math.max(
    newest(join(root, 'web')),
    newest(join(root, 'common')),
    newest(join(root, 'scripts', 'web-build')),
    statSync(join(root, 'package-lock.json')).mtimeMs,
  )
  return existsSync(marker) && statSync(marker).mtimeMs >= sources
}

function serverUpToDate() {
  if (!existsSync(join(root, 'server', 'index.ts'))) return true
  const meta = join(root, 'dist', 'meta.json')
  if (!existsSync(meta)) return false
  // A deleted input counts as changed (Infinity); a new file matters only once an input imports it.
  const { inputs } = JSON.parse(readFileSync(meta, 'utf8'))
  const sources = Math.max(
    ...inputs.map((input) => mtime(join(root, input))),
    mtime(join(root, 'package.json')),
    mtime(join(root, 'package-lock.json')),
    // The packages are bundled too: they change with the lock file or a patch of patches/.
    existsSync(join(root, 'patches')) ? newest(join(root, 'patches')) : 0,
    mtime(join(root, 'scripts', 'build-server.mjs')),
  )
  return statSync(meta).mtimeMs >= sources
}

function run(args) {
  const result = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' })
  if (result.status !== 0) process.exit(result.status ?? 1)
}

if (!serverOnly && !webUpToDate()) {
  console.log('Building the web app (web/dist)...')
  run([join(root, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--config', 'web/vite.config.ts', '--logLevel', 'warn'])
}
if (!serverUpToDate()) {
  console.log('Building the server and the worker (dist/)...')
  run([join(root, 'scripts', 'build-server.mjs')])
}
