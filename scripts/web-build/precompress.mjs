/**
 * The compression step of the web build (docs/decisions/052): every text file of web/dist (scripts,
 * styles, HTML, SVG, JSON) gets a brotli (`.br`, quality 11) and a gzip (`.gz`, level 9) sibling,
 * made once here at their highest settings instead of on every response. The server sends the one
 * the request's Accept-Encoding prefers (server/plugins/web-app.ts), the file itself otherwise.
 * A compressed form that is not smaller than the file is not written.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { brotliCompressSync, constants, gzipSync } from 'node:zlib'

const COMPRESSIBLE = /\.(?:js|mjs|css|html|svg|json|txt|xml|webmanifest)$/
/** Below this a compressed response saves less than its headers cost. */
const MIN_BYTES = 512

function* filesUnder(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    // .vite holds the build's own manifests, never served.
    if (entry.name.startsWith('.')) continue
    const file = path.join(dir, entry.name)
    if (entry.isDirectory()) yield* filesUnder(file)
    else yield file
  }
}

/** @param {string} distDir web/dist @returns {{ files: number, bytes: number, br: number, gzip: number }} */
export function precompress(distDir) {
  const totals = { files: 0, bytes: 0, br: 0, gzip: 0 }
  for (const file of filesUnder(distDir)) {
    if (!COMPRESSIBLE.test(file) || statSync(file).size < MIN_BYTES) continue
    const content = readFileSync(file)
    const br = brotliCompressSync(content, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        [constants.BROTLI_PARAM_SIZE_HINT]: content.length,
      },
    })
    const gzip = gzipSync(content, { level: 9 })
    totals.files += 1
    totals.bytes += content.length
    if (br.length < content.length) {
      writeFileSync(`${file}.br`, br)
      totals.br += br.length
    }
    if (gzip.length < content.length) {
      writeFileSync(`${file}.gz`, gzip)
      totals.gzip += gzip.length
    }
  }
  return totals
}
