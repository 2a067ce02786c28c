import fp from 'fastify-plugin'
import type { Redis } from 'ioredis'
import type { Config } from '../config'
import type { Database, Db } from '../db/client'

declare module 'fastify' {
  interface FastifyInstance {
    config: Config
    database: Database
    db: Db
    redis: Redis | undefined
  }
}

export type ContextOptions = {
  config: Config
  database: Database
  redis: Redis | undefined
}

/** Makes the configuration and the shared connections available to every plugin and route. */
export default fp<ContextOptions>(
  async (app, { config, database, redis }) => {
    app.decorate('config', config)
    app.decorate('database', database)
    app.decorate('db', database.db)
    app.decorate('redis', redis)
  },
  { name: 'context' },
)
