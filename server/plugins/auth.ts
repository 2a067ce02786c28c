import type { FastifyReply, FastifyRequest, preValidationAsyncHookHandler, RouteOptions } from 'fastify'
import fp from 'fastify-plugin'
import { sessionCookieName, sessionCookieOptions, type NewSessionCookie, type ValidSession } from '../auth/session'
import type { User } from '../db/schema'
import { unauthenticated } from '../lib/app-error'
import { addRouteHook } from '../lib/route-hooks'
import { assertPaid, decideAccess, type Access } from '#server/services/billing'

/** Who may call a route. */
export type RouteAuth =
  /** Anyone. */
  | 'none'
  /** Anyone; the session is loaded when there is one. */
  | 'optional'
  /** A signed-in user (401 otherwise). */
  | 'session'
  /** A signed-in user with a paid plan by the one paid rule (401, then 403 PAYMENT_REQUIRED). */
  | 'paid'
  /** A provider, authenticated by the request's signature (the route verifies it). */
  | 'webhook'
  /**
   * Whoever holds an emailed link's token (a report's one-click unsubscribe, which a mail provider
   * POSTs with no cookie and from no page of ours): the route verifies the token; no session, and
   * no same-origin check (the token is the credential).
   */
  | 'token'

/** A route and what it declared: who may call it, and whether its responses may be cached. */
type RouteAccess = { method: string; url: string; auth: RouteAuth | undefined; cache: 'no-store' | undefined }

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may call the route; every /api route declares it (the OpenAPI document shows it). */
    auth?: RouteAuth
    /** `no-store` on routes that return personal data. */
    cache?: 'no-store'
  }
  interface FastifyRequest {
    /** The signed-in session, or null (loaded on routes whose auth is 'optional', 'session' or 'paid'). */
    session: ValidSession | null
    /** The signed-in user; for routes whose auth is 'session' or 'paid' (401 when there is no session). */
    readonly user: User
    /** The id of the request's session; for routes whose auth is 'session' or 'paid' (the account page's session list). */
    readonly sessionId: string
    /** The signed-in user's access by the paid rule, decided once per request from the session's row. */
    readonly access: Access
  }
  interface FastifyInstance {
    /** Every route and who may call it, as declared (what the guard enforces). */
    readonly routeAccess: ReadonlyArray<RouteAccess>
    setSessionCookie(reply: FastifyReply, session: NewSessionCookie): void
    clearSessionCookie(reply: FastifyReply): void
  }
}

const kAccess = Symbol('access')
type WithAccess = FastifyRequest & { [kAccess]?: Access }

const GUARDED = new Set<RouteAuth>(['optional', 'session', 'paid'])

/**
 * Loads the session from the cookie on routes that declare `config.auth` 'optional', 'session'
 * or 'paid', and enforces it: one hook, declared per route as configuration. Every per-user query
 * then filters by `request.user.id`, never by anything the client sends. `config.cache:
 * 'no-store'` marks responses that must not be cached.
 */
export default fp(
  async (app) => {
    const cookieName = sessionCookieName(app.config)
    const { accounts } = app.services
    const clock = app.services.clock
    const routeAccess: RouteAccess[] = []
    app.decorate('routeAccess', routeAccess)
    app.decorateRequest('session', null)
    app.decorateRequest('user', {
      getter(this: FastifyRequest) {
        if (!this.session) throw unauthenticated()
        return this.session.user
      },
    })
    app.decorateRequest('sessionId', {
      getter(this: FastifyRequest) {
        if (!this.session) throw unauthenticated()
        return this.session.id
      },
    })
    app.decorateRequest('access', {
      getter(this: WithAccess) {
        if (!this.session) throw unauthenticated()
        this[kAccess] ??= decideAccess(this.session.profile, clock.now())
        return this[kAccess]
      },
    })

    app.decorate('setSessionCookie', (reply: FastifyReply, session: NewSessionCookie) => {
      reply.setCookie(cookieName, session.token, sessionCookieOptions(app.config, session, clock.now()))
    })
    app.decorate('clearSessionCookie', (reply: FastifyReply) => {
      reply.clearCookie(cookieName, { path: '/', httpOnly: true, sameSite: 'lax', secure: app.config.secureCookies })
    })

    /**
     * A route's one guard hook: the cache header where declared, then the session from the cookie
     * (cleared when it is not valid, re-sent when renewed), then what the route's auth demands.
     * One async function per request, not a chain of them (`npm run bench -- me`, ADR 037).
     */
    const guardFor = (auth: 'optional' | 'session' | 'paid' | undefined, noStore: boolean): preValidationAsyncHookHandler =>
      async function routeGuard(request, reply) {
        if (noStore) reply.header('cache-control', 'no-store')
        if (auth === undefined) return
        const token = request.cookies[cookieName]
        if (token) {
          const session = await accounts.validateSession(token)
          if (!session) {
            app.clearSessionCookie(reply)
          } else {
            request.session = session
            if (session.renewed) reply.setCookie(cookieName, token, sessionCookieOptions(app.config, session, clock.now()))
          }
        }
        if (auth === 'optional') return
        if (!request.session) throw unauthenticated()
        if (auth === 'paid') assertPaid(request.access)
      }

    app.addHook('onRoute', (route: RouteOptions) => {
      const config = route.config as { auth?: RouteAuth; cache?: 'no-store' } | undefined
      const auth = config?.auth
      if (auth === undefined && route.url.startsWith('/api/')) {
        throw new Error(`${String(route.method)} ${route.url} must declare config.auth`)
      }
      for (const method of [route.method].flat()) routeAccess.push({ method, url: route.url, auth, cache: config?.cache })
      // At most one hook per route: the guard, with the cache header folded in where declared. It
      // runs before validation, so an anonymous caller learns nothing of a route's rules (a 401
      // whatever it sends), and before the per-route rate limits, which count per signed-in user.
      const guarded = auth && GUARDED.has(auth) ? (auth as 'optional' | 'session' | 'paid') : undefined
      const noStore = config?.cache === 'no-store'
      if (!guarded && !noStore) return
      addRouteHook(route, 'preValidation', guardFor(guarded, noStore), 'first')
    })
  },
  { name: 'auth', dependencies: ['context', 'cookies'] },
)
