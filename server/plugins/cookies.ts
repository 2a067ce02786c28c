import cookie from '@fastify/cookie'
import fp from 'fastify-plugin'

/** Cookie parsing and serialising. Session cookies are not signed: their secret part is the protection. */
export default fp(
  async (app) => {
    await app.register(cookie, { parseOptions: { path: '/', sameSite: 'lax', httpOnly: true } })
  },
  { name: 'cookies' },
)
