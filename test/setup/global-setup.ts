/**
 * Finds the services the integration tests talk to, in the order of issue 2:
 * DATABASE_URL / REDIS_URL when set; else PostgreSQL and Redis on 127.0.0.1 when they answer;
 * else testcontainers when Docker exists; else PGlite for the database (and no Redis).
 * With CI=true a missing PostgreSQL or Redis is an error, never a skip.
 *
 * It migrates one template database; every test file clones its own from it (test/helpers/db.ts).
 */
import { randomBytes } from 'node:crypto'
import postgres from 'postgres'
import type { TestProject } from 'vitest/node'
import { openDatabase } from '#server/db/client'
import { canConnect, dockerAvailable } from './services'

declare module 'vitest' {
  export interface ProvidedContext {
    /** Admin URL of the PostgreSQL server (database "postgres"), or '' when tests run on PGlite. */
    pgAdminUrl: string
    /** Name of the migrated template database to clone. */
    pgTemplate: string
    /** Redis URL, or '' when none is available. */
    redisUrl: string
  }
}

function withDatabase(url: string, name: string): string {
  const parsed = new URL(url)
  parsed.pathname = `/${name}`
  return parsed.toString()
}

export default async function setup(project: TestProject) {
  const ci = process.env.CI === 'true' || process.env.CI === '1'
  const teardowns: Array<() => Promise<void>> = []

  // PostgreSQL
  let pgAdminUrl = ''
  if (process.env.DATABASE_URL) {
    pgAdminUrl = withDatabase(process.env.DATABASE_URL, 'postgres')
  } else if (await canConnect('127.0.0.1', 5432)) {
    pgAdminUrl = 'postgres://postgres@127.0.0.1:5432/postgres'
  } else if (dockerAvailable()) {
    const { GenericContainer, Wait } = await import('testcontainers')
    const container = await new GenericContainer('postgres:16-alpine')
      .withEnvironment({ POSTGRES_HOST_AUTH_METHOD: 'trust' })
      .withExposedPorts(5432)
      .withWaitStrategy(Wait.forLogMessage(/database system is ready to accept connections/, 2))
      .start()
    pgAdminUrl = `postgres://postgres@${container.getHost()}:${container.getMappedPort(5432)}/postgres`
    teardowns.push(async () => void (await container.stop()))
  } else if (ci) {
    throw new Error('CI=true but no PostgreSQL: set DATABASE_URL or run PostgreSQL on 127.0.0.1:5432')
  } else {
    console.warn('[tests] No PostgreSQL found: integration tests run on PGlite only.')
  }

  // Redis
  let redisUrl = ''
  if (process.env.REDIS_URL) {
    redisUrl = process.env.REDIS_URL
  } else if (await canConnect('127.0.0.1', 6379)) {
    redisUrl = 'redis://127.0.0.1:6379'
  } else if (dockerAvailable()) {
    const { GenericContainer, Wait } = await import('testcontainers')
    const container = await new GenericContainer('redis:7-alpine')
      .withExposedPorts(6379)
      .withWaitStrategy(Wait.forLogMessage(/Ready to accept connections/))
      .start()
    redisUrl = `redis://${container.getHost()}:${container.getMappedPort(6379)}`
    teardowns.push(async () => void (await container.stop()))
  } else if (ci) {
    throw new Error('CI=true but no Redis: set REDIS_URL or run Redis on 127.0.0.1:6379')
  } else {
    console.warn('[tests] No Redis found: tests that need Redis will fail with a clear message.')
  }

  let pgTemplate = ''
  if (pgAdminUrl) {
    pgTemplate = `mc_test_tpl_${randomBytes(4).toString('hex')}`
    const admin = postgres(pgAdminUrl, { max: 1, onnotice: () => {} })
    await admin.unsafe(`create database "${pgTemplate}"`)
    const template = await openDatabase({ databaseUrl: withDatabase(pgAdminUrl, pgTemplate), maxConnections: 2 })
    await template.migrate()
    await template.close()
    teardowns.push(async () => {
      // Drop the template and any per-file database of this run that a crashed file left behind.
      const leftovers = await admin<{ datname: string }[]>`
        select datname from pg_database where datname like ${`${pgTemplate}_%`}`
      for (const { datname } of leftovers) await admin.unsafe(`drop database if exists "${datname}" with (force)`)
      await admin.unsafe(`drop database if exists "${pgTemplate}" with (force)`)
      await admin.end()
    })
  }

  project.provide('pgAdminUrl', pgAdminUrl)
  project.provide('pgTemplate', pgTemplate)
  project.provide('redisUrl', redisUrl)

  return async () => {
    for (const teardown of teardowns.reverse()) await teardown()
  }
}
