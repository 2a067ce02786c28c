import { sql, type AnyColumn, type SQL } from 'drizzle-orm'

/** `column in ('a', 'b')` for a check constraint built from one of the spec's value lists. */
export function inList(column: AnyColumn, values: readonly string[]): SQL {
  for (const value of values) {
    if (!/^[a-z0-9_]+$/.test(value)) throw new Error(`unsafe value for a check constraint: ${value}`)
  }
  return sql`${column} in (${sql.raw(values.map((value) => `'${value}'`).join(', '))})`
}
