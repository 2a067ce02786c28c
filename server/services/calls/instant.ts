/**
 * What a prepared call does at its instant, batched: every call of a process whose instant comes in
 * the same turn of the event loop (a minute's burst: all of them) is checked with one statement and,
 * once Vapi has it, recorded with one statement, instead of a round trip each. The dial itself
 * (`POST /call`) stays one request per call.
 */
import DataLoader from 'dataloader'
import { eq, inArray, sql } from 'drizzle-orm'
import type { Db } from '#server/db/client'
import { coachingCallEvents, coachingCalls, profiles, subscribers, users } from '#server/db/schema'
import { personColumns, toPerson, type CallPerson, type PersonRow } from './person'

/** A prepared claim as it is at its instant, with the person as the eligibility rules see them now. */
export type InstantState = { stillDialling: boolean; person: CallPerson }

/** The dial's answer, to be written on the claim with its 'dialled' event. */
export type Attachment = { callId: string; vapiCallId: string; at: Date }

/** The longest a dial's record waits for the other dials of its instant. */
const QUIET_MAX_WAIT_MS = 3000

/** Calls checked or recorded in one statement at most (a larger burst takes several). */
const MAX_BATCH = 500

/** Collects what is asked in one turn of the event loop (timers due at the same instant included). */
const oneTurn = (flush: () => void) => setImmediate(flush)

/**
 * Counts the dials of this process that are on their way to Vapi: what follows a dial (recording
 * it, the job's completion) waits until none is, so a burst's requests are not slowed by the
 * bookkeeping of the ones already answered.
 */
function inFlight() {
  let dialling = 0
  const waiters: Array<() => void> = []
  return {
    async around<T>(dial: () => Promise<T>): Promise<T> {
      dialling += 1
      try {
        return await dial()
      } finally {
        dialling -= 1
        if (dialling === 0) for (const wake of waiters.splice(0)) wake()
      }
    },
    // At most a few seconds: a dial that hangs until its timeout does not hold every record.
    quiet: () =>
      dialling === 0
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, QUIET_MAX_WAIT_MS)
            timer.unref()
            waiters.push(() => {
              clearTimeout(timer)
              resolve()
            })
          }),
  }
}

export type InstantBatches = {
  /** Runs a dial of an instant; `quiet` resolves once no dial of this process is on its way. */
  dialling<T>(dial: () => Promise<T>): Promise<T>
  quiet(): Promise<void>
  /** The claim's state and its person now; undefined when the claim is gone. */
  check(callId: string, now: Date): Promise<InstantState | undefined>
  /** Records that Vapi has the call (the claim becomes 'queued', dialled at the dial's instant; its 'dialled' event is written). */
  attach(attachment: Attachment): Promise<void>
}

export function instantBatches(db: Db): InstantBatches {
  const checks = new DataLoader<{ callId: string; now: Date }, InstantState | undefined, string>(
    async (keys) => {
      const ids = keys.map((key) => key.callId)
      const rows = await db
        .select({ callId: coachingCalls.id, stillDialling: sql<boolean>`${coachingCalls.completionStatus} = 'dialling' and ${coachingCalls.vapiCallId} is null`, ...personColumns })
        .from(coachingCalls)
        .innerJoin(users, eq(users.id, coachingCalls.userId))
        .leftJoin(profiles, eq(profiles.id, users.id))
        .leftJoin(subscribers, eq(subscribers.userId, users.id))
        .where(inArray(coachingCalls.id, ids))
      const byId = new Map(rows.map((row) => [row.callId, row]))
      return keys.map((key) => {
        const row = byId.get(key.callId)
        if (!row) return undefined
        const { callId: _callId, stillDialling, ...person } = row
        return { stillDialling: stillDialling === true, person: toPerson(person as PersonRow, key.now) }
      })
    },
    { cache: false, maxBatchSize: MAX_BATCH, batchScheduleFn: oneTurn, cacheKeyFn: (key) => key.callId },
  )

  const attachments = new DataLoader<Attachment, void, string>(
    async (batch) => {
      const rows = JSON.stringify(batch.map((item) => ({ id: item.callId, vapi_call_id: item.vapiCallId, at: item.at.toISOString() })))
      await db.execute(sql`
        with input as (
          select * from jsonb_to_recordset(${rows}::jsonb) as i(id uuid, vapi_call_id text, at timestamptz)
        ), attached as (
          update ${coachingCalls} as c
          set vapi_call_id = coalesce(c.vapi_call_id, input.vapi_call_id),
              completion_status = case when c.completion_status in ('scheduled', 'dialling') then 'queued' else c.completion_status end,
              dialled_at = input.at, dial_lease_until = null, updated_at = input.at
          from input where c.id = input.id
          returning c.id, c.user_id, input.vapi_call_id, input.at
        )
        insert into ${coachingCallEvents} (call_id, user_id, type, at, detail)
        select id, user_id, 'dialled', at, jsonb_build_object('vapiCallId', vapi_call_id) from attached`)
      return batch.map(() => undefined)
    },
    { cache: false, maxBatchSize: MAX_BATCH, batchScheduleFn: oneTurn, cacheKeyFn: (item) => item.callId },
  )

  const dials = inFlight()
  return {
    dialling: (dial) => dials.around(dial),
    quiet: dials.quiet,
    check: (callId, now) => checks.load({ callId, now }),
    attach: (attachment) => attachments.load(attachment),
  }
}
