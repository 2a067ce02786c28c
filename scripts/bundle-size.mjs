#!/usr/bin/env node
/**
 * Bundle budget for the routes a new visitor hits first.
 *
 * After `npm run build`, reads the build (scripts/web-build/route-chunks.mjs: Vite's manifest and
 * the router's route tree) and prints, for each budgeted URL, the gzipped size (node:zlib, level 9)
 * of its JavaScript in three parts:
 *   - before paint: what the page loads before it shows anything. For a page prerendered at build
 *     time (docs/decisions/052, listed in web/dist/.vite/prerender.json), whose HTML paints by
 *     itself, only the small script that starts the app after the first paint (src/boot.ts).
 *     Otherwise all of "at load".
 *   - at load: what the page loads at once (index.html's script and modulepreloads, the route's own
 *     split chunks, those of its parent layouts, and their static imports): what hydrates a
 *     prerendered page, or renders any other. This is the budget: at most 150 KB.
 *   - later: what those chunks load through import() after hydration or on first use (the toast
 *     region, focus after navigation, the forms' validation, dialogs...; other routes excluded).
 * Each chunk is counted once. Exits 1 when a route is over budget.
 */
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import { readRouteChunks } from './web-build/route-chunks.mjs'

const BUDGET_KB = 150
const ROUTES = ['/', '/auth']

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const webRoot = path.join(repoRoot, 'web')
const distDir = path.join(webRoot, 'dist')

function fail(message) {
  console.error(`bundle-size: ${message}`)
  process.exit(1)
}

let build
try {
  build = readRouteChunks(webRoot)
} catch (error) {
  fail(error instanceof Error ? error.message : String(error))
}
const prerenderPath = path.join(distDir, '.vite', 'prerender.json')
const prerender = existsSync(prerenderPath) ? JSON.parse(readFileSync(prerenderPath, 'utf8')) : { pages: [] }
const prerendered = new Set(prerender.pages.map((page) => page.path))

const gzipCache = new Map()
function gzipBytes(file) {
  if (!gzipCache.has(file)) {
    gzipCache.set(file, gzipSync(readFileSync(path.join(distDir, file)), { level: 9 }).length)
  }
  return gzipCache.get(file)
}
const sum = (files) => files.reduce((total, file) => total + gzipBytes(file), 0)

const kb = (bytes) => (bytes / 1000).toFixed(1)
const rows = []
let overBudget = false

for (const url of ROUTES) {
  const { chunks, routeFiles, splitKeys } = build.initialChunks(url)
  const atLoad = build.jsFiles(chunks)
  const atLoadBytes = sum(atLoad)
  const later = build.jsFiles(build.laterChunks(chunks)).filter((file) => !atLoad.includes(file))
  const over = atLoadBytes > BUDGET_KB * 1000
  overBudget ||= over
  rows.push({
    route: url,
    files: routeFiles.map((f) => `${f}.tsx`).join(' < ') + (splitKeys.length ? '' : ' (no split chunk)'),
    chunks: atLoad.length,
    paint: prerendered.has(url) ? kb(gzipBytes(prerender.boot)) : kb(atLoadBytes),
    gzip: kb(atLoadBytes),
    later: `+${kb(sum(later))}`,
    status: over ? `OVER ${BUDGET_KB} KB` : 'ok',
  })
}

const entryBytes = sum(build.jsFiles(build.entryChunks()))

const header = {
  route: 'route',
  files: 'route files',
  chunks: 'chunks',
  paint: 'before paint KB',
  gzip: 'at load KB',
  later: 'later KB',
  status: `budget ${BUDGET_KB} KB`,
}
const all = [header, ...rows]
const width = (col) => Math.max(...all.map((row) => String(row[col]).length))
const line = (row) =>
  [
    String(row.route).padEnd(width('route')),
    String(row.chunks).padStart(width('chunks')),
    String(row.paint).padStart(width('paint')),
    String(row.gzip).padStart(width('gzip')),
    String(row.later).padStart(width('later')),
    String(row.status).padEnd(width('status')),
    row.files,
  ].join('  ')

console.log(`JavaScript per route, gzip level 9 (entry chunk and its static imports alone: ${kb(entryBytes)} KB)`)
console.log(line(header))
for (const row of rows) console.log(line(row))
console.log(
  'before paint: loaded before the page shows (prerendered: only the script that starts the app after the first paint); at load: what the page loads at once to hydrate or render (the budget); later: after that, or on first use.',
)

if (overBudget) {
  console.error(`bundle-size: over budget; keep each route's JavaScript at load at or under ${BUDGET_KB} KB gzipped.`)
  process.exit(1)
}
