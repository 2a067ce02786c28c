import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { btree_gist } from '@electric-sql/pglite/contrib/btree_gist'
import { sql } from 'drizzle-orm'
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core'
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite'
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator'
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js'
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator'
import postgres from 'postgres'
import { PROJECT_ROOT } from '../lib/project-root'
import { traceQueries } from '../observability/tracing'
import * as schema from './schema'

export type Schema = typeof schema
/** The one database handle every service receives, whichever driver is behind it. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>
/** A transaction or the database itself: services that must join a caller's transaction take this. */
export type DbExecutor = Parameters<Parameters<Db['transaction']>[0]>[0] | Db

export type DatabaseDriver = 'postgres' | 'pglite'

export type Database = {
  db: Db
  driver: DatabaseDriver
  /** Applies the committed migrations (safe to call from several processes at once on PostgreSQL). */
  migrate(): Promise<void>
  /** Throws when the database does not answer. */
  ping(): Promise<void>
  /** How many of the committed migrations this database has not applied (/readyz: 0 when ready). */
  pendingMigrations(): Promise<number>
  close(): Promise<void>
}

/** The committed migrations' instants (drizzle's journal), read once. */
let journal: number[] | undefined
function committedMigrations(): number[] {
  journal ??= (JSON.parse(readFileSync(join(MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8')) as { entries: Array<{ when: number }> }).entries.map((entry) => entry.when)
  return journal
}

/**
 * Drizzle's migrator records each applied migration with its journal instant (`created_at`) in
 * drizzle.__drizzle_migrations and applies those later than the last one recorded: those are the
 * pending ones (all of them before the first migration).
 */
async function countPending(db: Db): Promise<number> {
  const rowsOf = <T>(result: unknown): T[] => (Array.isArray(result) ? result : (result as { rows: T[] }).rows)
  const [table] = rowsOf<{ name: string | null }>(await db.execute(sql`select to_regclass('drizzle.__drizzle_migrations')::text as name`))
  let last = Number.NEGATIVE_INFINITY
  if (table?.name) {
    const [row] = rowsOf<{ last: string | number | null }>(await db.execute(sql`select max(created_at) as last from drizzle.__drizzle_migrations`))
    if (row?.last !== null && row?.last !== undefined) last = Number(row.last)
  }
  return committedMigrations().filter((when) => when > last).length
}

export const MIGRATIONS_FOLDER = join(PROJECT_ROOT, 'migrations')

// Any constant works; it only has to be the same in every process of this app.
const MIGRATION_LOCK_KEY = 727_100_001

type OpenDatabaseOptions =
  | { databaseUrl: string; maxConnections?: number }
  | { dataDir: string }
  | { inMemory: true }

export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  if ('databaseUrl' in options) return openPostgres(options.databaseUrl, options.maxConnections ?? 10)
  if (!('dataDir' in options)) return openPglite(undefined)
  const dir = join(options.dataDir, 'pglite')
  mkdirSync(dir, { recursive: true })
  const release = lockDataDir(options.dataDir)
  try {
    const database = await openPglite(dir)
    return {
      ...database,
      async close() {
        try {
          await database.close()
        } finally {
          release()
        }
      },
    }
  } catch (error) {
    release()
    throw error
  }
}

/** The embedded database's directory is held by another process (PGlite itself does not lock it). */
export class DataDirInUseError extends Error {
  readonly dataDir: string
  readonly pid: number
  constructor(dataDir: string, pid: number) {
    super(
      `The embedded database in ${dataDir} is in use by another process (pid ${pid}), most likely the server (npm start). ` +
        'Only one process at a time may open it: stop that process first, then run this again (or use DATABASE_URL).',
    )
    this.name = 'DataDirInUseError'
    this.dataDir = dataDir
    this.pid = pid
  }
}

/** The data directories this process holds open. */
const heldDataDirs = new Set<string>()

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: it exists, and belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * Takes `<dataDir>/pglite.pid` for this process, or throws DataDirInUseError while another live
 * process holds it. PGlite (one PostgreSQL in this process's memory) never notices another process
 * writing the same files, and two at once lose or corrupt data; so the server, the worker and the
 * commands (`npm run staff:add`, `db:migrate`, `db:seed`) each take the directory for as long as
 * they have it open. A file left by a process that has died (a crash, a kill) is taken over: its
 * pid is not alive, or is this process's own (a container restarted with the same pid).
 */
function lockDataDir(dataDir: string): () => void {
  const key = resolve(dataDir)
  if (heldDataDirs.has(key)) throw new DataDirInUseError(dataDir, process.pid)
  const path = join(dataDir, 'pglite.pid')
  for (let attempt = 0; ; attempt++) {
    // Written beside it, then linked into place: the file appears with its pid in it, or not at all.
    const mine = `${path}.${process.pid}`
    writeFileSync(mine, `${process.pid}\n`)
    try {
      linkSync(mine, path)
      break
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      const holder = Number.parseInt(readFileSync(path, 'utf8'), 10)
      const live = Number.isInteger(holder) && holder > 0 && holder !== process.pid && processIsAlive(holder)
      // Taken over once; taken by someone else meanwhile, it is theirs.
      if (live || attempt > 0) throw new DataDirInUseError(dataDir, holder)
      rmSync(path, { force: true })
    } finally {
      rmSync(mine, { force: true })
    }
  }
  heldDataDirs.add(key)
  return () => {
    heldDataDirs.delete(key)
    try {
      if (Number.parseInt(readFileSync(path, 'utf8'), 10) === process.pid) rmSync(path, { force: true })
    } catch {
      // gone already
    }
  }
}

function openPostgres(url: string, max: number): Database {
  const client = traceQueries(
    postgres(url, {
      max,
      onnotice: () => {},
      connection: { application_name: 'momentum-coach' },
    }),
    url,
  )
  const db = drizzlePostgres({ client, schema, casing: 'snake_case' }) as unknown as Db
  return {
    db,
    driver: 'postgres',
    async migrate() {
      const lock = await client.reserve()
      try {
        await lock`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`
        await migratePostgres(drizzlePostgres({ client, casing: 'snake_case' }), {
          migrationsFolder: MIGRATIONS_FOLDER,
        })
      } finally {
        await lock`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`.catch(() => {})
        lock.release()
      }
    },
    async ping() {
      await db.execute(sql`select 1`)
    },
    pendingMigrations: () => countPending(db),
    async close() {
      await client.end({ timeout: 5 })
    },
  }
}

/** The embedded database's extensions: btree_gist, for the 1-on-1 sessions' exclusion constraint (a coach's uuid beside a time range). */
export const PGLITE_OPTIONS = { extensions: { btree_gist } }

async function openPglite(dir: string | undefined): Promise<Database> {
  const client = dir ? await PGlite.create(dir, PGLITE_OPTIONS) : await PGlite.create(PGLITE_OPTIONS)
  const db = drizzlePglite({ client, schema, casing: 'snake_case' }) as unknown as Db
  return {
    db,
    driver: 'pglite',
    async migrate() {
      await migratePglite(drizzlePglite({ client, casing: 'snake_case' }), { migrationsFolder: MIGRATIONS_FOLDER })
    },
    async ping() {
      await db.execute(sql`select 1`)
    },
    pendingMigrations: () => countPending(db),
    async close() {
      if (!client.closed) await client.close()
    },
  }
}
