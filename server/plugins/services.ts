import fp from 'fastify-plugin'
import { systemClock, type Clock } from '../lib/clock'
import { memoryCounters, redisCounters, type Counters } from '../lib/counters'
import type { AccountDeps } from '../services/accounts'
import { createMailer, type Mailer } from '../services/mailer'

declare module 'fastify' {
  interface FastifyInstance {
    clock: Clock
    counters: Counters
    mailer: Mailer
    accountDeps: AccountDeps
  }
}

export type ServicesOptions = { clock?: Clock; redisPrefix?: string }

/** The app's shared service dependencies: the clock, the counters for per-account limits, mail. */
export default fp<ServicesOptions>(
  async (app, options) => {
    const clock = options.clock ?? systemClock
    const now = () => clock.now().getTime()
    const counters = app.redis ? redisCounters(app.redis, `${options.redisPrefix ?? 'mc:'}ct:`, now) : memoryCounters(now)
    const mailer = createMailer({ smtpUrl: app.config.smtpUrl, from: app.config.mailFrom, log: app.log as never })
    app.decorate('clock', clock)
    app.decorate('counters', counters)
    app.decorate('mailer', mailer)
    app.decorate('accountDeps', { db: app.db, clock, config: app.config, mailer, counters, log: app.log as never })
    app.addHook('onClose', async () => mailer.close())
  },
  { name: 'services', dependencies: ['context'] },
)
