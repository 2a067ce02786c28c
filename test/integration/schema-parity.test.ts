import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Database } from '#server/db/client'
import { createTestDatabase, hasPostgres, type TestDatabase } from '../helpers/db'

/** The same migrations must give the same schema on PGlite and on the PostgreSQL server. */
async function describeSchema(database: Database) {
  const columns = await database.db.execute(sql`
    select table_name, column_name, data_type, udt_name, is_nullable, column_default, character_maximum_length
    from information_schema.columns where table_schema = 'public'
    order by table_name, column_name`)
  const constraints = await database.db.execute(sql`
    select tc.table_name, tc.constraint_name, tc.constraint_type
    from information_schema.table_constraints tc
    where tc.table_schema = 'public' and tc.constraint_type <> 'CHECK' or
          (tc.table_schema = 'public' and tc.constraint_type = 'CHECK' and tc.constraint_name not like '%_not_null')
    order by tc.table_name, tc.constraint_name`)
  const checks = await database.db.execute(sql`
    select cc.constraint_name, cc.check_clause from information_schema.check_constraints cc
    join information_schema.table_constraints tc on tc.constraint_name = cc.constraint_name and tc.table_schema = 'public'
    where cc.constraint_name not like '%_not_null'
    order by cc.constraint_name`)
  const foreignKeys = await database.db.execute(sql`
    select rc.constraint_name, rc.update_rule, rc.delete_rule
    from information_schema.referential_constraints rc where rc.constraint_schema = 'public'
    order by rc.constraint_name`)
  const indexes = await database.db.execute(sql`
    select tablename, indexname, indexdef from pg_indexes where schemaname = 'public' order by tablename, indexname`)
  return {
    columns: rows(columns),
    constraints: rows(constraints),
    checks: rows(checks).map((row) => {
      const { constraint_name, check_clause } = row as { constraint_name: string; check_clause: string }
      return { constraint_name, check_clause: unwrap(check_clause) }
    }),
    foreignKeys: rows(foreignKeys),
    indexes: rows(indexes),
  }
}

/** PostgreSQL 15 prints a check clause inside one more pair of parentheses than 17 does. */
function unwrap(clause: string): string {
  let text = clause.trim()
  for (;;) {
    if (!text.startsWith('(') || !text.endsWith(')')) return text
    let depth = 0
    for (let i = 0; i < text.length; i++) {
      if (text[i] === '(') depth++
      else if (text[i] === ')') depth--
      if (depth === 0 && i < text.length - 1) return text
    }
    text = text.slice(1, -1).trim()
  }
}

function rows(result: unknown): unknown[] {
  return Array.isArray(result) ? result : ((result as { rows: unknown[] }).rows ?? [])
}

describe('schema parity', () => {
  let pglite: TestDatabase
  let server: TestDatabase | undefined

  beforeAll(async () => {
    pglite = await createTestDatabase('pglite')
    if (hasPostgres()) server = await createTestDatabase('postgres')
  })
  afterAll(async () => {
    await pglite?.destroy()
    await server?.destroy()
  })

  it('gives the same information_schema on PGlite and on PostgreSQL', async () => {
    if (!server) throw new Error('PostgreSQL is required for this test (it runs on 127.0.0.1:5432 or DATABASE_URL)')
    const [a, b] = await Promise.all([describeSchema(pglite), describeSchema(server)])
    expect(a.columns.length).toBeGreaterThan(100)
    expect(a.indexes.length).toBeGreaterThan(30)
    expect(a.checks.length).toBeGreaterThan(15)
    expect(a).toEqual(b)
  })
})
