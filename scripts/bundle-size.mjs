#!/usr/bin/env node
/**
 * Bundle budget for the routes a new visitor hits first.
 *
 * After `npm run build`, reads web/dist/.vite/manifest.json and, for each budgeted URL, adds up
 * the gzipped size (node:zlib, level 9) of:
 *   - the entry chunk (index.html) and every chunk it imports statically, transitively;
 *   - the route's own lazily loaded chunks (`src/routes/<file>?tsr-split=...`, one per split
 *     group: component, errorComponent, ...), including those of its parent layout routes,
 *     and their static imports, transitively.
 * Each chunk is counted once. Chunks reached only through dynamic import() (other routes, the
 * toast region, the plans fetcher with zod) load after first paint and are not budgeted; the
 * "deferred" column shows how much of that (other routes excluded) the route may still load.
 *
 * Which file implements a URL is read from web/src/routeTree.gen.ts (the router plugin's
 * output), so the check follows the routes if they are renamed or nested under layouts.
 * Prints a table in KB (1 KB = 1000 bytes) and exits 1 when a route is over budget.
 */
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'

const BUDGET_KB = 150
const ROUTES = ['/', '/auth']

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const webRoot = path.join(repoRoot, 'web')
const distDir = path.join(webRoot, 'dist')
const manifestPath = path.join(distDir, '.vite', 'manifest.json')
const routeTreePath = path.join(webRoot, 'src', 'routeTree.gen.ts')

function fail(message) {
  console.error(`bundle-size: ${message}`)
  process.exit(1)
}

if (!existsSync(manifestPath)) fail(`${path.relative(repoRoot, manifestPath)} not found; run \`npm run build\` first.`)
if (!existsSync(routeTreePath)) fail(`${path.relative(repoRoot, routeTreePath)} not found.`)

/** @type {Record<string, { file: string, src?: string, isEntry?: boolean, imports?: string[], dynamicImports?: string[] }>} */
const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'))
const routeTree = readFileSync(routeTreePath, 'utf8')

// --- Which route files serve a URL, from routeTree.gen.ts ------------------------------------
// import { Route as AuthRouteImport } from './routes/auth'
const importFileByIdent = new Map()
for (const m of routeTree.matchAll(/import\s*\{\s*Route as (\w+)\s*\}\s*from\s*'([^']+)'/g)) {
  importFileByIdent.set(m[1], m[2])
}
// const AuthRoute = AuthRouteImport.update({ id: '/auth', path: '/auth', getParentRoute: () => rootRouteImport } as any)
const routeByIdent = new Map()
for (const m of routeTree.matchAll(/const (\w+) = (\w+)\.update\(\{([\s\S]*?)\}\s*as any\)/g)) {
  const parent = /getParentRoute:\s*\(\)\s*=>\s*(\w+)/.exec(m[3])?.[1]
  routeByIdent.set(m[1], { importIdent: m[2], parent })
}
// export interface FileRoutesByFullPath { '/': typeof IndexRoute ... }
const fullPathBlock = /export interface FileRoutesByFullPath \{([\s\S]*?)\n\}/.exec(routeTree)?.[1] ?? ''
const identByFullPath = new Map()
for (const m of fullPathBlock.matchAll(/'([^']+)':\s*typeof (\w+)/g)) identByFullPath.set(m[1], m[2])

/** Route source files (relative to web/, without extension) from the route up to the root. */
function routeFilesFor(url) {
  const candidates = [url, url === '/' ? url : `${url}/`]
  const ident = candidates.map((c) => identByFullPath.get(c)).find(Boolean)
  if (!ident) fail(`no route for ${url} in routeTree.gen.ts`)
  const files = []
  for (let current = ident; current && routeByIdent.has(current); current = routeByIdent.get(current).parent) {
    const file = importFileByIdent.get(routeByIdent.get(current).importIdent)
    if (file) files.push(path.posix.normalize(path.posix.join('src', file)))
  }
  return files
}

// --- Chunks and sizes -------------------------------------------------------------------------
const entryKey = Object.keys(manifest).find((key) => manifest[key].isEntry)
if (!entryKey) fail('the manifest has no entry chunk')

const gzipCache = new Map()
function gzipBytes(file) {
  if (!gzipCache.has(file)) {
    gzipCache.set(file, gzipSync(readFileSync(path.join(distDir, file)), { level: 9 }).length)
  }
  return gzipCache.get(file)
}

/** Adds a chunk and everything it imports statically. */
function collect(key, seen) {
  if (seen.has(key)) return
  const chunk = manifest[key]
  if (!chunk) fail(`manifest entry ${key} is missing`)
  seen.add(key)
  for (const imported of chunk.imports ?? []) collect(imported, seen)
}

/** Manifest keys of the code-split chunks of a route file (src/routes/auth → src/routes/auth.tsx?tsr-split=component). */
function splitChunkKeys(routeFile) {
  return Object.keys(manifest).filter((key) => {
    const src = (manifest[key].src ?? key).replace(/^web\//, '')
    const [file, query] = src.split('?')
    return query?.includes('tsr-split') && file.replace(/\.[cm]?[jt]sx?$/, '') === routeFile
  })
}

const kb = (bytes) => (bytes / 1000).toFixed(1)
const rows = []
let overBudget = false

for (const url of ROUTES) {
  const seen = new Set()
  collect(entryKey, seen)
  const routeFiles = routeFilesFor(url)
  const splitKeys = routeFiles.flatMap(splitChunkKeys)
  for (const key of splitKeys) collect(key, seen)
  const files = [...new Set([...seen].map((key) => manifest[key].file).filter((file) => file.endsWith('.js')))]
  const total = files.reduce((sum, file) => sum + gzipBytes(file), 0)

  // Informational: non-route chunks these chunks import dynamically, plus their static imports.
  const deferred = new Set(seen)
  for (const key of seen) {
    for (const lazy of manifest[key].dynamicImports ?? []) {
      if (!lazy.includes('tsr-split')) collect(lazy, deferred)
    }
  }
  const deferredBytes = [...deferred]
    .filter((key) => !seen.has(key))
    .map((key) => manifest[key].file)
    .filter((file) => file.endsWith('.js') && !files.includes(file))
    .reduce((sum, file) => sum + gzipBytes(file), 0)
  const over = total > BUDGET_KB * 1000
  overBudget ||= over
  rows.push({
    route: url,
    files: routeFiles.map((f) => `${f}.tsx`).join(' < ') + (splitKeys.length ? '' : ' (no split chunk)'),
    chunks: files.length,
    gzip: kb(total),
    deferred: `+${kb(deferredBytes)}`,
    status: over ? `OVER ${BUDGET_KB} KB` : 'ok',
  })
}

const entryOnly = new Set()
collect(entryKey, entryOnly)
const entryBytes = [...entryOnly]
  .map((key) => manifest[key].file)
  .filter((file) => file.endsWith('.js'))
  .reduce((sum, file) => sum + gzipBytes(file), 0)

const header = {
  route: 'route',
  files: 'route files',
  chunks: 'chunks',
  gzip: 'first load KB',
  deferred: 'deferred KB',
  status: `budget ${BUDGET_KB} KB`,
}
const all = [header, ...rows]
const width = (col) => Math.max(...all.map((row) => String(row[col]).length))
const line = (row) =>
  [
    String(row.route).padEnd(width('route')),
    String(row.chunks).padStart(width('chunks')),
    String(row.gzip).padStart(width('gzip')),
    String(row.deferred).padStart(width('deferred')),
    String(row.status).padEnd(width('status')),
    row.files,
  ].join('  ')

console.log(`JavaScript per route, gzip level 9 (entry chunk and its static imports alone: ${kb(entryBytes)} KB)`)
console.log(line(header))
for (const row of rows) console.log(line(row))

if (overBudget) {
  console.error(`bundle-size: over budget; keep each route's first-load JavaScript at or under ${BUDGET_KB} KB gzipped.`)
  process.exit(1)
}
