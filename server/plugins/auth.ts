import type { FastifyReply, FastifyRequest, preValidationAsyncHookHandler, RouteOptions } from 'fastify'
import fp from 'fastify-plugin'
import { isStaffRole, type StaffRole } from '#common/staff'
import { sessionCookieName, sessionCookieOptions, type NewSessionCookie, type ValidSession } from '../auth/session'
import type { User } from '../db/schema'
import { AppError, forbidden, unauthenticated } from '../lib/app-error'
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
  /**
   * A session that has passed the password, whether or not it has passed the code of two-factor
   * sign-in yet (the code step itself; 401 without a session). Every other route treats a session
   * still waiting for its code as none (docs/decisions/072).
   */
  | 'two-factor'
  /**
   * Staff with one of the route's `role`s, signed in with two-factor sign-in (docs/decisions/072):
   * anyone else who is not staff (signed out, a member) gets 404, as if the route did not exist;
   * staff without two-factor sign-in set up get 403 TWO_FACTOR_REQUIRED (the web app sends them
   * to set it up), and staff without the role 403 FORBIDDEN.
   */
  | 'staff'

/** The staff roles a route accepts (any one of them): `config: { auth: 'staff', role: 'operator' }`. */
export type RouteRole = StaffRole | readonly StaffRole[]

/** A route and what it declared: who may call it, and whether its responses may be cached. */
type RouteAccess = {
  method: string
  url: string
  auth: RouteAuth | undefined
  /** The staff roles a route of `auth: 'staff'` accepts. */
  roles: readonly StaffRole[] | undefined
  cache: 'no-store' | undefined
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may call the route; every /api route declares it (the OpenAPI document shows it). */
    auth?: RouteAuth
    /** With `auth: 'staff'` (and only then): the staff role, or roles, the route accepts. */
    role?: RouteRole
    /** `no-store` on routes that return personal data. */
    cache?: 'no-store'
  }
  interface FastifyRequest {
    /**
     * The signed-in session, or null (loaded on routes whose auth is 'optional', 'session', 'paid',
     * 'staff' or 'two-factor'). Only on 'two-factor' routes can it be a session still waiting for
     * its code; elsewhere such a session is `pendingSession`, and this is null.
     */
    session: ValidSession | null
    /** A session waiting for its two-factor code, on a route other than the code step's (sign-out ends it). */
    pendingSession: ValidSession | null
    /** The signed-in staff member's roles; for routes whose auth is 'staff'. */
    staffRoles: readonly StaffRole[]
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
const kStaffRoles = Symbol('staffRoles')
type WithAccess = FastifyRequest & { [kAccess]?: Access }

type GuardedAuth = 'optional' | 'session' | 'paid' | 'two-factor' | 'staff'
const GUARDED = new Set<RouteAuth>(['optional', 'session', 'paid', 'two-factor', 'staff'])

/** The 404 of a path no route serves (the not-found handler's): a staff route says no more than that to anyone else. */
const noSuchRoute = (request: FastifyRequest) => new AppError('NOT_FOUND', `No such API route: ${request.method} ${request.url.split('?')[0]}`)

const twoFactorRequired = () => new AppError('TWO_FACTOR_REQUIRED')

/**
 * Loads the session from the cookie on routes that declare `config.auth` 'optional', 'session',
 * 'paid', 'two-factor' or 'staff' (with `config.role`), and enforces it: one hook, declared per
 * route as configuration. Every per-user query then filters by `request.user.id`, never by
 * anything the client sends. `config.cache: 'no-store'` marks responses that must not be cached.
 */
export default fp(
  async (app) => {
    const cookieName = sessionCookieName(app.config)
    const { accounts, staff } = app.services
    const clock = app.services.clock
    const routeAccess: RouteAccess[] = []
    app.decorate('routeAccess', routeAccess)
    app.decorateRequest('session', null)
    app.decorateRequest('pendingSession', null)
    app.decorateRequest('staffRoles', {
      getter(this: FastifyRequest & { [kStaffRoles]?: readonly StaffRole[] }) {
        const roles = this[kStaffRoles]
        if (!roles) throw new Error('request.staffRoles is read on a route whose auth is not staff')
        return roles
      },
    })
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
    const guardFor = (auth: GuardedAuth | undefined, roles: readonly StaffRole[] | undefined, noStore: boolean): preValidationAsyncHookHandler =>
      async function routeGuard(request, reply) {
        if (noStore) reply.header('cache-control', 'no-store')
        if (auth === undefined) return
        const token = request.cookies[cookieName]
        if (token) {
          const session = await accounts.validateSession(token)
          if (!session) {
            app.clearSessionCookie(reply)
          } else {
            // A session still waiting for its two-factor code counts only on the code step's routes.
            if (session.twoFactor === 'pending' && auth !== 'two-factor') request.pendingSession = session
            else request.session = session
            if (session.renewed) reply.setCookie(cookieName, token, sessionCookieOptions(app.config, session, clock.now()))
          }
        }
        if (auth === 'optional') return
        if (auth === 'staff') {
          // Not staff (nobody, a member, a session without its code): as if the route did not exist.
          if (!request.session) throw noSuchRoute(request)
          const held = await staff.rolesOf(request.session.user.id)
          if (held.length === 0) throw noSuchRoute(request)
          if (request.session.twoFactor !== 'verified') throw twoFactorRequired()
          if (!held.some((role) => roles!.includes(role))) throw forbidden('This page is for other staff roles.')
          ;(request as FastifyRequest & { [kStaffRoles]?: readonly StaffRole[] })[kStaffRoles] = held
          return
        }
        if (!request.session) throw request.pendingSession ? new AppError('TWO_FACTOR_PENDING') : unauthenticated()
        if (auth === 'paid') assertPaid(request.access)
      }

    app.addHook('onRoute', (route: RouteOptions) => {
      const config = route.config as { auth?: RouteAuth; role?: RouteRole; cache?: 'no-store' } | undefined
      const auth = config?.auth
      if (auth === undefined && route.url.startsWith('/api/')) {
        throw new Error(`${String(route.method)} ${route.url} must declare config.auth`)
      }
      const roles = config?.role === undefined ? undefined : ([config.role].flat() as StaffRole[])
      if (auth === 'staff' && (!roles || roles.length === 0 || !roles.every(isStaffRole))) {
        throw new Error(`${String(route.method)} ${route.url} is a staff route: it must declare config.role (one of the staff roles, or a list of them)`)
      }
      if (auth !== 'staff' && roles !== undefined) throw new Error(`${String(route.method)} ${route.url} declares config.role without auth: 'staff'`)
      for (const method of [route.method].flat()) routeAccess.push({ method, url: route.url, auth, roles, cache: config?.cache })
      // At most one hook per route: the guard, with the cache header folded in where declared. It
      // runs before validation, so a caller without access learns nothing of a route's rules (a 401,
      // or a staff route's 404, whatever it sends), and before the per-route rate limits, which
      // count per signed-in user.
      const guarded = auth && GUARDED.has(auth) ? (auth as GuardedAuth) : undefined
      const noStore = config?.cache === 'no-store'
      if (!guarded && !noStore) return
      addRouteHook(route, 'preValidation', guardFor(guarded, roles, noStore), 'first')
    })
  },
  { name: 'auth', dependencies: ['context', 'cookies'] },
)
