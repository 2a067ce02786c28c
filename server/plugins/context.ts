import fp from 'fastify-plugin'
import type { Redis } from 'ioredis'
import type { Config } from '../config'
import type { Services } from '../container'
import type { Database, Db } from '../db/client'

declare module 'fastify' {
  interface FastifyInstance {
    config: Config
    database: Database
    db: Db
    redis: Redis | undefined
    /** Every service, built once by createServices (server/container.ts); routes only read it. */
    services: Services
  }
}

type ContextOptions = {
  config: Config
  database: Database
  redis: Redis | undefined
  services: Services
}

/** Makes the configuration, the shared connections and the services available to every plugin and route. */
export default fp<ContextOptions>(
  async (app, { config, database, redis, services }) => {
    app.decorate('config', config)
    app.decorate('database', database)
    app.decorate('db', database.db)
    app.decorate('redis', redis)
    app.decorate('services', services)
  },
  { name: 'context' },
)
