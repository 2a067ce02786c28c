import type { FastifyReply, FastifyRequest, preHandlerHookHandler } from 'fastify'
import fp from 'fastify-plugin'
import {
  sessionCookieName,
  sessionCookieOptions,
  validateSessionToken,
  type NewSessionCookie,
  type ValidSession,
} from '../auth/session'
import { unauthenticated } from '../lib/app-error'

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in session, on routes whose config.auth is 'session' or 'optional'. */
    session: ValidSession | null
  }
  interface FastifyInstance {
    setSessionCookie(reply: FastifyReply, session: NewSessionCookie): void
    clearSessionCookie(reply: FastifyReply): void
  }
}

/**
 * Loads the session from the cookie on routes that declare `config.auth` ('session' refuses
 * anonymous requests with 401; 'optional' lets them through). Every per-user query then filters
 * by `request.session.user.id`, never by anything the client sends.
 */
export default fp(
  async (app) => {
    const cookieName = sessionCookieName(app.config)
    app.decorateRequest('session', null)

    app.decorate('setSessionCookie', (reply: FastifyReply, session: NewSessionCookie) => {
      reply.setCookie(cookieName, session.token, sessionCookieOptions(app.config, session, app.clock.now()))
    })
    app.decorate('clearSessionCookie', (reply: FastifyReply) => {
      reply.clearCookie(cookieName, { path: '/', httpOnly: true, sameSite: 'lax', secure: app.config.secureCookies })
    })

    const load = async (request: FastifyRequest, reply: FastifyReply) => {
      const token = request.cookies[cookieName]
      if (!token) return
      const session = await validateSessionToken(app.db, app.clock, token)
      if (!session) {
        app.clearSessionCookie(reply)
        return
      }
      request.session = session
      if (session.renewed) {
        reply.setCookie(cookieName, token, sessionCookieOptions(app.config, session, app.clock.now()))
      }
    }

    const optional: preHandlerHookHandler = async (request, reply) => load(request, reply)
    const required: preHandlerHookHandler = async (request, reply) => {
      await load(request, reply)
      if (!request.session) throw unauthenticated('Please log in to continue.')
    }

    app.addHook('onRoute', (route) => {
      const auth = (route.config as { auth?: string } | undefined)?.auth
      if (auth !== 'session' && auth !== 'optional') return
      const handler = auth === 'session' ? required : optional
      const existing = route.preHandler
      route.preHandler = existing ? [handler, ...(Array.isArray(existing) ? existing : [existing])] : [handler]
    })
  },
  { name: 'auth', dependencies: ['context', 'cookies', 'services'] },
)
