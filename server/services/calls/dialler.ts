/**
 * Placing one call, exactly once. The call row is the claim: it is written (unique on user, slot,
 * local date and attempt) before Vapi is asked, with a short lease that says which dialler holds
 * it. Vapi is asked once per try, without the SDK's retries; an answer that leaves it unknown
 * whether a call was created (timeout, 5xx, lost connection) is reconciled by listing Vapi's calls
 * for the name we sent before anything dials again. Eligibility is checked again here, just before
 * dialling, not only when the call was scheduled.
 */
import { and, desc, eq, isNotNull, isNull, lt, or, sql } from 'drizzle-orm'
import type { Logger } from 'pino'
import { LIFE_AREAS } from '#common/domain'
import { lifeAreaDefinition } from '#common/goals'
import type { Db, DbExecutor } from '#server/db/client'
import { coachingCalls, type CoachingCall } from '#server/db/schema'
import type { DialRequest, VapiCallRecord, VapiCallsClient } from '#server/integrations/vapi-calls'
import type { Clock } from '#server/lib/clock'
import { loadCoachContext } from '#server/services/chat'
import type { CallVariables } from './assistant'
import { callDurationLimit, type CallSlot } from './entitlements'
import { insideAllowedWindow } from './next-fire'
import { eligibilityOf, loadCallPerson, type CallPerson } from './person'
import { addCallEvent, applyObservation, type Applied } from './record'
import { observationOfRecord } from './webhooks'

/** How long a dialler holds a claim (a dial request takes at most 15 s). */
export const DIAL_LEASE_MS = 60_000
/** Tries of the place-call job (a try that cannot tell whether a call was made waits and reconciles). */
export const PLACE_CALL_ATTEMPTS = 4

export type PlaceCallRequest = {
  userId: string
  slot: CallSlot | 'test'
  /** The person's local date of a daily slot; null for a test call. */
  localDate: string | null
  attempt: number
  /** When the call was due. */
  dueAt: Date
  /** A test call's row, written by callNow. */
  callId?: string | undefined
}

export type PlaceOutcome = 'placed' | 'reconciled' | 'duplicate' | 'skipped' | 'failed' | 'not_configured' | 'no_user'

/** A try that must be repeated later (the job's backoff): the claim is held elsewhere, or Vapi could not say. */
export class DialLater extends Error {}

export type DiallerDeps = {
  db: Db
  clock: Clock
  log: Logger
  vapi: VapiCallsClient | undefined
  /** The webhook URL and its header for the per-call server override (secret mode), or undefined (the assistant's own server). */
  server: DialRequest['server'] | undefined
  /** Applies an observation and enqueues what follows (a retry). */
  afterApply(applied: Applied): Promise<void>
  eligibleAt(db: DbExecutor, userId: string, at: Date): Promise<boolean>
}

const e164 = (digits: string) => (digits.startsWith('+') ? digits : `+1${digits}`)

/** Whether no call of this person was placed yet in the local month of `localDate`. */
export async function firstCallOfMonth(db: DbExecutor, userId: string, localDate: string): Promise<boolean> {
  const month = localDate.slice(0, 7)
  const [row] = await db
    .select({ id: coachingCalls.id })
    .from(coachingCalls)
    .where(and(eq(coachingCalls.userId, userId), isNotNull(coachingCalls.dialledAt), sql`to_char(${coachingCalls.localDate}, 'YYYY-MM') = ${month}`))
    .limit(1)
  return !row
}

/** The variables the assistant's prompt uses, from the person's goals as they are now. */
export async function callVariables(
  db: DbExecutor,
  person: CallPerson,
  call: Pick<CoachingCall, 'id' | 'slot' | 'kind' | 'localDate' | 'maxDurationSeconds'>,
  now: Date,
): Promise<{ values: CallVariables; firstName: string; phone: string | null }> {
  const context = await loadCoachContext(db, person.userId, now)
  const [previous] = await db
    .select({ summary: coachingCalls.summary })
    .from(coachingCalls)
    .where(and(eq(coachingCalls.userId, person.userId), eq(coachingCalls.completionStatus, 'completed'), isNotNull(coachingCalls.summary)))
    .orderBy(desc(coachingCalls.callDate))
    .limit(1)
  const focus = (context?.lowestAreas ?? []).map((area) => area.title)
  const callKind = call.kind === 'goal_session' ? 'monthly goal session' : call.slot === 'evening' ? 'evening check-in' : 'daily check-in'
  return {
    firstName: context?.firstName ?? '',
    phone: context?.phoneNumber ?? person.phoneNumber,
    values: {
      firstName: context?.firstName ?? '',
      goalsSummary: context?.goalsSummary ?? '',
      focusAreas: focus.length > 0 ? focus.join(', ') : LIFE_AREAS.slice(0, 3).map((area) => lifeAreaDefinition(area).title).join(', '),
      goal90Days: context?.goal90Days ?? '',
      obstacles: context?.obstacles ?? '',
      previousCallSummary: previous?.summary ?? '',
      callKind,
      maxMinutes: String(Math.round((call.maxDurationSeconds ?? 300) / 60)),
      localDate: call.localDate ?? '',
      timezone: person.timeZone,
    },
  }
}

type Claim = { call: CoachingCall; takenOver: boolean } | { outcome: PlaceOutcome }

/** Writes or takes over the claim of a call, or says why there is nothing to dial. */
async function claim(deps: DiallerDeps, request: PlaceCallRequest, person: CallPerson, now: Date): Promise<Claim> {
  const { db } = deps
  const lease = new Date(now.getTime() + DIAL_LEASE_MS)
  return db.transaction(async (tx) => {
    let existing: CoachingCall | undefined
    if (request.callId) {
      ;[existing] = await tx.select().from(coachingCalls).where(and(eq(coachingCalls.id, request.callId), eq(coachingCalls.userId, request.userId))).limit(1)
      if (!existing) return { outcome: 'no_user' as const }
    } else {
      const eligibility = eligibilityOf(person, now)
      const window = request.attempt > 0 && !insideAllowedWindow(now, person.timeZone) ? 'outside_allowed_hours' : null
      const plan = eligibility.eligible ? eligibility.plan : null
      const firstOfMonth = plan && request.localDate ? await firstCallOfMonth(tx, request.userId, request.localDate) : false
      const limit = plan ? callDurationLimit(plan, firstOfMonth && request.slot === 'daily') : null
      const skipReason = !eligibility.eligible ? eligibility.reason : window
      const [inserted] = await tx
        .insert(coachingCalls)
        .values({
          userId: request.userId,
          slot: request.slot,
          localDate: request.localDate,
          attempt: request.attempt,
          callDate: request.dueAt,
          timeZone: person.timeZone,
          kind: limit?.goalSession ? 'goal_session' : 'check_in',
          maxDurationSeconds: limit?.seconds ?? null,
          completionStatus: skipReason ? 'skipped' : 'dialling',
          skipReason,
          dialLeaseUntil: skipReason ? null : lease,
        })
        .onConflictDoNothing()
        .returning()
      if (request.attempt > 0 && request.localDate) {
        // The call this one retries has had its retry taken.
        await tx
          .update(coachingCalls)
          .set({ retryAt: null })
          .where(and(eq(coachingCalls.userId, request.userId), eq(coachingCalls.slot, request.slot), eq(coachingCalls.localDate, request.localDate), eq(coachingCalls.attempt, request.attempt - 1)))
      }
      if (inserted) {
        await addCallEvent(tx, inserted, 'scheduled', request.dueAt, request.attempt > 0 ? { attempt: request.attempt } : null)
        if (skipReason) {
          await addCallEvent(tx, inserted, 'skipped', now, { reason: skipReason })
          return { outcome: 'skipped' as const }
        }
        return { call: inserted, takenOver: false }
      }
      ;[existing] = await tx
        .select()
        .from(coachingCalls)
        .where(and(eq(coachingCalls.userId, request.userId), eq(coachingCalls.slot, request.slot), eq(coachingCalls.localDate, request.localDate!), eq(coachingCalls.attempt, request.attempt)))
        .limit(1)
      if (!existing) return { outcome: 'duplicate' as const }
    }
    if (existing.completionStatus !== 'dialling' || existing.vapiCallId) return { outcome: 'duplicate' as const }
    // A dialling claim whose lease has run out (its dialler died, or a test call waiting): take it over.
    const [taken] = await tx
      .update(coachingCalls)
      .set({ dialLeaseUntil: lease, updatedAt: now })
      .where(
        and(
          eq(coachingCalls.id, existing.id),
          eq(coachingCalls.completionStatus, 'dialling'),
          isNull(coachingCalls.vapiCallId),
          or(isNull(coachingCalls.dialLeaseUntil), lt(coachingCalls.dialLeaseUntil, now)),
        ),
      )
      .returning()
    if (!taken) throw new DialLater(`call ${existing.id} is being dialled by another worker`)
    return { call: taken, takenOver: true }
  })
}

/** Marks a claimed call as failed to dial (nothing was placed). */
async function failDial(deps: DiallerDeps, call: CoachingCall, reason: string, detail: Record<string, unknown>, now: Date): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const [updated] = await tx
      .update(coachingCalls)
      .set({ completionStatus: 'failed', endedReason: reason, endedAt: now, dialLeaseUntil: null, updatedAt: now })
      .where(and(eq(coachingCalls.id, call.id), eq(coachingCalls.completionStatus, 'dialling'), isNull(coachingCalls.vapiCallId)))
      .returning({ id: coachingCalls.id })
    if (updated) await addCallEvent(tx, call, 'dial_failed', now, { reason, ...detail })
  })
}

/** Releases the claim's lease so a later try (or the tick) may take it over. */
async function release(deps: DiallerDeps, call: CoachingCall, event: string, detail: Record<string, unknown>, now: Date): Promise<void> {
  await deps.db.transaction(async (tx) => {
    await tx.update(coachingCalls).set({ dialLeaseUntil: null, updatedAt: now }).where(and(eq(coachingCalls.id, call.id), isNull(coachingCalls.vapiCallId)))
    await addCallEvent(tx, call, event, now, detail)
  })
}

/** Records that Vapi has the call (from the dial's answer or a reconciliation) and applies what Vapi said of it. */
async function attach(deps: DiallerDeps, call: CoachingCall, vapiCallId: string, event: 'dialled' | 'reconciled', record: VapiCallRecord | null, now: Date): Promise<void> {
  const applied = await deps.db.transaction(async (tx) => {
    await tx
      .update(coachingCalls)
      .set({
        vapiCallId: sql`coalesce(${coachingCalls.vapiCallId}, ${vapiCallId})`,
        completionStatus: sql`case when ${coachingCalls.completionStatus} in ('scheduled', 'dialling') then 'queued' else ${coachingCalls.completionStatus} end`,
        dialLeaseUntil: null,
        updatedAt: now,
      })
      .where(eq(coachingCalls.id, call.id))
    await addCallEvent(tx, call, event, now, { vapiCallId })
    return record ? applyObservation(tx, observationOfRecord(record, call.id, now), { now, eligibleAt: deps.eligibleAt }) : null
  })
  if (applied) await deps.afterApply(applied)
}

/**
 * One try of placing a call. Throws DialLater when the try must be repeated (the job retries it);
 * `lastTry` turns what would be repeated into a recorded failure.
 */
export async function placeCall(deps: DiallerDeps, request: PlaceCallRequest, lastTry: boolean): Promise<PlaceOutcome> {
  const { db, log, vapi } = deps
  const now = deps.clock.now()
  if (!vapi) {
    log.warn({ userId: request.userId }, 'calls: Vapi is not configured; no call placed')
    return 'not_configured'
  }
  const person = await loadCallPerson(db, request.userId, now)
  if (!person) return 'no_user'
  const claimed = await claim(deps, request, person, now)
  if ('outcome' in claimed) return claimed.outcome
  const { call } = claimed

  // A test call is checked here (a daily call was checked when it was claimed).
  if (request.callId) {
    const eligibility = eligibilityOf(person, now)
    if (!eligibility.eligible && eligibility.reason !== 'paused' && eligibility.reason !== 'no_call_time') {
      await failDial(deps, call, `not-eligible-${eligibility.reason}`, {}, now)
      return 'skipped'
    }
  }

  // A try before this one may have reached Vapi: look before dialling again.
  if (claimed.takenOver && call.dialledAt) {
    const found = await vapi.findPlaced(call.id, new Date(call.dialledAt.getTime() - 5_000), new Date(now.getTime() + 5_000))
    if (found) {
      await attach(deps, call, found.id, 'reconciled', found, now)
      return 'reconciled'
    }
  }

  const { values, firstName, phone } = await callVariables(db, person, call, now)
  if (!phone) {
    await failDial(deps, call, 'no-phone-number', {}, now)
    return 'failed'
  }
  await db.update(coachingCalls).set({ dialledAt: now, updatedAt: now }).where(eq(coachingCalls.id, call.id))
  const outcome = await vapi.dial({
    callId: call.id,
    customerNumber: e164(phone),
    customerName: firstName,
    variableValues: values,
    maxDurationSeconds: call.maxDurationSeconds ?? 300,
    metadata: { callId: call.id, userId: call.userId, slot: call.slot, localDate: call.localDate ?? '', attempt: call.attempt },
    ...(deps.server ? { server: deps.server } : {}),
  } as DialRequest)

  if (outcome.kind === 'placed') {
    await attach(deps, call, outcome.vapiCallId, 'dialled', null, now)
    return 'placed'
  }
  if (outcome.kind === 'refused') {
    const detail = { status: outcome.status, message: outcome.message }
    if (outcome.retryable && !lastTry) {
      log.warn({ callId: call.id, ...detail }, 'calls: Vapi refused the call for now; it will be tried again')
      await release(deps, call, 'dial_deferred', detail, now)
      throw new DialLater(`Vapi refused call ${call.id} with ${outcome.status}: ${outcome.message}`)
    }
    log.error({ callId: call.id, ...detail }, 'calls: Vapi refused the call (check the assistant, the phone number and the account)')
    await failDial(deps, call, `vapi-refused-${outcome.status}`, detail, now)
    return 'failed'
  }

  // Unknown: a call may exist. Look for it now; dial again only on a later try, after looking again.
  const detail = { status: outcome.status ?? null, message: outcome.message }
  log.warn({ callId: call.id, ...detail }, 'calls: no clear answer from Vapi; reconciling')
  try {
    const found = await vapi.findPlaced(call.id, new Date(now.getTime() - 5_000), new Date(deps.clock.now().getTime() + 5_000))
    if (found) {
      await attach(deps, call, found.id, 'reconciled', found, now)
      return 'reconciled'
    }
  } catch (error) {
    log.warn({ callId: call.id, err: error }, 'calls: listing Vapi calls failed')
  }
  if (lastTry) {
    log.error({ callId: call.id, ...detail }, 'calls: Vapi never confirmed the call; giving up on it')
    await failDial(deps, call, 'vapi-unconfirmed', detail, now)
    return 'failed'
  }
  await release(deps, call, 'dial_unconfirmed', detail, now)
  throw new DialLater(`Vapi gave no clear answer for call ${call.id}`)
}
