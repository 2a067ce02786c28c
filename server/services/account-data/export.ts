/**
 * "Export my data": one ZIP with a JSON file per area and a README.md that explains each file
 * (docs/decisions/051). It is written as it is sent: each file's rows are read a page at a time
 * (keyset paging, every read filtered by the person) only when the archive reaches that file, so
 * neither the archive nor a file is ever whole in memory, and a slow download slows the reads.
 */
import { Readable } from 'node:stream'
import type { ZipArchive } from 'archiver'
import { and, asc, eq, getTableColumns, lte, sql, type SQL } from 'drizzle-orm'
import { toSnakeCase } from 'drizzle-orm/casing'
import type { PgColumn } from 'drizzle-orm/pg-core'
import type { Db } from '#server/db/client'
import { accountDataExports } from '#server/db/schema'
import { AppError } from '#server/lib/app-error'
import { EXPORT_FILES, NOT_EXPORTED, type ExportFile, type UserDataPart } from './tables'

/** At most one export per person in this long (on any number of servers: the claim is a row). */
const EXPORT_INTERVAL_MS = 10 * 60_000
/** Rows read per query. */
const EXPORT_PAGE_SIZE = 200

const KEY_PREFIX = '__key'

/**
 * Claims the person's export: at most one in EXPORT_INTERVAL_MS, decided by one statement on the
 * person's row (an insert, or an update only when the last export is old enough), so two servers
 * asked at once cannot both say yes. 429 with the wait otherwise.
 */
export async function claimExport(db: Db, userId: string, now: Date): Promise<void> {
  const claimed = await db
    .insert(accountDataExports)
    .values({ userId, lastStartedAt: now })
    .onConflictDoUpdate({ target: accountDataExports.userId, set: { lastStartedAt: now }, setWhere: lte(accountDataExports.lastStartedAt, new Date(now.getTime() - EXPORT_INTERVAL_MS)) })
    .returning({ userId: accountDataExports.userId })
  if (claimed.length > 0) return
  const [last] = await db.select({ at: accountDataExports.lastStartedAt }).from(accountDataExports).where(eq(accountDataExports.userId, userId))
  const waitMs = (last?.at.getTime() ?? now.getTime()) + EXPORT_INTERVAL_MS - now.getTime()
  const retryAfter = Math.max(1, Math.ceil(waitMs / 1000))
  const minutes = Math.max(1, Math.ceil(retryAfter / 60))
  throw new AppError('RATE_LIMITED', `You can export your data once every 10 minutes. Please try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`, { retryAfter })
}

/** What a part selects: its columns under their database names (secrets left out), its extras, and its paging keys as text. */
function selectionOf(part: UserDataPart): Record<string, PgColumn | SQL> {
  const selection: Record<string, PgColumn | SQL> = {}
  const omit = new Set(part.omit ?? [])
  for (const [key, column] of Object.entries(getTableColumns(part.table))) {
    if (!omit.has(key)) selection[toSnakeCase(key)] = column
  }
  for (const [name, expression] of Object.entries(part.extra ?? {})) selection[name] = expression
  // The keys as text: a timestamp read into a Date would lose its microseconds, and the next
  // page, asked for "after" it, would start with the same row again.
  part.orderBy.forEach((column, index) => (selection[`${KEY_PREFIX}${index}`] = sql<string>`${column}::text`))
  return selection
}

/** The person's rows of one part, in its order, a page at a time. */
export async function* partRows(db: Db, part: UserDataPart, userId: string, pageSize = EXPORT_PAGE_SIZE): AsyncGenerator<Record<string, unknown>> {
  const selection = selectionOf(part)
  let after: string[] | null = null
  for (;;) {
    const where: SQL = after
      ? and(
          part.rowsOf(userId),
          sql`(${sql.join([...part.orderBy], sql`, `)}) > (${sql.join(
            after.map((value, index) => sql`${value}::${sql.raw(part.orderBy[index]!.getSQLType())}`),
            sql`, `,
          )})`,
        )!
      : part.rowsOf(userId)
    const rows = (await db
      .select(selection)
      .from(part.table)
      .where(where)
      .orderBy(...part.orderBy.map((column) => asc(column)))
      .limit(pageSize)) as Array<Record<string, unknown>>
    for (const row of rows) {
      const out: Record<string, unknown> = {}
      for (const [key, value] of Object.entries(row)) if (!key.startsWith(KEY_PREFIX)) out[key] = value
      yield out
    }
    if (rows.length < pageSize) return
    const last = rows[rows.length - 1]!
    after = part.orderBy.map((_column, index) => last[`${KEY_PREFIX}${index}`] as string)
  }
}

const indent = (json: string, spaces: string) => json.replace(/\n/g, `\n${spaces}`)

/** One file's JSON, as text pieces: `{"<part>": [rows...], ...}`, pretty-printed. */
async function* fileJson(db: Db, file: ExportFile, userId: string): AsyncGenerator<string> {
  yield '{'
  for (const [partIndex, part] of file.parts.entries()) {
    yield `${partIndex === 0 ? '' : ','}\n  ${JSON.stringify(part.key)}: [`
    let first = true
    for await (const row of partRows(db, part, userId)) {
      yield `${first ? '' : ','}\n    ${indent(JSON.stringify(row, null, 2), '    ')}`
      first = false
    }
    yield first ? ']' : '\n  ]'
  }
  yield '\n}\n'
}

/** The README: what the archive is and what each file holds. */
function exportReadme(input: { email: string; generatedAt: Date }): string {
  const lines = [
    '# Your Momentum Coach data',
    '',
    `Everything Momentum Coach keeps about the account ${input.email}, as it was on ${input.generatedAt.toISOString()} (UTC).`,
    '',
    'Each file below is JSON (UTF-8). A file is one object whose keys are the parts listed under it; each part is a list of records, one per stored row, with the field names the database uses. Times are ISO 8601 in UTC; dates without a time (a call\'s local date, a report\'s week) are in your time zone; ids (uuid) tie records together (for example a timeline entry\'s call_id is the id of a call in calls.json).',
    '',
    'Secrets are never included: not your password (we keep only a one-way hash, left out too), not the keys of your sessions, not the tokens of emailed links or unsubscribe links.',
    '',
  ]
  for (const file of EXPORT_FILES) {
    lines.push(`## ${file.name}: ${file.title}`, '', file.about, '')
    for (const part of file.parts) lines.push(`- \`${part.key}\`: ${part.description}`)
    lines.push('')
  }
  lines.push(
    '## Not in this archive',
    '',
    '- Invoices, receipts and card details: Stripe, our payment processor, holds them; the billing portal (Account, Billing) shows them.',
    '- The course catalogue itself (lessons, videos, quizzes): it is the same for everyone; courses.json names the courses, lessons and questions yours refer to.',
    ...NOT_EXPORTED.map((part) => `- ${part.why}`),
    '',
    'To correct something, change it in the app; to have everything deleted, use "Delete my account" on the account page.',
    '',
  )
  return lines.join('\n')
}

/** `momentum-coach-data-2026-11-25.zip` */
export const exportFileName = (now: Date) => `momentum-coach-data-${now.toISOString().slice(0, 10)}.zip`

/**
 * The archive as a stream (its entries are read as it is consumed). `onError` hears a failure
 * after the first bytes (the download then ends without the ZIP's directory: not a valid file).
 * archiver is loaded by the first export, not by every start (docs/decisions/066).
 */
export async function exportArchive(db: Db, user: { id: string; email: string }, now: Date, onError: (error: Error) => void): Promise<ZipArchive> {
  const { ZipArchive } = await import('archiver')
  const archive = new ZipArchive({ zlib: { level: 6 } })
  archive.on('warning', onError)
  archive.on('error', onError)
  archive.append(exportReadme({ email: user.email, generatedAt: now }), { name: 'README.md', date: now })
  for (const file of EXPORT_FILES) {
    archive.append(Readable.from(fileJson(db, file, user.id), { objectMode: false }), { name: file.name, date: now })
  }
  void archive.finalize().catch(onError)
  return archive
}
