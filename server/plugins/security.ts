import type { IncomingMessage, ServerResponse } from 'node:http'
import helmet from '@fastify/helmet'
import fp from 'fastify-plugin'
import { contentSecurityPolicy } from 'helmet'

/**
 * The app's Content-Security-Policy: scripts and styles from our own origin only; Stripe's embedded
 * checkout and the privacy-enhanced YouTube player are the only third parties it may load or frame.
 */
export function cspDirectives(secure: boolean) {
  return {
    defaultSrc: ["'self'"],
    baseUri: ["'self'"],
    scriptSrc: ["'self'", 'https://js.stripe.com'],
    styleSrc: ["'self'", "'unsafe-inline'"],
    imgSrc: ["'self'", 'data:', 'https:'],
    fontSrc: ["'self'", 'data:'],
    connectSrc: ["'self'", 'https://api.stripe.com'],
    frameSrc: ['https://js.stripe.com', 'https://checkout.stripe.com', 'https://www.youtube-nocookie.com'],
    mediaSrc: ["'self'", 'https:'],
    objectSrc: ["'none'"],
    formAction: ["'self'"],
    frameAncestors: ["'none'"],
    upgradeInsecureRequests: secure ? [] : null,
  }
}

/** Runs helmet's CSP middleware once and keeps the header it writes (it has no per-request part). */
function computeCsp(secure: boolean): string {
  let value = ''
  const res = {
    setHeader: (_name: string, headerValue: string) => {
      value = headerValue
    },
  } as unknown as ServerResponse
  contentSecurityPolicy({ useDefaults: false, directives: cspDirectives(secure) })({} as IncomingMessage, res, () => {})
  if (!value) throw new Error('security: could not build the Content-Security-Policy')
  return value
}

/** Security headers (@fastify/helmet) with the app's Content-Security-Policy on every response. */
export default fp(
  async (app) => {
    const secure = app.config.secureCookies
    const csp = computeCsp(secure)
    await app.register(helmet, {
      global: true,
      // Computed once above: helmet would rebuild the same string on every request.
      contentSecurityPolicy: false,
      crossOriginEmbedderPolicy: false,
      frameguard: { action: 'deny' },
      strictTransportSecurity: secure ? { maxAge: 15552000, includeSubDomains: true } : false,
      referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
    })
    app.addHook('onRequest', async (_request, reply) => {
      reply.header('content-security-policy', csp)
    })
  },
  { name: 'security', dependencies: ['context'] },
)
