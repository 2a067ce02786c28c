import type { IncomingMessage, ServerResponse } from 'node:http'
import type { onRequestHookHandler } from 'fastify'
import fp from 'fastify-plugin'
import helmet, { type HelmetOptions } from 'helmet'
import { addRouteHook, isApiPath } from '../lib/route-hooks'

declare module 'fastify' {
  interface FastifyInstance {
    /** The security headers for a path outside any route (the not-found handler sends them). */
    securityHeadersFor(path: string): Readonly<Record<string, string>>
  }
}

/**
 * The app's Content-Security-Policy: scripts and styles from our own origin only; Stripe's embedded
 * checkout and the privacy-enhanced YouTube player are the only third parties it may load or frame.
 */
function cspDirectives(secure: boolean) {
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

const HSTS = { maxAge: 15552000, includeSubDomains: true }

/** helmet's options for the web app's documents and assets: its CSP, no COEP, no framing, HSTS behind HTTPS. */
function helmetOptions(secure: boolean): HelmetOptions {
  return {
    contentSecurityPolicy: { useDefaults: false, directives: cspDirectives(secure) },
    crossOriginEmbedderPolicy: false,
    xFrameOptions: { action: 'deny' },
    strictTransportSecurity: secure ? HSTS : false,
    referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
  }
}

/**
 * helmet's options for JSON API responses (OWASP REST Security Cheat Sheet): a CSP that allows
 * nothing and no framing, nosniff, same-origin resource policy, no referrer, HSTS behind HTTPS.
 * The document-only headers (COOP, Origin-Agent-Cluster, DNS prefetch, legacy IE/Flash/XSS-filter
 * switches) mean nothing on JSON and are left off: every API response is a little smaller.
 */
function apiHelmetOptions(secure: boolean): HelmetOptions {
  return {
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
    crossOriginEmbedderPolicy: false,
    crossOriginOpenerPolicy: false,
    crossOriginResourcePolicy: { policy: 'same-origin' },
    originAgentCluster: false,
    referrerPolicy: { policy: 'no-referrer' },
    strictTransportSecurity: secure ? HSTS : false,
    xContentTypeOptions: true,
    xDnsPrefetchControl: false,
    xDownloadOptions: false,
    xFrameOptions: { action: 'deny' },
    xPermittedCrossDomainPolicies: false,
    xPoweredBy: true,
    xXssProtection: false,
  }
}

/**
 * Runs helmet once and keeps the headers it writes. None of them depends on the request here (the
 * CSP has no nonce), so every response gets the same set without running helmet's middleware chain
 * again: it was a measurable part of an authenticated request's cost (`npm run bench -- me`).
 */
function securityHeaders(options: HelmetOptions): Record<string, string> {
  const headers: Record<string, string> = {}
  const res = {
    setHeader: (name: string, value: string | number) => {
      headers[name.toLowerCase()] = String(value)
    },
    removeHeader: (name: string) => {
      delete headers[name.toLowerCase()]
    },
  } as unknown as ServerResponse
  let done = false
  helmet(options)({} as IncomingMessage, res, (error?: unknown) => {
    if (error) throw error
    done = true
  })
  if (!done || !headers['content-security-policy']) throw new Error('security: helmet did not produce its headers')
  return headers
}

/**
 * Security headers (helmet) on every response: the document set for the web app, the API set for
 * /api. Which set a route sends is decided once, when the route is registered; a path no route
 * matches gets its set from the not-found handler (`app.securityHeadersFor`).
 */
export default fp(
  async (app) => {
    const documentHeaders = securityHeaders(helmetOptions(app.config.secureCookies))
    const apiHeaders = securityHeaders(apiHelmetOptions(app.config.secureCookies))
    const sender = (headers: Record<string, string>): onRequestHookHandler =>
      function sendSecurityHeaders(_request, reply, done) {
        reply.headers(headers)
        done()
      }
    const sendApiHeaders = sender(apiHeaders)
    const sendDocumentHeaders = sender(documentHeaders)
    app.decorate('securityHeadersFor', (path: string) => (isApiPath(path) ? apiHeaders : documentHeaders))
    app.addHook('onRoute', (route) => {
      addRouteHook(route, 'onRequest', isApiPath(route.url) ? sendApiHeaders : sendDocumentHeaders, 'first')
    })
  },
  { name: 'security', dependencies: ['context'] },
)
