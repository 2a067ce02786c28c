import type { DbExecutor } from './client'

const cache = new WeakMap<DbExecutor, Map<string, unknown>>()

/**
 * A prepared Drizzle query, built once per database handle (Drizzle's "prepared statements":
 * the SQL text is rendered once instead of on every call, which is most of an ORM query's CPU).
 * Keyed by the handle, so a transaction gets its own copy and the query runs inside it.
 *
 *   const byUser = (db: DbExecutor) =>
 *     prepared(db, 'goals_by_user', (db) => db.select().from(goals).where(eq(goals.userId, sql.placeholder('userId'))).prepare('goals_by_user'))
 *   await byUser(db).execute({ userId })
 */
export function prepared<T>(db: DbExecutor, name: string, build: (db: DbExecutor) => T): T {
  let queries = cache.get(db)
  if (!queries) {
    queries = new Map()
    cache.set(db, queries)
  }
  let query = queries.get(name) as T | undefined
  if (query === undefined) {
    query = build(db)
    queries.set(name, query)
  }
  return query
}
