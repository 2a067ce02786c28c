import { createHash } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { negotiate } from '@fastify/accept-negotiator'
import fastifyStatic from '@fastify/static'
import type { FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { PRERENDERED_PAGES, prerenderedFile, type PrerenderVariant, type PrerenderedPage } from '#common/prerender'
import { isBrowserRoute } from '#common/routes'
import { AppError } from '../lib/app-error'
import { isApiPath } from '../lib/route-hooks'

type WebAppOptions = {
  /** The built web app (web/dist). */
  root: string
}

const pathOf = (request: FastifyRequest) => request.url.split('?')[0] ?? '/'

const NOT_BUILT = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Momentum Coach</title></head>
<body><main><h1>The web app is not built</h1><p>Run <code>npm run build</code>, then reload.</p></main></body></html>`

/** The compressed forms the build writes next to each file (scripts/web-build/precompress.mjs), best first. */
const ENCODINGS = ['br', 'gzip'] as const
type Encoding = (typeof ENCODINGS)[number]
const EXTENSION: Record<Encoding, string> = { br: '.br', gzip: '.gz' }

/** The encoding to send: the request's preferred one among those we have, else none (the file as it is). */
function chooseEncoding(request: FastifyRequest, available: (encoding: Encoding) => boolean): Encoding | undefined {
  const header = request.headers['accept-encoding']
  if (!header) return undefined
  const encoding = negotiate(header.toLowerCase(), ENCODINGS.filter(available)) as Encoding | null
  return encoding ?? undefined
}

/** An HTML document held in memory, with its compressed forms and its entity tag. */
type HtmlDocument = { identity: Buffer; compressed: Partial<Record<Encoding, Buffer>>; tag: string }

function readDocument(file: string): HtmlDocument | undefined {
  if (!existsSync(file)) return undefined
  const identity = readFileSync(file)
  const compressed: HtmlDocument['compressed'] = {}
  for (const encoding of ENCODINGS) {
    if (existsSync(file + EXTENSION[encoding])) compressed[encoding] = readFileSync(file + EXTENSION[encoding])
  }
  return { identity, compressed, tag: createHash('sha256').update(identity).digest('base64url').slice(0, 22) }
}

/** Whether If-None-Match names this entity tag (weak comparison, as for GET). */
function notModified(request: FastifyRequest, etag: string): boolean {
  const header = request.headers['if-none-match']
  if (!header) return false
  const bare = etag.replace(/^W\//, '')
  return header === '*' || header.split(',').some((candidate) => candidate.trim().replace(/^W\//, '') === bare)
}

/**
 * Sends an HTML document: never cached without asking again (`no-cache`, so a deploy shows at once),
 * answered 304 when the browser's copy is current (an ETag per content and encoding), compressed
 * as the request prefers.
 */
function sendDocument(request: FastifyRequest, reply: FastifyReply, document: HtmlDocument, status: number, vary: string) {
  const encoding = chooseEncoding(request, (candidate) => document.compressed[candidate] !== undefined)
  const etag = `"${document.tag}${encoding ? `-${encoding}` : ''}"`
  reply.header('cache-control', 'no-cache').header('vary', vary).header('etag', etag)
  if (status === 200 && notModified(request, etag)) return reply.code(304).send()
  if (encoding) reply.header('content-encoding', encoding)
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .send(encoding ? document.compressed[encoding] : document.identity)
}

/** Whether a prerendered page's HTML is right for this request's query (common/prerender.ts). */
function queryFits(page: PrerenderedPage, request: FastifyRequest): boolean {
  if (page.query === 'any') return true
  const allowed = page.query
  return Object.keys(request.query as Record<string, unknown>).every((name) => allowed.includes(name))
}

/**
 * Serves the built React app:
 * - hashed assets (web/dist/assets) cached for a year as immutable, other files for 5 minutes;
 *   each in the brotli or gzip form the build made when the request accepts it (`Vary: Accept-Encoding`);
 * - the prerendered pages (common/prerender.ts, docs/decisions/052): `/` for everyone, `/auth` in the
 *   variant for the request's session (checked like any route with `auth: 'optional'`), unless the
 *   query asks for something the prerendered HTML does not show;
 * - the app shell (index.html) for every other non-/api path, so each route loads directly by URL
 *   (404 status for paths outside the route map, where the app shows its not-found page).
 * HTML is sent from memory, revalidated on every load (`no-cache` and an ETag). Unknown /api paths
 * are 404 JSON.
 */
export default fp<WebAppOptions>(
  async (app, { root }) => {
    const shell = readDocument(join(root, 'index.html'))
    const built = shell !== undefined

    if (built) {
      await app.register(fastifyStatic, {
        root,
        prefix: '/',
        wildcard: false,
        index: false,
        serveDotFiles: false,
        preCompressed: true,
        // Documents are sent by the routes below; the compressed copies only in place of their file.
        allowedPath: (path) => !path.startsWith('/api/') && !path.endsWith('.html') && !path.startsWith('/pages/') && !/\.(?:br|gz)$/.test(path),
        setHeaders: (res, path) => {
          if (path.includes(`${join(root, 'assets')}`)) {
            res.header('cache-control', 'public, max-age=31536000, immutable')
          } else {
            res.header('cache-control', 'public, max-age=300')
          }
        },
      })
    }

    const sendShell = (request: FastifyRequest, reply: FastifyReply, vary = 'accept-encoding') => {
      if (!shell) {
        return reply.code(503).header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(NOT_BUILT)
      }
      return sendDocument(request, reply, shell, isBrowserRoute(pathOf(request)) ? 200 : 404, vary)
    }

    for (const page of PRERENDERED_PAGES) {
      const documents = new Map<PrerenderVariant, HtmlDocument>()
      for (const variant of page.variants) {
        const document = built ? readDocument(join(root, prerenderedFile(page.path, variant))) : undefined
        if (document) documents.set(variant, document)
      }
      const bySession = page.variants.length > 1
      // A page with a variant per session varies with the cookie; reading the session is a database
      // read, so those routes are limited as unknown paths are.
      const vary = bySession ? 'accept-encoding, cookie' : 'accept-encoding'
      app.get(
        page.path,
        {
          schema: { hide: true },
          config: bySession ? { auth: 'optional' } : {},
          ...(bySession && app.rateLimit ? { onRequest: app.rateLimit({ max: 300, timeWindow: '1 minute' }) } : {}),
        },
        (request, reply) => {
          const variant: PrerenderVariant = bySession ? (request.session ? 'signed-in' : 'signed-out') : page.variants[0]!
          const document = queryFits(page, request) ? documents.get(variant) : undefined
          return document ? sendDocument(request, reply, document, 200, vary) : sendShell(request, reply, vary)
        },
      )
    }

    app.setNotFoundHandler(
      {
        // The security headers first, so even a 429 carries them; then the limit for unknown paths.
        preHandler: [
          async (request: FastifyRequest, reply: FastifyReply) => {
            reply.headers(app.securityHeadersFor(pathOf(request)))
          },
          ...(app.rateLimit ? [app.rateLimit({ max: 300, timeWindow: '1 minute' })] : []),
        ],
      },
      (request, reply) => {
        const path = pathOf(request)
        if (isApiPath(path)) {
          throw new AppError('NOT_FOUND', `No such API route: ${request.method} ${path}`)
        }
        if (request.method === 'GET' || request.method === 'HEAD') {
          // Asset-looking paths that do not exist are plain 404s, not the app.
          if (/\.[a-z0-9]{1,8}$/i.test(path) && !isBrowserRoute(path)) {
            throw new AppError('NOT_FOUND', 'Not found')
          }
          return sendShell(request, reply)
        }
        throw new AppError('NOT_FOUND', `Cannot ${request.method} ${path}`)
      },
    )
  },
  { name: 'web-app', dependencies: ['errors', 'security', 'auth'] },
)
