import fp from 'fastify-plugin'
import { routedPath } from '../lib/api-route'
import { forbidden } from '../lib/app-error'

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

/**
 * Refuses every state-changing /api request that is not same-origin: by Sec-Fetch-Site when the
 * browser sends it, else by Origin compared with APP_URL's origin. A request with neither header
 * cannot prove where it comes from and is refused too. Webhooks are authenticated by signature.
 */
export default fp(
  async (app) => {
    const appOrigin = app.config.appOrigin
    const crossSite = () => forbidden('Cross-site requests are not allowed.')
    app.addHook('onRequest', (request, _reply, done) => {
      if (SAFE_METHODS.has(request.method)) return done()
      const path = routedPath(request)
      if (!path.startsWith('/api/') || path.startsWith('/api/webhooks/')) return done()
      const site = request.headers['sec-fetch-site']
      if (typeof site === 'string') return done(site === 'same-origin' ? undefined : crossSite())
      const origin = request.headers.origin
      done(typeof origin === 'string' && origin === appOrigin ? undefined : crossSite())
    })
  },
  { name: 'csrf', dependencies: ['context'] },
)
