/**
 * A phone call as a watching dashboard sees it (issue 14, ADR 044): its status in the protocol's
 * words under our call id, its final transcript lines (from the webhook, published as they come,
 * never stored line by line: the end-of-call report keeps the whole transcript), the calls live now
 * (a dashboard opened mid-call), and ending one through Vapi's live call control. Nothing of
 * Vapi's (its ids, URLs or payloads) is in what this returns.
 */
import { and, desc, eq, gt, inArray, ne, or } from 'drizzle-orm'
import { STORED_MESSAGE_MAX } from '#common/chat'
import { isFinalCallStatus, type CallStatus } from '#common/domain'
import { storableText, truncateText } from '#common/text'
import { isUuid } from '#common/uuid'
import type { LiveCallStatus } from '#common/voice'
import type { DbExecutor } from '#server/db/client'
import { coachingCalls, type CoachingCall } from '#server/db/schema'
import type { VapiCallsClient } from '#server/integrations/vapi-calls'
import { AppError } from '#server/lib/app-error'
import type { CallWatchEvent } from '#server/services/cluster-bus'
import { addCallEvent } from './record'
import type { VapiMessage } from './webhooks'

/** Statuses of a phone call that is live (dialled: Vapi has it). A claim still 'dialling' is not. */
const LIVE: readonly CallStatus[] = ['queued', 'ringing', 'in_progress']

/** A call live longer than this is not shown as live (its webhooks were lost; the sweep settles it). */
const LIVE_AT_MOST_MS = 2 * 3_600_000

/** Our status in the protocol's words; null before the call is dialled. */
function liveStatusOf(status: CallStatus): LiveCallStatus | null {
  if (isFinalCallStatus(status)) return 'ended'
  switch (status) {
    case 'queued':
      return 'queued'
    case 'ringing':
      return 'ringing'
    case 'in_progress':
      return 'in-progress'
    default:
      return null
  }
}

/** The `phone-call` event of a phone call's row (a call in the app is not one); null before it is dialled. */
export function phoneCallEvent(call: Pick<CoachingCall, 'id' | 'slot' | 'completionStatus' | 'endedReason'>): Extract<CallWatchEvent, { type: 'phone-call' }> | null {
  if (call.slot === 'web') return null
  const status = liveStatusOf(call.completionStatus)
  if (!status) return null
  return { type: 'phone-call', callId: call.id, status, endedReason: status === 'ended' ? (call.endedReason ?? null) : null }
}

/** A final transcript line of a webhook message: who said what, and the key that makes it once. */
type TranscriptLine = { vapiCallId: string; ourCallId: string | null; role: 'user' | 'assistant'; text: string; key: string | null }

/**
 * The final transcript line a webhook message carries (`transcript` with transcriptType final, or
 * the type `transcript[transcriptType="final"]`); null for anything else (partials included).
 * Its once-key is the call, the role and the instant (brief §9); null when it has no instant.
 */
export function transcriptLineOf(message: VapiMessage): TranscriptLine | null {
  const final = message.type === 'transcript[transcriptType="final"]' || (message.type === 'transcript' && message.transcriptType === 'final')
  if (!final) return null
  const vapiCallId = message.call?.id
  if (typeof vapiCallId !== 'string' || vapiCallId === '') return null
  const role = message.role === 'user' || message.role === 'assistant' ? message.role : null
  if (!role || typeof message.transcript !== 'string') return null
  const text = truncateText(storableText(message.transcript).trim(), STORED_MESSAGE_MAX)
  if (text === '') return null
  const instant = typeof message.timestamp === 'number' || typeof message.timestamp === 'string' ? message.timestamp : typeof message.secondsFromStart === 'number' ? `s${message.secondsFromStart}` : null
  const metadata = { ...obj(message.call?.metadata), ...obj(obj(message.call?.assistantOverrides).metadata) }
  const ourCallId = typeof metadata.callId === 'string' && isUuid(metadata.callId) ? metadata.callId : null
  return { vapiCallId, ourCallId, role, text, key: instant === null ? null : `${vapiCallId}:${role}:${String(instant)}` }
}

const obj = (value: unknown): Record<string, unknown> => (value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {})

/**
 * The phone call a transcript line belongs to, while it is live: found by our id (from the
 * metadata we sent) or Vapi's, and only when the row is that Vapi call's. Null otherwise (a call in
 * the app, an ended call, a call we do not know).
 */
export async function liveCallOfLine(db: DbExecutor, line: TranscriptLine): Promise<Pick<CoachingCall, 'id' | 'userId'> | null> {
  const [call] = await db
    .select({ id: coachingCalls.id, userId: coachingCalls.userId, vapiCallId: coachingCalls.vapiCallId, slot: coachingCalls.slot, completionStatus: coachingCalls.completionStatus })
    .from(coachingCalls)
    .where(line.ourCallId ? or(eq(coachingCalls.id, line.ourCallId), eq(coachingCalls.vapiCallId, line.vapiCallId)) : eq(coachingCalls.vapiCallId, line.vapiCallId))
    .limit(1)
  if (!call || call.slot === 'web' || isFinalCallStatus(call.completionStatus)) return null
  if (call.vapiCallId !== null && call.vapiCallId !== line.vapiCallId) return null
  return { id: call.id, userId: call.userId }
}

/** The person's phone call live now (the newest: a person has one at a time), as a `phone-call` event. */
export async function liveCallsOf(db: DbExecutor, userId: string, now: Date): Promise<CallWatchEvent[]> {
  const rows = await db
    .select({ id: coachingCalls.id, slot: coachingCalls.slot, completionStatus: coachingCalls.completionStatus, endedReason: coachingCalls.endedReason })
    .from(coachingCalls)
    .where(
      and(
        eq(coachingCalls.userId, userId),
        ne(coachingCalls.slot, 'web'),
        inArray(coachingCalls.completionStatus, [...LIVE]),
        gt(coachingCalls.updatedAt, new Date(now.getTime() - LIVE_AT_MOST_MS)),
      ),
    )
    .orderBy(desc(coachingCalls.callDate))
    .limit(1)
  return rows.flatMap((row) => phoneCallEvent(row) ?? [])
}

/**
 * `end-phone-call`: ends the person's phone call `callId` through Vapi's live call control.
 * NOT_FOUND for a call that is not theirs (or not a phone call), CALL_NOT_LIVE for one that is not
 * under way (ended, or not dialled yet), CALLS_NOT_CONFIGURED without Vapi. The webhooks that
 * follow end the record and tell the dashboards.
 */
export async function endLiveCall(db: DbExecutor, vapi: VapiCallsClient | undefined, userId: string, callId: string, now: Date): Promise<void> {
  const notFound = () => new AppError('NOT_FOUND', 'This call could not be found.')
  if (!isUuid(callId)) throw notFound()
  const [call] = await db
    .select({ id: coachingCalls.id, userId: coachingCalls.userId, slot: coachingCalls.slot, completionStatus: coachingCalls.completionStatus, vapiCallId: coachingCalls.vapiCallId })
    .from(coachingCalls)
    .where(and(eq(coachingCalls.id, callId), eq(coachingCalls.userId, userId)))
    .limit(1)
  if (!call || call.slot === 'web') throw notFound()
  if (!LIVE.includes(call.completionStatus) || !call.vapiCallId) throw new AppError('CALL_NOT_LIVE')
  if (!vapi) throw new AppError('CALLS_NOT_CONFIGURED')
  const result = await vapi.endLive(call.vapiCallId)
  if (result === 'not-live') throw new AppError('CALL_NOT_LIVE')
  await addCallEvent(db, call, 'end_requested', now)
}
