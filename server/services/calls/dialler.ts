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
import { coachSessions, coachingCallEvents, coachingCalls, profiles, subscribers, users, type CoachingCall } from '#server/db/schema'
import type { DialRequest, VapiCallRecord, VapiCallsClient } from '#server/integrations/vapi-calls'
import type { Clock } from '#server/lib/clock'
import { isCallableNumber } from '#server/lib/phone-numbers'
import { coachContextJson, loadCoachContext, toCoachContext, type CoachContext } from '#server/services/chat'
import { openCommitmentsForCall, openCommitmentsJson, openCommitmentsVariable, type AskedCommitment } from '#server/services/commitments'
import { CALL_SERVER_MESSAGES, type CallVariables } from './assistant'
import { buildBrief, type CoachBrief } from '#server/services/memory'
import { callDurationLimit, type CallSlot } from './entitlements'
import { insideAllowedWindow } from './next-fire'
import { eligibilityOf, loadCallPerson, personColumns, toPerson, type CallPerson, type PersonRow } from './person'
import type { InstantBatches } from './instant'
import { addCallEvent, applyObservation, type Applied } from './record'
import { observationOfRecord } from './webhooks'
import type { CallWebhookServer } from './webhook-server'
import { callerNumberOf, WAKE_DEPTH, type CallLines } from './lines'
import type { CountedCallKind, Metrics } from '#server/observability/metrics'

/** How long a dialler holds a claim (a dial request takes at most 15 s). */
export const DIAL_LEASE_MS = 60_000
/** Tries of the place-call job (a try that cannot tell whether a call was made waits and reconciles). */
export const PLACE_CALL_ATTEMPTS = 4
/** The longest a call waits for a line past its time; then it is skipped ('no_line_free'), loudly. */
const LINE_WAIT_LIMIT_MS = 60 * 60_000
/** A call dialled later than this after its time says why in its timeline. */
const LATE_AFTER_MS = 60_000
/**
 * A phone call holds its line at most its longest length plus this (ringing, the report's lag);
 * the sweep finishes a call still live at its length plus 5 minutes, before the lease lapses.
 */
const LINE_LEASE_MARGIN_MS = 10 * 60_000
/** A call waiting for a line keeps its claim this long past each renewal (twice as long as between renewals). */
const WAIT_LEASE_MS = 4 * 60_000
/** After Vapi said it had no line, no line is granted for this long, doubling with each refusal in a row up to the most. */
const LINE_REFUSED_PAUSE_MS = 5_000
const LINE_REFUSED_PAUSE_MAX_MS = 2 * 60_000

type PlaceCallRequest = {
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

type PlaceOutcome = 'placed' | 'reconciled' | 'duplicate' | 'skipped' | 'failed' | 'not_configured' | 'no_user' | 'no_line_free'

/** A try that must be repeated later (the job's backoff): the claim is held elsewhere, or Vapi could not say. */
export class DialLater extends Error {}

export type DiallerDeps = {
  db: Db
  clock: Clock
  log: Logger
  vapi: VapiCallsClient | undefined
  /** The webhook server a call names (secret mode: our URL and the credential), or undefined: the assistant's own. */
  webhookServer: () => Promise<CallWebhookServer>
  /** Applies an observation and enqueues what follows (a retry). */
  afterApply(applied: Applied): Promise<void>
  eligibleAt(db: DbExecutor, userId: string, at: Date): Promise<boolean>
  /** The checks and records of calls at their instant, batched across the calls of that instant. */
  instant: InstantBatches
  /** Vapi's lines and the pace of new calls, shared by every server and worker. */
  lines: CallLines
  /** The caller numbers (each person always gets the same one). */
  phoneNumberIds: readonly string[]
  /** Dials counted by kind and outcome, and how late each went out. */
  metrics: Metrics
}

/**
 * How a try may wait: a call prepared ahead of its instant is parked until then (the job runner's
 * `waitUntil`); without it the call is dialled as soon as it is claimed.
 */
export type DialTiming = {
  lastTry: boolean
  /** The job's first try (a call is counted as due once, not on each retry of its job). */
  firstTry?: boolean
  waitUntil?: ((at: Date, wake?: Promise<unknown>) => Promise<void>) | undefined
}

const e164 = (digits: string) => (digits.startsWith('+') ? digits : `+1${digits}`)

/** What a call's dial needs of it (a claim row, or the values a new claim was written with). */
type ClaimedCall = Pick<CoachingCall, 'id' | 'userId' | 'slot' | 'kind' | 'localDate' | 'attempt' | 'maxDurationSeconds' | 'dialledAt'>

type DialVariables = {
  values: CallVariables
  firstName: string
  phone: string | null
  /** The open commitments `values.openCommitments` numbers, in that order (stored on the call). */
  askedCommitmentIds: string[]
}

/** The variables the assistant's prompt uses, from the coach context, the last call's summary and the open commitments. */
function variablesOf(
  person: CallPerson,
  context: CoachContext | null,
  previousSummary: string | null,
  lastCoachSession: string | null,
  asked: readonly AskedCommitment[],
  call: Pick<CoachingCall, 'slot' | 'kind' | 'localDate' | 'maxDurationSeconds'>,
  brief: CoachBrief | null,
): DialVariables {
  const focus = (context?.lowestAreas ?? []).map((area) => area.title)
  // A web call (the person started it in the app) has no call type: the prompt then coaches
  // without saying it called.
  const callKind = call.slot === 'web' ? '' : call.kind === 'goal_session' ? 'monthly goal session' : call.slot === 'evening' ? 'evening check-in' : 'daily check-in'
  return {
    firstName: context?.firstName ?? '',
    phone: context?.phoneNumber ?? person.phoneNumber,
    askedCommitmentIds: asked.map((commitment) => commitment.id),
    values: {
      firstName: context?.firstName ?? '',
      goalsSummary: context?.goalsSummary ?? '',
      focusAreas: focus.length > 0 ? focus.join(', ') : LIFE_AREAS.slice(0, 3).map((area) => lifeAreaDefinition(area).title).join(', '),
      goal90Days: context?.goal90Days ?? '',
      obstacles: context?.obstacles ?? '',
      previousCallSummary: previousSummary ?? '',
      lastCoachSession: lastCoachSession ?? '',
      coachBrief: brief?.text ?? '',
      openCommitments: openCommitmentsVariable(asked),
      callKind,
      maxMinutes: String(Math.round((call.maxDurationSeconds ?? 300) / 60)),
      localDate: call.localDate ?? '',
      timezone: person.timeZone,
    },
  }
}

/** The summary of the person's last completed call, or null. */
const previousSummaryOf = (userId: unknown) =>
  sql<string | null>`(select ${coachingCalls.summary} from ${coachingCalls}
    where ${coachingCalls.userId} = ${userId} and ${coachingCalls.completionStatus} = 'completed' and ${coachingCalls.summary} is not null
    order by ${coachingCalls.callDate} desc limit 1)`

/**
 * The person's last 1-on-1 with their human coach, as the coach wrote it up ("March 9: We planned
 * … Agreed: Walk daily; Sleep by 11."), or null (docs/decisions/082).
 */
const lastCoachSessionOf = (userId: unknown) =>
  sql<string | null>`(select concat(to_char(s.starts_at at time zone s.member_time_zone, 'FMMonth FMDD'), ': ', s.summary,
      case when coalesce(cardinality(s.commitments), 0) > 0 then ' Agreed: ' || array_to_string(s.commitments, '; ') || '.' else '' end)
    from ${coachSessions} s
    where s.member_user_id = ${userId} and s.status = 'completed' and s.summary is not null
    order by s.starts_at desc limit 1)`

/**
 * The variables the assistant's prompt uses, from the person's goals and open commitments as they
 * are now (the caller stores `askedCommitmentIds` on the call).
 */
export async function callVariables(
  db: DbExecutor,
  person: CallPerson,
  call: Pick<CoachingCall, 'id' | 'slot' | 'kind' | 'localDate' | 'maxDurationSeconds'>,
  now: Date,
): Promise<DialVariables> {
  const [context, brief] = await Promise.all([loadCoachContext(db, person.userId, now), buildBrief(db, person.userId, now)])
  const [previous] = await db
    .select({ summary: coachingCalls.summary })
    .from(coachingCalls)
    .where(and(eq(coachingCalls.userId, person.userId), eq(coachingCalls.completionStatus, 'completed'), isNotNull(coachingCalls.summary)))
    .orderBy(desc(coachingCalls.callDate))
    .limit(1)
  const asked = await openCommitmentsForCall(db, person.userId)
  const [session] = await db.select({ text: lastCoachSessionOf(person.userId) }).from(users).where(eq(users.id, person.userId)).limit(1)
  return variablesOf(person, context, previous?.summary ?? null, session?.text ?? null, asked, call, brief)
}

/**
 * Everything a daily call's dial reads, in one statement (a burst of calls on the same minute is
 * dialled on time only if each dial costs few round trips): the person as the eligibility rules
 * see them, the coach context, the last call's summary, and whether a call was placed already in
 * the local month of `localDate` (the first one of a month is the goal session).
 */
async function readForDial(
  db: DbExecutor,
  userId: string,
  localDate: string,
  now: Date,
): Promise<{ person: CallPerson; context: CoachContext | null; previousSummary: string | null; lastCoachSession: string | null; asked: AskedCommitment[]; goalSessionOwed: boolean } | null> {
  const [row] = await db
    .select({
      ...personColumns,
      context: coachContextJson(sql`${users.id}`),
      previousSummary: previousSummaryOf(users.id),
      lastCoachSession: lastCoachSessionOf(users.id),
      openCommitments: openCommitmentsJson(sql`${users.id}`),
      goalSessionHeld: sql<boolean>`exists (select 1 from ${coachingCalls}
        where ${coachingCalls.userId} = ${users.id} and ${coachingCalls.kind} = 'goal_session' and ${coachingCalls.completionStatus} = 'completed'
          and to_char(${coachingCalls.localDate}, 'YYYY-MM') = ${localDate.slice(0, 7)})`,
    })
    .from(users)
    .leftJoin(profiles, eq(profiles.id, users.id))
    .leftJoin(subscribers, eq(subscribers.userId, users.id))
    .where(eq(users.id, userId))
    .limit(1)
  if (!row) return null
  const { context, previousSummary, lastCoachSession, openCommitments, goalSessionHeld, ...personRow } = row
  return {
    person: toPerson(personRow as PersonRow, now),
    context: toCoachContext(userId, context, now),
    previousSummary,
    lastCoachSession,
    asked: openCommitments ?? [],
    goalSessionOwed: goalSessionHeld !== true,
  }
}

type Claim = { call: ClaimedCall; takenOver: boolean } | { outcome: PlaceOutcome }

type NewClaim = {
  request: PlaceCallRequest & { localDate: string }
  person: CallPerson
  goalSessionOwed: boolean
  /** The number the call goes to (null: the dial fails, with the claim written). */
  phone: string | null
  /** The open commitments the dial's variables number (kept on the call for its report's review). */
  askedCommitmentIds: readonly string[]
  now: Date
  /** When the call is dialled: its instant when it is prepared ahead, else now. */
  dialAt: Date
}

/**
 * Writes the claim of a daily call in one statement: the row (unique on user, slot, local date
 * and attempt: nothing is written when it exists), its 'scheduled' event (and 'skipped' with why,
 * when the person may not be called), and, for a retry, the retry taken from the call it repeats.
 * A claim that will be dialled carries its lease and the dial's instant. Returns the new call, the
 * outcome when there is nothing to dial, or null when the claim exists already.
 */
async function insertClaim(db: DbExecutor, claim: NewClaim): Promise<Claim | null> {
  const { request, person, now } = claim
  const eligibility = eligibilityOf(person, now)
  const window = request.attempt > 0 && !insideAllowedWindow(now, person.timeZone) ? 'outside_allowed_hours' : null
  const plan = eligibility.eligible ? eligibility.plan : null
  const limit = plan ? callDurationLimit(plan, claim.goalSessionOwed && request.slot === 'daily') : null
  const skipReason = !eligibility.eligible ? eligibility.reason : window
  const dialledAt = skipReason || !claim.phone ? null : claim.dialAt
  const kind = limit?.goalSession ? 'goal_session' : 'check_in'
  const events = [
    sql`(${'scheduled'}::text, ${request.dueAt.toISOString()}::timestamptz, ${request.attempt > 0 ? JSON.stringify({ attempt: request.attempt }) : null}::jsonb)`,
    ...(skipReason ? [sql`(${'skipped'}::text, ${now.toISOString()}::timestamptz, ${JSON.stringify({ reason: skipReason })}::jsonb)`] : []),
  ]
  const retried =
    request.attempt > 0
      ? sql`, retried as (
          update ${coachingCalls} set retry_at = null
          where user_id = ${request.userId} and slot = ${request.slot} and local_date = ${request.localDate}::date and attempt = ${request.attempt - 1})`
      : sql``
  const result = await db.execute(sql`
    with claim as (
      insert into ${coachingCalls} (user_id, slot, local_date, attempt, call_date, time_zone, kind, max_duration_seconds, completion_status, skip_reason, dial_lease_until, dialled_at, asked_commitment_ids)
      values (${request.userId}, ${request.slot}, ${request.localDate}::date, ${request.attempt}, ${request.dueAt.toISOString()}::timestamptz, ${person.timeZone}, ${kind},
              ${limit?.seconds ?? null}::int, ${skipReason ? 'skipped' : 'dialling'}, ${skipReason}, ${skipReason ? null : new Date(claim.dialAt.getTime() + DIAL_LEASE_MS).toISOString()}::timestamptz,
              ${dialledAt?.toISOString() ?? null}::timestamptz, ${`{${claim.askedCommitmentIds.join(',')}}`}::uuid[])
      on conflict do nothing
      returning id, user_id
    ), events as (
      insert into ${coachingCallEvents} (call_id, user_id, type, at, detail)
      select claim.id, claim.user_id, e.type, e.at, e.detail from claim cross join (values ${sql.join(events, sql`, `)}) as e(type, at, detail)
    )${retried}
    select id from claim`)
  const rows = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as Array<{ id: string }>
  const id = rows[0]?.id
  if (!id) return null
  if (skipReason) return { outcome: 'skipped' }
  const call: ClaimedCall = {
    id,
    userId: request.userId,
    slot: request.slot,
    kind,
    localDate: request.localDate,
    attempt: request.attempt,
    maxDurationSeconds: limit?.seconds ?? null,
    dialledAt,
  }
  return { call, takenOver: false }
}

/**
 * A claim that exists already: nothing to do once it was dialled or settled; a claim left
 * dialling whose lease ran out (its dialler died, or a test call waiting) is taken over.
 */
async function takeOver(deps: DiallerDeps, request: PlaceCallRequest, now: Date): Promise<Claim> {
  const { db } = deps
  const [existing] = request.callId
    ? await db.select().from(coachingCalls).where(and(eq(coachingCalls.id, request.callId), eq(coachingCalls.userId, request.userId))).limit(1)
    : await db
        .select()
        .from(coachingCalls)
        .where(and(eq(coachingCalls.userId, request.userId), eq(coachingCalls.slot, request.slot), eq(coachingCalls.localDate, request.localDate!), eq(coachingCalls.attempt, request.attempt)))
        .limit(1)
  if (!existing) return { outcome: request.callId ? 'no_user' : 'duplicate' }
  if (existing.completionStatus !== 'dialling' || existing.vapiCallId) return { outcome: 'duplicate' }
  const [taken] = await db
    .update(coachingCalls)
    .set({ dialLeaseUntil: new Date(now.getTime() + DIAL_LEASE_MS), updatedAt: now })
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
}

/** Marks a claimed call as failed to dial (nothing was placed); its line, if it had one, is given back. */
async function failDial(deps: DiallerDeps, call: ClaimedCall, reason: string, detail: Record<string, unknown>, now: Date): Promise<void> {
  await deps.lines.release(call.id)
  await deps.db.transaction(async (tx) => {
    const [updated] = await tx
      .update(coachingCalls)
      .set({ completionStatus: 'failed', endedReason: reason, endedAt: now, dialLeaseUntil: null, updatedAt: now })
      .where(and(eq(coachingCalls.id, call.id), eq(coachingCalls.completionStatus, 'dialling'), isNull(coachingCalls.vapiCallId)))
      .returning({ id: coachingCalls.id })
    if (updated) await addCallEvent(tx, call, 'dial_failed', now, { reason, ...detail })
  })
}

/** Releases the claim's lease (and its line) so a later try (or the tick) may take it over. */
async function release(deps: DiallerDeps, call: ClaimedCall, event: string, detail: Record<string, unknown>, now: Date): Promise<void> {
  await deps.lines.release(call.id)
  await deps.db.transaction(async (tx) => {
    await tx.update(coachingCalls).set({ dialLeaseUntil: null, updatedAt: now }).where(and(eq(coachingCalls.id, call.id), isNull(coachingCalls.vapiCallId)))
    await addCallEvent(tx, call, event, now, detail)
  })
}

/** Records that Vapi has the call (from the dial's answer or a reconciliation) and applies what Vapi said of it. */
async function attach(deps: DiallerDeps, call: ClaimedCall, vapiCallId: string, event: 'dialled' | 'reconciled', record: VapiCallRecord | null, now: Date): Promise<void> {
  if (!record) {
    // The dial's answer: the row and its event in one statement.
    await deps.db.execute(sql`
      with attached as (
        update ${coachingCalls}
        set vapi_call_id = coalesce(vapi_call_id, ${vapiCallId}),
            completion_status = case when completion_status in ('scheduled', 'dialling') then 'queued' else completion_status end,
            dial_lease_until = null, updated_at = ${now.toISOString()}::timestamptz
        where id = ${call.id}
        returning id, user_id
      )
      insert into ${coachingCallEvents} (call_id, user_id, type, at, detail)
      select id, user_id, ${event}::text, ${now.toISOString()}::timestamptz, ${JSON.stringify({ vapiCallId })}::jsonb from attached`)
    return
  }
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
    return applyObservation(tx, observationOfRecord(record, call.id, now), { now, eligibleAt: deps.eligibleAt })
  })
  await deps.afterApply(applied)
}

/**
 * Parks a prepared call until its instant, then checks it again: the claim is still to be dialled
 * (nothing cancelled it meanwhile) and the person may still be called (the same rules as at the
 * claim, on what is stored now). Returns the instant, or null when the call is not to be dialled
 * (a call the person may no longer get is recorded as skipped). A runner that stops meanwhile gets
 * the claim back as never dialled, and JobStopping is thrown (the job is tried again later).
 */
async function atTheInstant(deps: DiallerDeps, call: ClaimedCall, waitUntil: (at: Date) => Promise<void>): Promise<{ at: Date; phone: string | null } | null> {
  try {
    await waitUntil(call.dialledAt!)
  } catch (error) {
    const now = deps.clock.now()
    await deps.db.transaction(async (tx) => {
      await tx
        .update(coachingCalls)
        .set({ dialLeaseUntil: null, dialledAt: null, updatedAt: now })
        .where(and(eq(coachingCalls.id, call.id), eq(coachingCalls.completionStatus, 'dialling'), isNull(coachingCalls.vapiCallId)))
      await addCallEvent(tx, call, 'dial_deferred', now, { reason: 'the worker stopped before the call was due' })
    })
    throw error
  }
  const now = deps.clock.now()
  const state = await deps.instant.check(call.id, now)
  if (!state?.stillDialling) return null
  const eligibility = eligibilityOf(state.person, now)
  // The number dialled is the one the rules were checked on now: a number changed since the claim
  // is not called on the old number's proof.
  if (eligibility.eligible) return { at: now, phone: state.person.phoneNumber }
  await deps.db.transaction(async (tx) => {
    const [skipped] = await tx
      .update(coachingCalls)
      .set({ completionStatus: 'skipped', skipReason: eligibility.reason, dialLeaseUntil: null, dialledAt: null, updatedAt: now })
      .where(and(eq(coachingCalls.id, call.id), eq(coachingCalls.completionStatus, 'dialling'), isNull(coachingCalls.vapiCallId)))
      .returning({ id: coachingCalls.id })
    if (skipped) await addCallEvent(tx, call, 'skipped', now, { reason: eligibility.reason })
  })
  return null
}

type LineWait = { at: Date; cause: 'lines_busy' | 'pace' | null }

/**
 * Waits for a line and the pace's turn (docs/decisions/069), in the queue's order, keeping the
 * claim's lease while it waits. Returns when the line is held, or null when the call is not to be
 * dialled any more: it waited past LINE_WAIT_LIMIT_MS (recorded as skipped, 'no_line_free'), or
 * its claim was settled meanwhile (cancelled). A worker that stops gives its place and claim back.
 */
async function waitForLine(deps: DiallerDeps, call: ClaimedCall, dueAt: Date, numberId: string | null, wait: Waiter): Promise<LineWait | null> {
  try {
    return await waitInQueue(deps, call, dueAt, numberId, wait)
  } catch (error) {
    // Whatever failed, the call leaves the queue: a waiter gone for good would hold up the ones behind it.
    await deps.lines.leave(call.id).catch(() => {})
    throw error
  }
}

async function waitInQueue(deps: DiallerDeps, call: ClaimedCall, dueAt: Date, numberId: string | null, wait: Waiter): Promise<LineWait | null> {
  const { db, clock, lines, log } = deps
  const leaseMs = (call.maxDurationSeconds ?? 300) * 1000 + LINE_LEASE_MARGIN_MS
  const place = { retry: call.attempt > 0, dueAt, goalSession: call.kind === 'goal_session' }
  let cause: LineWait['cause'] = null
  // The claim's lease is renewed while the call waits (a dialler that dies frees it within minutes).
  let renewAt = clock.now().getTime()
  for (;;) {
    const now = clock.now()
    const answer = await lines.takePhone({ holder: call.id, place, numberId, leaseMs })
    if (answer.granted) return { at: now, cause }
    if (cause !== 'lines_busy') cause = answer.cause
    if (now.getTime() - dueAt.getTime() >= LINE_WAIT_LIMIT_MS) {
      await lines.leave(call.id)
      const skipped = await db.transaction(async (tx) => {
        const [row] = await tx
          .update(coachingCalls)
          .set({ completionStatus: 'skipped', skipReason: 'no_line_free', dialLeaseUntil: null, dialledAt: null, updatedAt: now })
          .where(and(eq(coachingCalls.id, call.id), eq(coachingCalls.completionStatus, 'dialling'), isNull(coachingCalls.vapiCallId)))
          .returning({ id: coachingCalls.id })
        if (row) await addCallEvent(tx, call, 'skipped', now, { reason: 'no_line_free', waitedMinutes: Math.round((now.getTime() - dueAt.getTime()) / 60_000) })
        return row !== undefined
      })
      if (skipped) log.error({ callId: call.id, userId: call.userId, dueAt, position: answer.position }, 'calls: no line was free for an hour past the call\'s time; the call is skipped (raise VAPI_MAX_CONCURRENT_CALLS or VAPI_DIALS_PER_SECOND)')
      return null
    }
    if (now.getTime() >= renewAt) {
      // The claim stays this worker's while it waits; a claim settled meanwhile (calls turned off) is not dialled.
      const [kept] = await db
        .update(coachingCalls)
        .set({ dialLeaseUntil: new Date(now.getTime() + WAIT_LEASE_MS), updatedAt: now })
        .where(and(eq(coachingCalls.id, call.id), eq(coachingCalls.completionStatus, 'dialling'), isNull(coachingCalls.vapiCallId)))
        .returning({ id: coachingCalls.id })
      if (!kept) {
        await lines.leave(call.id)
        return null
      }
      renewAt = now.getTime() + WAIT_LEASE_MS / 2
    }
    try {
      // A line given back in this process wakes the queue at once; the timer covers the others'.
      const until = Math.min(now.getTime() + answer.retryInMs, renewAt, dueAt.getTime() + LINE_WAIT_LIMIT_MS)
      await wait(new Date(until), answer.cause === 'lines_busy' && answer.position < WAKE_DEPTH ? lines.freed() : undefined)
    } catch (error) {
      await lines.leave(call.id)
      const at = clock.now()
      await db.transaction(async (tx) => {
        await tx
          .update(coachingCalls)
          .set({ dialLeaseUntil: null, updatedAt: at })
          .where(and(eq(coachingCalls.id, call.id), eq(coachingCalls.completionStatus, 'dialling'), isNull(coachingCalls.vapiCallId)))
        await addCallEvent(tx, call, 'dial_deferred', at, { reason: 'the worker stopped while the call waited for a line' })
      })
      throw error
    }
  }
}

/** Why a call dialled at `got.at` was late, when it was late over a minute because it waited; else null. */
function lateReason(dueAt: Date, got: LineWait): LineWait['cause'] {
  return got.cause !== null && got.at.getTime() - dueAt.getTime() > LATE_AFTER_MS ? got.cause : null
}

/** The dial's instant (kept before the request: a reconciliation looks for the call around it) and why it waited. */
async function markDialling(deps: DiallerDeps, call: ClaimedCall, dueAt: Date, got: LineWait): Promise<void> {
  await deps.db
    .update(coachingCalls)
    .set({ dialledAt: got.at, dialWaitReason: lateReason(dueAt, got), dialLeaseUntil: new Date(got.at.getTime() + DIAL_LEASE_MS), updatedAt: got.at })
    .where(eq(coachingCalls.id, call.id))
}

type Waiter = (at: Date, wake?: Promise<unknown>) => Promise<void>

/** Parks until `at` (or `wake`): the job runner's (driven by its clock), or a plain timer when there is none. */
const sleeper = (timing: DialTiming): Waiter =>
  timing.waitUntil ??
  ((at, wake) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, Math.max(0, at.getTime() - Date.now()))
      void wake?.then(() => {
        clearTimeout(timer)
        resolve()
      })
    }))

/**
 * One try of placing a call. Throws DialLater when the try must be repeated (the job retries it);
 * `lastTry` turns what would be repeated into a recorded failure.
 */
export async function placeCall(deps: DiallerDeps, request: PlaceCallRequest, timing: DialTiming): Promise<PlaceOutcome> {
  const seen: Seen = { kind: request.slot === 'test' ? 'call_now' : 'check_in' }
  try {
    const outcome = await placeCallTry(deps, request, timing, seen)
    deps.metrics.calls.dialled(seen.kind, outcome)
    return outcome
  } catch (error) {
    if (error instanceof DialLater) deps.metrics.calls.dialled(seen.kind, 'deferred')
    throw error
  }
}

/** What a try learnt of its call, for the counts: its kind once claimed. */
type Seen = { kind: CountedCallKind }

const countedKind = (call: Pick<ClaimedCall, 'slot' | 'kind'>): CountedCallKind =>
  call.slot === 'test' ? 'call_now' : call.kind === 'goal_session' ? 'goal_session' : 'check_in'

async function placeCallTry(deps: DiallerDeps, request: PlaceCallRequest, timing: DialTiming, seen: Seen): Promise<PlaceOutcome> {
  const { db, log, vapi } = deps
  const { lastTry } = timing
  let now = deps.clock.now()
  if (!vapi) {
    log.warn({ userId: request.userId }, 'calls: Vapi is not configured; no call placed')
    return 'not_configured'
  }
  // Found once per process, ahead of the instant of a call prepared ahead.
  const server = await deps.webhookServer()

  // A daily call's first try: one read, then the claim in one statement (the common case, kept
  // to few round trips so that a minute's burst of calls goes out on time).
  let claimed: Claim | null = null
  let person: CallPerson | null = null
  let variables: DialVariables | null = null
  if (!request.callId && request.localDate) {
    // The coach brief (the memory's own reads) alongside the one statement, not after it.
    const [read, brief] = await Promise.all([readForDial(db, request.userId, request.localDate, now), buildBrief(db, request.userId, now)])
    if (!read) return 'no_user'
    person = read.person
    const call = { slot: request.slot, localDate: request.localDate, kind: 'check_in' as const, maxDurationSeconds: null }
    const { phone, askedCommitmentIds } = variablesOf(read.person, read.context, read.previousSummary, read.lastCoachSession, read.asked, call, brief)
    // Prepared ahead (the tick enqueues the job a little before the instant): claimed and built
    // now, parked, and dialled at the instant with nothing left to do but ask Vapi.
    const prepared = timing.waitUntil !== undefined && request.dueAt.getTime() > now.getTime()
    const dialAt = prepared ? request.dueAt : now
    claimed = await insertClaim(db, { request: { ...request, localDate: request.localDate }, person, goalSessionOwed: read.goalSessionOwed, phone, askedCommitmentIds, now, dialAt })
    if (claimed && 'call' in claimed) {
      variables = variablesOf(read.person, read.context, read.previousSummary, read.lastCoachSession, read.asked, claimed.call, brief)
      if (prepared && variables.phone) {
        const instant = await atTheInstant(deps, claimed.call, timing.waitUntil!)
        if (instant === null) return 'skipped'
        now = instant.at
        variables = { ...variables, phone: instant.phone }
      }
    }
  }
  person ??= await loadCallPerson(db, request.userId, now)
  if (!person) return 'no_user'
  // A test call, or a claim that exists already: take it over if its dialler left it.
  claimed ??= await takeOver(deps, request, now)
  if ('outcome' in claimed) return claimed.outcome
  const { call } = claimed
  seen.kind = countedKind(call)
  if (timing.firstTry) deps.metrics.calls.due(seen.kind)

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

  let dial = variables
  if (!dial) {
    // A test call or a claim taken over: its variables are read now, and the open commitments
    // they number are kept on the call for its report.
    dial = await callVariables(db, person, call, now)
    await db.update(coachingCalls).set({ askedCommitmentIds: dial.askedCommitmentIds }).where(eq(coachingCalls.id, call.id))
  }
  const { values, firstName, phone } = dial
  if (!phone) {
    await failDial(deps, call, 'no-phone-number', {}, now)
    return 'failed'
  }
  // The last guard before the money is spent: only a US or Canadian geographic number is ever
  // dialled, whatever an older account holds (docs/decisions/060).
  if (!isCallableNumber(phone)) {
    await failDial(deps, call, 'number-not-callable', {}, now)
    return 'failed'
  }
  const numberId = callerNumberOf(call.userId, deps.phoneNumberIds)
  if (!numberId) {
    await failDial(deps, call, 'no-caller-number', {}, now)
    return 'failed'
  }
  const request_ = {
    callId: call.id,
    phoneNumberId: numberId,
    customerNumber: e164(phone),
    customerName: firstName,
    variableValues: values,
    maxDurationSeconds: call.maxDurationSeconds ?? 300,
    metadata: { callId: call.id, userId: call.userId, slot: call.slot, localDate: call.localDate ?? '', attempt: call.attempt },
    serverMessages: CALL_SERVER_MESSAGES,
    server,
  } satisfies DialRequest
  // A line and the pace's turn, then the dial; Vapi saying it has no line puts the call back in the
  // queue at its place (not an attempt).
  let outcome: Awaited<ReturnType<VapiCallsClient['dial']>>
  for (let refusals = 0; ; refusals++) {
    const got = await waitForLine(deps, call, request.dueAt, numberId, sleeper(timing))
    if (!got) return 'no_line_free'
    now = got.at
    // A new claim was written with the dial's instant; one that waited, or was taken over, gets this try's.
    if (got.cause !== null || claimed.takenOver || !call.dialledAt) await markDialling(deps, call, request.dueAt, got)
    outcome = await deps.instant.dialling(() => vapi.dial(request_))
    const limits = outcome.kind === 'placed' || outcome.kind === 'line_refused' ? outcome.limits : null
    if (limits?.concurrencyLimit) await deps.lines.learnLimit(limits.concurrencyLimit)
    if (outcome.kind !== 'line_refused') {
      // The timeline says once how late the call went out, and why.
      const reason = lateReason(request.dueAt, got)
      deps.metrics.calls.lateness((got.at.getTime() - request.dueAt.getTime()) / 1000)
      if (reason) await addCallEvent(deps.db, call, 'line_wait', got.at, { lateSeconds: Math.round((got.at.getTime() - request.dueAt.getTime()) / 1000), reason })
      break
    }
    // Vapi had no line although the count had one: nobody is given a line for a while (longer each
    // time), and the call waits again at its place in the queue (not an attempt).
    const pause = Math.min(LINE_REFUSED_PAUSE_MS * 2 ** refusals, LINE_REFUSED_PAUSE_MAX_MS)
    deps.metrics.calls.dialled(seen.kind, 'line_refused')
    log.warn({ callId: call.id, vapiCallId: outcome.vapiCallId, limits, pauseMs: pause }, 'calls: Vapi had no line for the call; it waits for one again')
    await deps.lines.release(call.id)
    await deps.lines.backOff(pause)
    const refusedId = outcome.vapiCallId
    const still = await deps.db.transaction(async (tx) => {
      const [row] = await tx
        .update(coachingCalls)
        .set({ dialledAt: null, updatedAt: now })
        .where(and(eq(coachingCalls.id, call.id), eq(coachingCalls.completionStatus, 'dialling'), isNull(coachingCalls.vapiCallId)))
        .returning({ id: coachingCalls.id })
      if (row) await addCallEvent(tx, call, 'line_refused', now, { vapiCallId: refusedId })
      return row !== undefined
    })
    // Settled meanwhile (calls turned off, or the claim was given up): nothing more to dial.
    if (!still) return 'skipped'
    call.dialledAt = null
  }

  if (outcome.kind === 'placed') {
    // The other dials of this instant first; then the record (batched) and the job's completion.
    await deps.instant.quiet()
    await deps.instant.attach({ callId: call.id, vapiCallId: outcome.vapiCallId, at: now })
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
