/**
 * Which built chunks a URL of the web app loads, from a production build: web/dist/.vite/manifest.json
 * (Vite's) and web/src/routeTree.gen.ts (the router plugin's, which says which route files serve a
 * URL, so this follows the routes if they are renamed or nested under layouts). Used by the bundle
 * budget (scripts/bundle-size.mjs) and by the prerender step of the build (prerender.mjs), which
 * preloads a prerendered page's route chunks.
 */
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'

/**
 * @typedef {{ file: string, src?: string, isEntry?: boolean, imports?: string[], dynamicImports?: string[], css?: string[] }} ManifestChunk
 */

/** @param {string} webRoot the web/ folder */
export function readRouteChunks(webRoot) {
  const manifestPath = path.join(webRoot, 'dist', '.vite', 'manifest.json')
  const routeTreePath = path.join(webRoot, 'src', 'routeTree.gen.ts')
  if (!existsSync(manifestPath)) throw new Error(`${manifestPath} not found; run \`npm run build\` first.`)
  if (!existsSync(routeTreePath)) throw new Error(`${routeTreePath} not found.`)

  /** @type {Record<string, ManifestChunk>} */
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'))
  const routeTree = readFileSync(routeTreePath, 'utf8')

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

  // The app's entry: index.html's script (the build's other entry, src/boot.ts, starts prerendered pages).
  const entryKey = manifest['index.html']?.isEntry ? 'index.html' : Object.keys(manifest).find((key) => manifest[key].isEntry)
  if (!entryKey) throw new Error('the manifest has no entry chunk')

  /** Route source files (relative to web/, without extension) from the route up to the root. */
  function routeFiles(url) {
    const candidates = [url, url === '/' ? url : `${url}/`]
    const ident = candidates.map((c) => identByFullPath.get(c)).find(Boolean)
    if (!ident) throw new Error(`no route for ${url} in routeTree.gen.ts`)
    const files = []
    for (let current = ident; current && routeByIdent.has(current); current = routeByIdent.get(current).parent) {
      const file = importFileByIdent.get(routeByIdent.get(current).importIdent)
      if (file) files.push(path.posix.normalize(path.posix.join('src', file)))
    }
    return files
  }

  /** Manifest keys of the code-split chunks of a route file (src/routes/auth → src/routes/auth.tsx?tsr-split=component). */
  function splitChunkKeys(routeFile) {
    return Object.keys(manifest).filter((key) => {
      const src = (manifest[key].src ?? key).replace(/^web\//, '')
      const [file, query] = src.split('?')
      return query?.includes('tsr-split') && file.replace(/\.[cm]?[jt]sx?$/, '') === routeFile
    })
  }

  /** Adds a chunk and everything it imports statically, transitively. */
  function collect(key, seen) {
    if (seen.has(key)) return
    if (!manifest[key]) throw new Error(`manifest entry ${key} is missing`)
    seen.add(key)
    for (const imported of manifest[key].imports ?? []) collect(imported, seen)
  }

  /** The entry chunk and its static imports: what every page loads (index.html's script and modulepreloads). */
  function entryChunks() {
    const seen = new Set()
    collect(entryKey, seen)
    return seen
  }

  /**
   * What a URL loads at once: the entry chunk and its static imports, plus the route's own split
   * chunks (those of its parent layouts too) and their static imports.
   */
  function initialChunks(url) {
    const seen = entryChunks()
    const files = routeFiles(url)
    const splitKeys = files.flatMap(splitChunkKeys)
    for (const key of splitKeys) collect(key, seen)
    return { chunks: seen, routeFiles: files, splitKeys }
  }

  /**
   * What those chunks load later, through import() (not other routes' chunks): lazily loaded parts
   * of the page (toasts, validation, dialogs, ...) and their static imports.
   */
  function laterChunks(initial) {
    const all = new Set(initial)
    for (const key of initial) {
      for (const lazy of manifest[key].dynamicImports ?? []) {
        if (!lazy.includes('tsr-split')) collect(lazy, all)
      }
    }
    return new Set([...all].filter((key) => !initial.has(key)))
  }

  /** The JavaScript files of some chunks, each once. */
  function jsFiles(keys) {
    return [...new Set([...keys].map((key) => manifest[key].file).filter((file) => file.endsWith('.js')))]
  }

  return { manifest, entryKey, routeFiles, entryChunks, initialChunks, laterChunks, jsFiles }
}
