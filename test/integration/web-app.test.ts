import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PRERENDERED_PAGES, prerenderedFile } from '#common/prerender'
import { buildTestApp } from '../helpers/app'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { signedInUser } from '../helpers/users'

/**
 * How the server sends the built web app (server/plugins/web-app.ts, docs/decisions/052): hashed
 * assets cached as immutable, the compressed forms the build made chosen by Accept-Encoding, the
 * prerendered pages by the session and the query, and HTML that a browser always revalidates.
 * The web root is a stand-in for web/dist with the same layout as the build's.
 */

const SCRIPT = `console.log(${JSON.stringify('the app '.repeat(200))})`
const SHELL = '<!doctype html><html lang="en"><body><div id="root"></div><!-- shell --></body></html>'
const page = (name: string) => `<!doctype html><html lang="en"><body><div id="root" data-prerendered>${name} ${'prerendered '.repeat(100)}</div></body></html>`

/** Writes a file with the compressed siblings the build writes (scripts/web-build/precompress.mjs). */
function writeBuilt(root: string, file: string, content: string) {
  const path = join(root, file)
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, content)
  writeFileSync(`${path}.br`, brotliCompressSync(content))
  writeFileSync(`${path}.gz`, gzipSync(content))
}

function webRootWith(shell: string): string {
  const root = mkdtempSync(join(tmpdir(), 'mc-web-app-'))
  writeBuilt(root, 'index.html', shell)
  writeBuilt(root, 'assets/index-abc123.js', SCRIPT)
  writeFileSync(join(root, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>')
  for (const { path, variants } of PRERENDERED_PAGES) {
    for (const variant of variants) writeBuilt(root, prerenderedFile(path, variant), page(`${path} ${variant}`))
  }
  return root
}

let database: TestDatabase
let app: FastifyInstance

beforeAll(async () => {
  database = await createTestDatabase()
  app = await buildTestApp({ database, webRoot: webRootWith(SHELL) })
})

afterAll(async () => {
  await app?.close()
  await database?.destroy()
})

const get = (url: string, headers: Record<string, string> = {}) => app.inject({ method: 'GET', url, headers })

/** The body as sent, decoded by its Content-Encoding. */
function decoded(response: Awaited<ReturnType<typeof get>>): string {
  const body = response.rawPayload
  const encoding = response.headers['content-encoding']
  if (encoding === 'br') return brotliDecompressSync(body).toString()
  if (encoding === 'gzip') return gunzipSync(body).toString()
  expect(encoding).toBeUndefined()
  return body.toString()
}

describe('hashed assets', () => {
  it('are cached for a year as immutable', async () => {
    const response = await get('/assets/index-abc123.js')
    expect(response.statusCode).toBe(200)
    expect(response.headers['cache-control']).toBe('public, max-age=31536000, immutable')
  })

  it('come in the encoding Accept-Encoding prefers among brotli and gzip, else as they are', async () => {
    const cases: Array<[string | undefined, string | undefined]> = [
      ['br', 'br'],
      ['gzip', 'gzip'],
      ['gzip, deflate, br', 'br'], // equal quality: brotli, the smaller
      ['br;q=0.5, gzip', 'gzip'],
      ['br;q=0, gzip;q=0', undefined],
      ['deflate', undefined],
      ['identity', undefined],
      [undefined, undefined],
    ]
    for (const [accept, expected] of cases) {
      const response = await get('/assets/index-abc123.js', accept === undefined ? {} : { 'accept-encoding': accept })
      expect(response.statusCode, String(accept)).toBe(200)
      expect(response.headers['content-encoding'], String(accept)).toBe(expected)
      expect(response.headers['content-type'], String(accept)).toMatch(/javascript/)
      expect(response.headers.vary, String(accept)).toMatch(/accept-encoding/i)
      expect(response.headers['cache-control'], String(accept)).toContain('immutable')
      expect(decoded(response), String(accept)).toBe(SCRIPT)
    }
  })

  it('are smaller compressed, and the compressed copies are not addressable by themselves', async () => {
    const plain = await get('/assets/index-abc123.js')
    const br = await get('/assets/index-abc123.js', { 'accept-encoding': 'br' })
    expect(br.rawPayload.length).toBeLessThan(plain.rawPayload.length / 4)
    for (const url of ['/assets/index-abc123.js.br', '/assets/index-abc123.js.gz', '/index.html', `/${prerenderedFile('/', 'anyone')}`]) {
      expect((await get(url)).statusCode, url).toBe(404)
    }
    expect((await get('/assets/missing.js')).statusCode).toBe(404)
  })

  it('files without a hash in their name are cached for 5 minutes only', async () => {
    const response = await get('/favicon.svg')
    expect(response.statusCode).toBe(200)
    expect(response.headers['cache-control']).toBe('public, max-age=300')
  })
})

describe('HTML', () => {
  it('is never used from a cache without asking: no-cache, with an ETag, and 304 while it is current', async () => {
    for (const url of ['/', '/auth', '/dashboard']) {
      const first = await get(url, { 'accept-encoding': 'gzip' })
      expect(first.statusCode, url).toBe(200)
      expect(first.headers['cache-control'], url).toBe('no-cache')
      expect(first.headers['content-type'], url).toBe('text/html; charset=utf-8')
      const etag = String(first.headers.etag)
      expect(etag, url).toMatch(/^"[\w-]+"$/)

      const again = await get(url, { 'accept-encoding': 'gzip', 'if-none-match': etag })
      expect(again.statusCode, url).toBe(304)
      expect(again.rawPayload.length, url).toBe(0)
      expect(again.headers.etag, url).toBe(etag)
      // Another encoding is another representation, with its own tag.
      const plain = await get(url, { 'if-none-match': etag })
      expect(plain.statusCode, url).toBe(200)
      expect(plain.headers.etag, url).not.toBe(etag)
    }
  })

  it('after a deploy, a browser holding the old page gets the new one', async () => {
    const before = await get('/dashboard')
    const deployed = await buildTestApp({ database, webRoot: webRootWith(SHELL.replace('shell', 'shell, next release')) })
    try {
      const after = await deployed.inject({ method: 'GET', url: '/dashboard', headers: { 'if-none-match': String(before.headers.etag) } })
      expect(after.statusCode).toBe(200)
      expect(after.body).toContain('next release')
      expect(after.headers.etag).not.toBe(before.headers.etag)
    } finally {
      await deployed.close()
    }
  })

  it('comes compressed as Accept-Encoding prefers', async () => {
    for (const [accept, expected] of [
      ['br, gzip', 'br'],
      ['gzip', 'gzip'],
      ['', undefined],
    ] as const) {
      const response = await get('/', accept ? { 'accept-encoding': accept } : {})
      expect(response.headers['content-encoding'], accept).toBe(expected)
      expect(response.headers.vary, accept).toMatch(/accept-encoding/)
      expect(decoded(response), accept).toContain('/ anyone')
    }
  })
})

describe('prerendered pages', () => {
  it('/ is prerendered for everyone, whatever its query', async () => {
    const signedIn = await signedInUser(app)
    for (const [url, headers] of [
      ['/', {}],
      ['/?utm_source=ad&utm_campaign=spring', {}],
      ['/', { cookie: signedIn.cookie }],
    ] as const) {
      const response = await get(url, headers)
      expect(response.statusCode, url).toBe(200)
      expect(response.body, url).toContain('/ anyone prerendered')
      expect(response.headers.vary, url).toBe('accept-encoding')
    }
  })

  it('/auth is prerendered for the session the request has: none, or a valid one', async () => {
    const signedIn = await signedInUser(app)

    const signedOut = await get('/auth')
    expect(signedOut.body).toContain('/auth signed-out prerendered')
    expect(signedOut.headers.vary).toBe('accept-encoding, cookie')

    const withSession = await get('/auth', { cookie: signedIn.cookie })
    expect(withSession.statusCode).toBe(200)
    expect(withSession.body).toContain('/auth signed-in prerendered')
    expect(withSession.headers.etag).not.toBe(signedOut.headers.etag)

    // A cookie whose session is gone: signed out, and the cookie is cleared.
    const stale = await get('/auth', { cookie: 'session=nope.nope' })
    expect(stale.body).toContain('/auth signed-out prerendered')
    expect(String(stale.headers['set-cookie'])).toMatch(/^session=;/)
  })

  it('/auth with a query its prerendered HTML does not show gets the app shell (returnTo alone keeps it)', async () => {
    expect((await get('/auth?returnTo=%2Fchat')).body).toContain('/auth signed-out prerendered')
    for (const url of ['/auth?tab=signup', '/auth?partner=NORTHWIND', '/auth?mode=reset', '/auth?returnTo=%2Fchat&tab=login']) {
      const response = await get(url)
      expect(response.statusCode, url).toBe(200)
      expect(response.body, url).toContain('<!-- shell -->')
      expect(response.headers['cache-control'], url).toBe('no-cache')
    }
  })

  it('the other screens get the app shell, with a 404 status outside the route map', async () => {
    for (const url of ['/splash', '/payment', '/courses/abc', '/reports/2026-11-22']) {
      const response = await get(url)
      expect(response.statusCode, url).toBe(200)
      expect(response.body, url).toContain('<!-- shell -->')
    }
    const unknown = await get('/no/such/page')
    expect(unknown.statusCode).toBe(404)
    expect(unknown.body).toContain('<!-- shell -->')
    expect(unknown.headers['cache-control']).toBe('no-cache')
  })

  it('without its prerendered files (a build that stopped early), a page gets the app shell', async () => {
    const root = mkdtempSync(join(tmpdir(), 'mc-web-app-'))
    writeBuilt(root, 'index.html', SHELL)
    const shellOnly = await buildTestApp({ database, webRoot: root })
    try {
      for (const url of ['/', '/auth']) {
        const response = await shellOnly.inject({ method: 'GET', url })
        expect(response.statusCode, url).toBe(200)
        expect(response.body, url).toContain('<!-- shell -->')
      }
    } finally {
      await shellOnly.close()
    }
  })
})
