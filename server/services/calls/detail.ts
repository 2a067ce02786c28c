/**
 * One call as its detail page shows it: the record and its timeline (every event, in the order it
 * happened). Only the signed-in user's own calls: anything else is "not found".
 */
import { and, asc, eq, sql } from 'drizzle-orm'
import type { CallDetailResponse } from '#common/calls'
import { isUuid } from '#common/uuid'
import type { DbExecutor } from '#server/db/client'
import { coachingCallEvents, coachingCalls, profiles } from '#server/db/schema'
import { AppError } from '#server/lib/app-error'
import { callLateness } from './lateness'

const callNotFound = () => new AppError('NOT_FOUND', 'This call could not be found.')

/** The user's call `callId` with its timeline; 404 for another user's call or an id that is not one. */
export async function callDetail(db: DbExecutor, userId: string, callId: string): Promise<CallDetailResponse> {
  if (!isUuid(callId)) throw callNotFound()
  const [rows, events] = await Promise.all([
    db
      .select({
        call: coachingCalls,
        // The zone the call was claimed in, else the person's zone now (a call that never got that far).
        timeZone: sql<string | null>`coalesce(${coachingCalls.timeZone}, ${profiles.timezone})`,
      })
      .from(coachingCalls)
      .leftJoin(profiles, eq(profiles.id, coachingCalls.userId))
      .where(and(eq(coachingCalls.id, callId), eq(coachingCalls.userId, userId)))
      .limit(1),
    db
      .select({ type: coachingCallEvents.type, at: coachingCallEvents.at, detail: coachingCallEvents.detail })
      .from(coachingCallEvents)
      .where(and(eq(coachingCallEvents.callId, callId), eq(coachingCallEvents.userId, userId)))
      .orderBy(asc(coachingCallEvents.at), asc(coachingCallEvents.id)),
  ])
  const row = rows[0]
  if (!row) throw callNotFound()
  const { call } = row
  return {
    id: call.id,
    callDate: call.callDate.toISOString(),
    slot: call.slot,
    kind: call.kind,
    attempt: call.attempt,
    completionStatus: call.completionStatus,
    endedReason: call.endedReason,
    skipReason: call.skipReason,
    callDuration: call.callDuration,
    areasDiscussed: call.areasDiscussed,
    summary: call.summary,
    mood: call.mood,
    energy: call.energy,
    commitments: call.commitments,
    transcript: call.transcript,
    startedAt: call.startedAt?.toISOString() ?? null,
    endedAt: call.endedAt?.toISOString() ?? null,
    timeZone: row.timeZone,
    ...callLateness(call),
    events: events.map((event) => ({ type: event.type, at: event.at.toISOString(), detail: event.detail ?? null })),
  }
}
