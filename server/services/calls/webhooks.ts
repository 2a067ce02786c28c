/**
 * Vapi's server messages: authenticated, persisted, acknowledged, then applied.
 * - Authentication: the `X-Vapi-Secret` header, or (VAPI_WEBHOOK_AUTH=hmac) an HMAC-SHA256 of
 *   `{timestamp}.{raw body}` in `x-signature` with `x-timestamp` inside a five-minute window (in
 *   seconds or milliseconds: Vapi does not document the unit). Both compared in constant time.
 * - The webhook only stores the message in `vapi_webhook_events` under a key built from the call id,
 *   the type and the status (Vapi sends no event id), so a duplicate finds its key taken; a job
 *   applies it (record.ts), in any order.
 */
import { createHmac, timingSafeEqual } from 'node:crypto'
import { and, asc, eq, isNull, lt, sql } from 'drizzle-orm'
import { headerKey, VAPI_SECRET_HEADER, VAPI_SIGNATURE_HEADER, VAPI_TIMESTAMP_HEADER } from '#common/webhooks'
import type { DbExecutor } from '#server/db/client'
import type { VapiCallRecord } from '#server/integrations/vapi-calls'
import { vapiWebhookEvents } from '#server/db/schema'
import { CallReportResult, findCallReport } from './assistant'
import type { CallObservation, EndOfCallReport } from './record'

export type WebhookAuth = { mode: 'secret' | 'hmac'; secret: string }

/** How far a signed timestamp may be from now. */
export const HMAC_WINDOW_MS = 5 * 60_000

function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  // timingSafeEqual needs equal lengths; comparing against itself keeps the time independent of where they differ.
  if (left.length !== right.length) {
    timingSafeEqual(left, left)
    return false
  }
  return timingSafeEqual(left, right)
}

const header = (headers: Record<string, string | string[] | undefined>, name: string) => {
  const value = headers[name]
  return Array.isArray(value) ? value[0] : value
}

/**
 * Whether a delivery is Vapi's, by its headers alone: in secret mode the header is the whole
 * authentication (and without a secret nothing is), so a forged post is refused before its body is
 * read; null in HMAC mode, whose signature covers the body.
 */
export function verifyVapiWebhookHeaders(auth: WebhookAuth | undefined, headers: Record<string, string | string[] | undefined>): boolean | null {
  if (!auth?.secret) return false
  if (auth.mode === 'hmac') return null
  const given = header(headers, headerKey(VAPI_SECRET_HEADER))
  return typeof given === 'string' && safeEqual(given, auth.secret)
}

/** Whether a delivery is Vapi's, by the configured scheme. */
export function verifyVapiWebhook(auth: WebhookAuth | undefined, headers: Record<string, string | string[] | undefined>, rawBody: Buffer, now: Date): boolean {
  const byHeaders = verifyVapiWebhookHeaders(auth, headers)
  if (byHeaders !== null || !auth) return byHeaders === true
  const signature = header(headers, VAPI_SIGNATURE_HEADER)
  const timestamp = header(headers, VAPI_TIMESTAMP_HEADER)
  if (!signature || !timestamp || !/^\d{1,16}$/.test(timestamp)) return false
  const value = Number(timestamp)
  const ms = value < 1e12 ? value * 1000 : value
  if (Math.abs(now.getTime() - ms) > HMAC_WINDOW_MS) return false
  const expected = createHmac('sha256', auth.secret).update(`${timestamp}.`).update(rawBody).digest('hex')
  return safeEqual(signature.replace(/^sha256=/, '').toLowerCase(), expected)
}

export type VapiMessage = {
  type: string
  timestamp?: number | string
  status?: string
  endedReason?: string
  call?: { id?: string; status?: string; assistantOverrides?: { metadata?: Record<string, unknown> }; metadata?: Record<string, unknown> } & Record<string, unknown>
} & Record<string, unknown>

/** The idempotency key of a message, or null when it is not one we keep. */
export function dedupeKeyOf(message: VapiMessage): string | null {
  const callId = message.call?.id
  if (typeof callId !== 'string' || callId === '') return null
  if (message.type === 'status-update') return typeof message.status === 'string' ? `${callId}:status-update:${message.status}` : null
  if (message.type === 'end-of-call-report') return `${callId}:end-of-call-report`
  return null
}

/** Stores a message once; true when it is new. Returns the stored row's id. */
export async function storeVapiMessage(db: DbExecutor, message: VapiMessage, now: Date): Promise<{ id: number | null; duplicate: boolean }> {
  const key = dedupeKeyOf(message)
  if (!key) return { id: null, duplicate: false }
  const [row] = await db
    .insert(vapiWebhookEvents)
    .values({ dedupeKey: key, vapiCallId: message.call!.id!, type: message.type, payload: message, receivedAt: now })
    .onConflictDoNothing()
    .returning({ id: vapiWebhookEvents.id })
  return row ? { id: row.id, duplicate: false } : { id: null, duplicate: true }
}

const isoDate = (value: unknown): Date | null => {
  if (typeof value !== 'string' && typeof value !== 'number') return null
  const date = new Date(value)
  return Number.isNaN(date.getTime()) ? null : date
}
const str = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value : null)
const obj = (value: unknown): Record<string, unknown> => (value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {})

/** The end-of-call report of a message or of a call fetched from Vapi (same field names). */
export function reportOf(source: Record<string, unknown>): EndOfCallReport {
  const artifact = obj(source.artifact)
  const analysis = obj(source.analysis)
  // The structured output (found by name), else the deprecated analysis.structuredData.
  const result = findCallReport(artifact.structuredOutputs) ?? (analysis.structuredData ? CallReportResult.parse(analysis.structuredData) : null)
  const durationSeconds = typeof source.durationSeconds === 'number' ? source.durationSeconds : typeof source.durationMs === 'number' ? source.durationMs / 1000 : null
  return {
    endedReason: str(source.endedReason),
    summary: str(analysis.summary) ?? result?.summary ?? str(source.summary),
    transcript: str(artifact.transcript) ?? str(source.transcript),
    durationSeconds,
    startedAt: isoDate(source.startedAt),
    endedAt: isoDate(source.endedAt),
    areasDiscussed: result?.areasDiscussed ?? [],
    mood: result?.mood ?? null,
    energy: result?.energy ?? null,
    commitments: result?.commitments ?? [],
    commitmentsReviewed: result?.commitmentsReviewed ?? [],
    facts: result?.facts,
  }
}

const ourCallIdOf = (call: Record<string, unknown> | undefined): string | null => {
  const overrides = obj(call?.assistantOverrides)
  const metadata = { ...obj(call?.metadata), ...obj(overrides.metadata) }
  return typeof metadata.callId === 'string' ? metadata.callId : null
}

/** The observation a stored message makes. */
export function observationOf(message: VapiMessage, receivedAt: Date): CallObservation {
  const call = message.call ?? {}
  const at = isoDate(message.timestamp) ?? receivedAt
  if (message.type === 'end-of-call-report') {
    const report = reportOf(message)
    return {
      vapiCallId: String(call.id),
      callId: ourCallIdOf(call),
      status: 'ended',
      endedReason: report.endedReason,
      at,
      startedAt: report.startedAt,
      endedAt: report.endedAt,
      report,
      source: 'webhook',
    }
  }
  return {
    vapiCallId: String(call.id),
    callId: ourCallIdOf(call),
    status: str(message.status),
    endedReason: str(message.endedReason) ?? str(call.endedReason),
    at,
    startedAt: isoDate(call.startedAt),
    endedAt: message.status === 'ended' ? (isoDate(call.endedAt) ?? at) : null,
    report: null,
    source: 'webhook',
  }
}

/** The observation a call fetched from Vapi makes (the sweep). */
export function observationOfRecord(record: VapiCallRecord, callId: string | null, now: Date): CallObservation {
  const ended = record.status === 'ended'
  const report = ended && (record.artifact || record.analysis) ? reportOf(record as unknown as Record<string, unknown>) : null
  return {
    vapiCallId: record.id,
    callId,
    status: str(record.status),
    endedReason: str(record.endedReason),
    at: now,
    startedAt: isoDate(record.startedAt),
    endedAt: ended ? (isoDate(record.endedAt) ?? now) : null,
    report,
    source: 'sweep',
  }
}

/**
 * Failed applications of a stored message before it is parked (`dead_at`): a message that fails
 * every time is then left alone by the job and the sweep, and listed on the diagnostics page.
 */
const VAPI_EVENT_MAX_FAILURES = 10

/** Stored messages not applied yet nor parked, received before `before` (the sweep's backstop for lost jobs). */
export async function pendingVapiEvents(db: DbExecutor, before: Date, limit: number): Promise<number[]> {
  const rows = await db
    .select({ id: vapiWebhookEvents.id })
    .from(vapiWebhookEvents)
    .where(and(isNull(vapiWebhookEvents.processedAt), isNull(vapiWebhookEvents.deadAt), lt(vapiWebhookEvents.receivedAt, before)))
    .orderBy(asc(vapiWebhookEvents.receivedAt))
    .limit(limit)
  return rows.map((row) => row.id)
}

/** Takes a stored message for applying (locked until the caller's transaction ends); null when done, parked or taken. */
export async function takeVapiEvent(tx: DbExecutor, id: number) {
  const [row] = await tx
    .select()
    .from(vapiWebhookEvents)
    .where(and(eq(vapiWebhookEvents.id, id), isNull(vapiWebhookEvents.processedAt), isNull(vapiWebhookEvents.deadAt)))
    .limit(1)
    .for('update', { skipLocked: true })
  return row ?? null
}

/** Deletes a stored message (one about a call we have no row for). */
export async function forgetVapiEvent(tx: DbExecutor, id: number): Promise<void> {
  await tx.delete(vapiWebhookEvents).where(eq(vapiWebhookEvents.id, id))
}

/** Marks a stored message applied, in the applying transaction. */
export async function markVapiEvent(tx: DbExecutor, id: number, now: Date): Promise<void> {
  await tx
    .update(vapiWebhookEvents)
    .set({ processedAt: now, attempts: sql`${vapiWebhookEvents.attempts} + 1` })
    .where(eq(vapiWebhookEvents.id, id))
}

/**
 * What is kept of an error: the innermost cause's name, code and first line of message, trimmed.
 * A failed query's own message quotes its SQL and parameters (a transcript, a summary), so only
 * its cause (the database's own error) is kept.
 */
export function failureText(error: unknown): string {
  let inner = error
  for (let depth = 0; depth < 5 && inner instanceof Error && inner.cause !== undefined; depth++) inner = inner.cause
  if (!(inner instanceof Error)) return String(inner).slice(0, 300)
  const { code } = inner as { code?: unknown }
  const codeText = typeof code === 'string' ? ` ${code}` : ''
  const line = (inner.message.split('\n')[0] ?? '').replace(/\s+/g, ' ').trim()
  return `${inner.name}${codeText}: ${line}`.slice(0, 300)
}

type VapiEventFailure = { attempts: number; parked: boolean; type: string; vapiCallId: string }

/**
 * Counts a failed application of a stored message, with its error, in its own statement (the
 * applying transaction rolled back), and parks the message at its VAPI_EVENT_MAX_FAILURES-th
 * failure. Null when the message was applied or parked meanwhile (nothing counted).
 */
export async function recordVapiEventFailure(db: DbExecutor, id: number, now: Date, error: unknown): Promise<VapiEventFailure | null> {
  const [row] = await db
    .update(vapiWebhookEvents)
    .set({
      attempts: sql`${vapiWebhookEvents.attempts} + 1`,
      lastError: failureText(error),
      deadAt: sql`case when ${vapiWebhookEvents.attempts} + 1 >= ${VAPI_EVENT_MAX_FAILURES} then ${now.toISOString()}::timestamptz end`,
    })
    .where(and(eq(vapiWebhookEvents.id, id), isNull(vapiWebhookEvents.processedAt), isNull(vapiWebhookEvents.deadAt)))
    .returning({ attempts: vapiWebhookEvents.attempts, deadAt: vapiWebhookEvents.deadAt, type: vapiWebhookEvents.type, vapiCallId: vapiWebhookEvents.vapiCallId })
  return row ? { attempts: row.attempts, parked: row.deadAt !== null, type: row.type, vapiCallId: row.vapiCallId } : null
}
