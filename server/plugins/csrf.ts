import type { onRequestHookHandler } from 'fastify'
import fp from 'fastify-plugin'
import { WEBHOOKS_PREFIX } from '#common/webhooks'
import { forbidden } from '../lib/app-error'
import { addRouteHook, isApiPath } from '../lib/route-hooks'

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

/**
 * Refuses every state-changing /api request that is not same-origin: by Sec-Fetch-Site when the
 * browser sends it, else by Origin compared with APP_URL's origin. A request with neither header
 * cannot prove where it comes from and is refused too. Webhooks are authenticated by signature,
 * and routes declared `auth: 'token'` by the emailed token they carry (a one-click unsubscribe).
 */
export default fp(
  async (app) => {
    const appOrigin = app.config.appOrigin
    const crossSite = () => forbidden('Cross-site requests are not allowed.')
    const sameOrigin: onRequestHookHandler = (request, _reply, done) => {
      if (SAFE_METHODS.has(request.method)) return done()
      const site = request.headers['sec-fetch-site']
      if (typeof site === 'string') return done(site === 'same-origin' ? undefined : crossSite())
      const origin = request.headers.origin
      done(typeof origin === 'string' && origin === appOrigin ? undefined : crossSite())
    }
    // Decided once per route: only /api routes that change state (webhooks, and the routes an
    // emailed token authenticates, excepted) are checked.
    app.addHook('onRoute', (route) => {
      if (!isApiPath(route.url) || route.url.startsWith(WEBHOOKS_PREFIX)) return
      if ((route.config as { auth?: string } | undefined)?.auth === 'token') return
      if ([route.method].flat().every((method) => SAFE_METHODS.has(method))) return
      addRouteHook(route, 'onRequest', sameOrigin, 'last') // after the security headers, so a refusal carries them
    })
  },
  { name: 'csrf', dependencies: ['context'] },
)
