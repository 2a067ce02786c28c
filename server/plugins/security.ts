import helmet from '@fastify/helmet'
import fp from 'fastify-plugin'

/**
 * Security headers with a Content-Security-Policy written for this app: scripts and styles from
 * our own origin only; Stripe's embedded checkout and the privacy-enhanced YouTube player are the
 * only third parties the app may frame or load.
 */
export default fp(
  async (app) => {
    await app.register(helmet, {
      global: true,
      contentSecurityPolicy: {
        useDefaults: false,
        directives: {
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
          upgradeInsecureRequests: app.config.secureCookies ? [] : null,
        },
      },
      crossOriginEmbedderPolicy: false,
      strictTransportSecurity: app.config.secureCookies ? { maxAge: 15552000, includeSubDomains: true } : false,
      referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
    })
  },
  { name: 'security', dependencies: ['context'] },
)
