import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import fastifyStatic from '@fastify/static'
import type { FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { isBrowserRoute } from '#common/routes'
import { AppError } from '../lib/app-error'
import { isApiPath } from '../lib/route-hooks'

export type WebAppOptions = {
  /** The built web app (web/dist). */
  root: string
}

const pathOf = (request: FastifyRequest) => request.url.split('?')[0] ?? '/'

const NOT_BUILT = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Momentum Coach</title></head>
<body><main><h1>The web app is not built</h1><p>Run <code>npm run build</code>, then reload.</p></main></body></html>`

/**
 * Serves the built React app: hashed assets with long caching, and index.html for every
 * non-/api path so each route loads directly by URL (404 status for paths outside the route map,
 * where the app shows its not-found page). Unknown /api paths are 404 JSON.
 */
export default fp<WebAppOptions>(
  async (app, { root }) => {
    const indexPath = join(root, 'index.html')
    const built = existsSync(indexPath)
    let indexHtml: string | undefined = built ? readFileSync(indexPath, 'utf8') : undefined

    if (built) {
      await app.register(fastifyStatic, {
        root,
        prefix: '/',
        wildcard: false,
        index: false,
        serveDotFiles: false,
        allowedPath: (path) => !path.startsWith('/api/') && path !== '/index.html',
        setHeaders: (res, path) => {
          if (path.includes(`${join(root, 'assets')}`)) {
            res.header('cache-control', 'public, max-age=31536000, immutable')
          } else {
            res.header('cache-control', 'public, max-age=300')
          }
        },
      })
    }

    const sendApp = (request: FastifyRequest, reply: FastifyReply) => {
      const path = pathOf(request)
      if (!indexHtml && built) indexHtml = readFileSync(indexPath, 'utf8')
      return reply
        .code(built ? (isBrowserRoute(path) ? 200 : 404) : 503)
        .header('cache-control', 'no-cache')
        .type('text/html; charset=utf-8')
        .send(indexHtml ?? NOT_BUILT)
    }

    app.get('/', { schema: { hide: true } }, sendApp)

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
          return sendApp(request, reply)
        }
        throw new AppError('NOT_FOUND', `Cannot ${request.method} ${path}`)
      },
    )
  },
  { name: 'web-app', dependencies: ['errors', 'security'] },
)
