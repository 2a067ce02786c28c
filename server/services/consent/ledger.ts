/**
 * The consent ledger (issue 15): grants and revocations of calls, texts and report emails, one
 * append-only row each. Callers pass their transaction, so a consent change and what it causes
 * (cancelled calls, a settings write) commit together. consent_states, the per-channel current
 * state, is kept by a trigger on the ledger (migration 0007): reading it is reading the ledger's
 * latest row.
 */
import { and, desc, eq, inArray } from 'drizzle-orm'
import { CONSENT_CHANNELS, CONSENT_DEFAULTS, type ConsentAction, type ConsentChannel, type ConsentSource } from '#common/consent'
import type { DbExecutor } from '#server/db/client'
import { consentEvents, consentStates, type ConsentEvent } from '#server/db/schema'

export type ConsentChange = {
  userId: string
  channel: ConsentChannel
  action: ConsentAction
  source: ConsentSource
  /** The exact words shown to the person, or the text they sent. */
  text: string
  at: Date
  ip?: string | null
  userAgent?: string | null
  messageSid?: string | null
  detail?: Record<string, unknown> | null
}

/** Where a request came from, for the ledger. */
export type ConsentRequestMeta = { ip: string | null; userAgent: string | null }

const USER_AGENT_MAX = 512

function toRow(change: ConsentChange) {
  return {
    userId: change.userId,
    channel: change.channel,
    action: change.action,
    source: change.source,
    text: change.text,
    at: change.at,
    ip: change.ip ?? null,
    userAgent: change.userAgent ? change.userAgent.slice(0, USER_AGENT_MAX) : null,
    messageSid: change.messageSid ?? null,
    detail: change.detail ?? null,
  }
}

/** Told of each revocation written to the ledger (the process's metrics count them by channel and source). */
type RevocationListener = (channel: ConsentChannel, source: ConsentSource) => void
const revocationListeners = new Set<RevocationListener>()

/**
 * Listens to the revocations this process writes (every writer goes through recordConsent, in
 * whichever domain); returns what stops listening. A revocation is told once its row is written in
 * the caller's transaction: one rolled back after that is counted all the same (rare: the writers
 * commit right after).
 */
export function onConsentRevoked(listener: RevocationListener): () => void {
  revocationListeners.add(listener)
  return () => revocationListeners.delete(listener)
}

/** Appends one or more ledger rows (in the caller's transaction, when it passes one). */
export async function recordConsent(db: DbExecutor, changes: ConsentChange | readonly ConsentChange[]): Promise<ConsentEvent[]> {
  const list = Array.isArray(changes) ? (changes as readonly ConsentChange[]) : [changes as ConsentChange]
  if (list.length === 0) return []
  const rows = await db.insert(consentEvents).values(list.map(toRow)).returning()
  for (const change of list) {
    if (change.action === 'revoked') for (const listener of revocationListeners) listener(change.channel, change.source)
  }
  return rows
}

type ChannelConsent = {
  granted: boolean
  /** When the latest ledger row was written (null: none yet, the channel's default applies). */
  at: Date | null
  eventId: number | null
}
type ConsentSnapshot = Record<ConsentChannel, ChannelConsent>

/** The current state of every channel for one person (their latest ledger row, or the default). */
export async function getConsentState(db: DbExecutor, userId: string): Promise<ConsentSnapshot> {
  const rows = await db.select().from(consentStates).where(eq(consentStates.userId, userId))
  return snapshotOf(rows)
}

function snapshotOf(rows: readonly { channel: ConsentChannel; granted: boolean; at: Date; eventId: number }[]): ConsentSnapshot {
  const snapshot = Object.fromEntries(CONSENT_CHANNELS.map((channel) => [channel, { granted: CONSENT_DEFAULTS[channel], at: null, eventId: null }])) as ConsentSnapshot
  for (const row of rows) snapshot[row.channel] = { granted: row.granted, at: row.at, eventId: row.eventId }
  return snapshot
}

/** Current states of many people at once (a batch of calls or texts). */
export async function getConsentStates(db: DbExecutor, userIds: readonly string[]): Promise<Map<string, ConsentSnapshot>> {
  const result = new Map<string, ConsentSnapshot>()
  if (userIds.length === 0) return result
  const rows = await db.select().from(consentStates).where(inArray(consentStates.userId, [...userIds]))
  const byUser = new Map<string, (typeof rows)[number][]>()
  for (const row of rows) byUser.set(row.userId, [...(byUser.get(row.userId) ?? []), row])
  for (const userId of userIds) result.set(userId, snapshotOf(byUser.get(userId) ?? []))
  return result
}

/** May we use this channel for this person right now? */
export async function hasConsent(db: DbExecutor, userId: string, channel: ConsentChannel): Promise<boolean> {
  const [row] = await db
    .select({ granted: consentStates.granted })
    .from(consentStates)
    .where(and(eq(consentStates.userId, userId), eq(consentStates.channel, channel)))
    .limit(1)
  return row ? row.granted : CONSENT_DEFAULTS[channel]
}

/** The person's ledger, newest first (append order: the latest row is the one in force). */
export async function listConsentHistory(db: DbExecutor, userId: string, limit = 100): Promise<ConsentEvent[]> {
  return db
    .select()
    .from(consentEvents)
    .where(eq(consentEvents.userId, userId))
    .orderBy(desc(consentEvents.id))
    .limit(Math.max(1, Math.min(limit, 500)))
}
