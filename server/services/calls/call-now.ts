/**
 * "Call me now": a test call, placed at once (rate-limited by its route). The person must be one
 * the calls may reach (a proven number that did not text STOP, consent, a plan); a pause or a
 * missing call time does not stop it. One call at a time: a person with a call under way is not
 * dialled again. The row is written here (slot `test`, dialling) and the place-call job dials it.
 */
import { and, eq, inArray } from 'drizzle-orm'
import { displayPhoneNumber } from '#common/opt-in'
import type { DbExecutor } from '#server/db/client'
import { coachingCalls } from '#server/db/schema'
import { AppError } from '#server/lib/app-error'
import { stoppedMessage } from '#server/services/phones'
import { PLACE_CALL_JOB, type PlaceCallPayload } from './jobs'
import type { CallsContext } from './context'
import { PLAN_CALLS } from './entitlements'
import { eligibilityOf, loadCallPerson, type CallPerson } from './person'
import { addCallEvent } from './record'
import { testCallJobId } from './tick'

/** A call's statuses while it is under way (claimed, at Vapi, ringing, connected). */
const UNDER_WAY = ['dialling', 'queued', 'ringing', 'in_progress'] as const

export function createCallNow(ctx: Pick<CallsContext, 'db' | 'clock' | 'jobs' | 'dialler' | 'smsNumber'>) {
  const { db, clock, jobs } = ctx

  return async function callNow(userId: string): Promise<{ callId: string }> {
    if (!ctx.dialler) throw new AppError('CALLS_NOT_CONFIGURED')
    const now = clock.now()
    const person = await loadCallPerson(db, userId, now)
    const eligibility = person ? eligibilityOf(person, now) : null
    // Never a phone nobody proved, nor one that texted STOP (docs/decisions/060).
    if (eligibility?.eligible === false && eligibility.reason === 'stopped') throw new AppError('NUMBER_STOPPED', stoppedMessage(displayPhoneNumber(ctx.smsNumber)))
    if (eligibility?.eligible === false && eligibility.reason === 'unverified') throw new AppError('NUMBER_NOT_VERIFIED')
    if (!person || (!eligibility?.eligible && eligibility?.reason !== 'paused' && eligibility?.reason !== 'no_call_time')) {
      throw new AppError('CALL_NOT_ELIGIBLE', undefined, { field: eligibility && !eligibility.eligible ? eligibility.reason : undefined })
    }
    const callId = await db.transaction(async (tx) => {
      if (await hasCallUnderWay(tx, userId)) throw new AppError('CALL_IN_PROGRESS')
      return insertTestCall(tx, person, now)
    })
    await jobs.enqueue(PLACE_CALL_JOB, { userId, slot: 'test', localDate: null, attempt: 0, dueAt: now.toISOString(), callId } satisfies PlaceCallPayload, { jobId: testCallJobId(callId) })
    return { callId }
  }
}

/** In the caller's transaction: whether the person has a call under way (its row locked until the commit). */
async function hasCallUnderWay(tx: DbExecutor, userId: string): Promise<boolean> {
  const [live] = await tx
    .select({ id: coachingCalls.id })
    .from(coachingCalls)
    .where(and(eq(coachingCalls.userId, userId), inArray(coachingCalls.completionStatus, [...UNDER_WAY])))
    .limit(1)
    .for('update')
  return live !== undefined
}

/** In the caller's transaction: the test call's row (dialling, the plan's length), with its `scheduled` event. Returns its id. */
async function insertTestCall(tx: DbExecutor, person: CallPerson, now: Date): Promise<string> {
  const plan = person.access.tier ?? 'basic'
  const [call] = await tx
    .insert(coachingCalls)
    .values({ userId: person.userId, slot: 'test', localDate: null, attempt: 0, callDate: now, timeZone: person.timeZone, kind: 'check_in', maxDurationSeconds: PLAN_CALLS[plan].maxDurationSeconds, completionStatus: 'dialling' })
    .returning()
  await addCallEvent(tx, call!, 'scheduled', now, { requested: true })
  return call!.id
}
