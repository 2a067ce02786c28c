/**
 * The prerender step of the web build (web/vite.config.ts runs it after the browser's and the
 * prerenderer's builds; docs/decisions/052). For each variant of each prerendered page
 * (common/prerender.ts, which the prerenderer's build re-exports), it renders the page with the
 * server build of web/src/prerender.tsx and writes a complete HTML document into web/dist: the
 * browser build's index.html with the page's markup in #root (marked with the variant) and its
 * title. Its scripts change: instead of the app's entry and its modulepreload links, which the
 * browser would fetch alongside the stylesheet, the page loads src/boot.ts, which fetches the app,
 * its static imports and the route's own chunks once the page has painted.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { readRouteChunks } from './route-chunks.mjs'

const ROOT_ELEMENT = '<div id="root"></div>'

const escapeHtml = (text) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')

/** Replaces `search` in `html` once, or fails the build (the template changed shape). */
function replaceOnce(html, search, replacement, what) {
  const at = html.indexOf(search)
  if (at === -1 || html.indexOf(search, at + search.length) !== -1) throw new Error(`prerender: index.html must contain ${what} exactly once`)
  return html.slice(0, at) + replacement + html.slice(at + search.length)
}

/**
 * @param {{ webRoot: string, serverEntry: string }} options webRoot: web/; serverEntry: the built prerender.tsx
 * @returns {Promise<Array<{ path: string, variant: string, file: string }>>}
 */
export async function prerenderPages({ webRoot, serverEntry }) {
  const distDir = path.join(webRoot, 'dist')
  const { renderPage, PRERENDERED_PAGES, prerenderedFile, PRERENDER_ATTRIBUTE } = await import(pathToFileURL(serverEntry).href)
  const build = readRouteChunks(webRoot)
  const entry = `/${build.manifest[build.entryKey].file}`
  const boot = build.manifest['src/boot.ts']?.file
  if (!boot) throw new Error('prerender: the build has no src/boot.ts entry')
  // index.html without the app's script and its modulepreload links: boot.ts loads them after the first paint.
  let template = readFileSync(path.join(distDir, 'index.html'), 'utf8')
  template = replaceOnce(template, `<script type="module" crossorigin src="${entry}"></script>`, '', "the app's script")
  template = template.replace(/\s*<link rel="modulepreload"[^>]*>/g, '')

  const written = []
  for (const page of PRERENDERED_PAGES) {
    // What the boot script starts fetching besides the app's entry: the chunks the entry imports
    // and the route's own chunks. What those import, the browser finds as it reads them. Each module
    // fetch a script starts costs the main thread (~0.4 ms, four times that on a phone), so the build
    // keeps the app's imports in one chunk (web/vite.config.ts) and this list short; and each chunk
    // fetched this way is evaluated in a task of its own.
    const preload = build
      .jsFiles([...build.entryChunks(), ...build.initialChunks(page.path).splitKeys])
      .filter((file) => `/${file}` !== entry)
      .map((file) => `/${file}`)
    const bootScript = `<script type="module" fetchpriority="low" src="/${boot}" data-entry="${entry}" data-preload="${preload.join(' ')}"></script>`
    for (const variant of page.variants) {
      const { html, title } = await renderPage(page.path, variant)
      let document = replaceOnce(template, ROOT_ELEMENT, `<div id="root" ${PRERENDER_ATTRIBUTE}="${variant}">${html}</div>`, ROOT_ELEMENT)
      document = document.replace(/<title>[^<]*<\/title>/, `<title>${escapeHtml(title)}</title>`)
      document = replaceOnce(document, '</head>', `    ${bootScript}\n  </head>`, '</head>')
      const file = prerenderedFile(page.path, variant)
      mkdirSync(path.dirname(path.join(distDir, file)), { recursive: true })
      writeFileSync(path.join(distDir, file), document)
      written.push({ path: page.path, variant, file })
    }
  }
  return written
}

/**
 * Marks the build finished (scripts/ensure-build.mjs looks for it) and lists the prerendered pages
 * and the script they load before painting (scripts/bundle-size.mjs reads them).
 */
export function writeBuildMarker(webRoot, pages) {
  const boot = readRouteChunks(webRoot).manifest['src/boot.ts'].file
  writeFileSync(path.join(webRoot, 'dist', '.vite', 'prerender.json'), `${JSON.stringify({ boot, pages }, null, 2)}\n`)
}
