import { randomBytes } from 'node:crypto'
import postgres from 'postgres'
import { inject } from 'vitest'
import { openDatabase, type Database, type DatabaseDriver } from '#server/db/client'

export type TestDatabase = Database & {
  /** Connection string of this file's own database ('' on PGlite). */
  url: string
  /** Closes the handle and drops the database. */
  destroy(): Promise<void>
}

/** Whether a real PostgreSQL server is available to this run. */
export const hasPostgres = () => inject('pgAdminUrl') !== ''

function withDatabase(url: string, name: string): string {
  const parsed = new URL(url)
  parsed.pathname = `/${name}`
  return parsed.toString()
}

/**
 * A fresh, migrated database for one test file: a clone of the run's template on PostgreSQL,
 * or an in-memory PGlite (migrated here) when asked for or when no PostgreSQL exists.
 */
export async function createTestDatabase(driver?: DatabaseDriver): Promise<TestDatabase> {
  const adminUrl = inject('pgAdminUrl')
  const want = driver ?? (adminUrl ? 'postgres' : 'pglite')
  if (want === 'pglite') {
    const database = await openDatabase({ inMemory: true })
    await database.migrate()
    return { ...database, url: '', destroy: () => database.close() }
  }
  if (!adminUrl) throw new Error('PostgreSQL is not available to this test run')
  const template = inject('pgTemplate')
  const name = `${template}_${randomBytes(5).toString('hex')}`
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} })
  try {
    await admin.unsafe(`create database "${name}" template "${template}"`)
  } finally {
    await admin.end()
  }
  const url = withDatabase(adminUrl, name)
  const database = await openDatabase({ databaseUrl: url, maxConnections: 5 })
  return {
    ...database,
    url,
    async destroy() {
      await database.close()
      const cleanup = postgres(adminUrl, { max: 1, onnotice: () => {} })
      try {
        await cleanup.unsafe(`drop database if exists "${name}" with (force)`)
      } finally {
        await cleanup.end()
      }
    },
  }
}
