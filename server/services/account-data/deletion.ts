/**
 * "Delete my account" (docs/decisions/051). The person shows it is them (the typed email, then the
 * password under the login limits); Stripe stops charging first (a failure there stops the
 * deletion); then one transaction takes everything: what billing law keeps is copied, detached
 * from the person, into retained_billing_records; the rows no foreign key reaches are deleted;
 * and deleting the users row cascades to every other table (tables.ts lists them all). After the
 * commit: the person's open sockets close, the jobs still waiting for them leave the queue, the
 * calls Vapi may still place are deleted there, what the processors keep of the person (Vapi's
 * calls and chats, Twilio's text bodies) is left to the processor-deletion job (processors.ts),
 * and the last email goes out. The email is free to sign up again at once.
 */
import { and, eq, gt, inArray, isNotNull, or, sql } from 'drizzle-orm'
import type { Logger } from 'pino'
import { Temporal } from 'temporal-polyfill'
import type { Db, DbExecutor } from '#server/db/client'
import { coachingCalls, courseEnrollments, courses, profiles, retainedBillingRecords, subscribers, textMessages, users, weeklyReports } from '#server/db/schema'
import { AppError } from '#server/lib/app-error'
import type { Clock } from '#server/lib/clock'
import type { Accounts } from '#server/services/accounts'
import { keepTrialClaim, type Billing, type CancelledSubscription } from '#server/services/billing'
import { CANCEL_DELETED_CALLS_JOB, localDateOf, PLACE_CALL_JOB, placeCallJobId, REVOKED_RECHECK_MS, testCallJobId, type DeletedCall } from '#server/services/calls'
import { REPORT_DELIVERY_JOB, reportDeliveryJobId } from '#server/services/reports'
import { SEND_TEXT_JOB, sendTextJobId } from '#server/services/texts'
import { PROCESSOR_DELETION_JOB, type AccountDataJobQueue, type DeletionJob } from './jobs'
import { noProcessorIds, processorPayloads, type ProcessorIds } from './processors'
import { USER_DATA } from './tables'

/** How long the billing records of a deleted account are kept: the longest period that applies (10 years). */
const BILLING_RETENTION_YEARS = 10

export type DeletionDeps = {
  db: Db
  clock: Clock
  log: Logger
  jobs: AccountDataJobQueue
  accounts: Pick<Accounts, 'reauthenticate' | 'sessionsOfUserEnded' | 'sendAccountDeletedEmail'>
  billing: Pick<Billing, 'endAllCharges'>
}

/** What the transaction leaves for after the commit. */
type Deleted = {
  email: string
  /** Job runs still waiting for the person, by job name. */
  jobs: Array<{ name: DeletionJob['name']; ids: string[] }>
  /** Calls Vapi holds or may be dialling now. */
  vapiNow: DeletedCall[]
  /** Dials that may be on their way: looked for again once any dial request has ended. */
  vapiLater: DeletedCall[]
  /** What the processors keep of the person, by their ids (the rows' provider ids). */
  atProcessors: ProcessorIds
  retained: number
}

/** Every place-call job id the person can have waiting: both slots, the person's yesterday, today and tomorrow, each try. */
function placeCallJobIds(userId: string, timeZone: string, now: Date): string[] {
  const today = Temporal.PlainDate.from(localDateOf(now, timeZone))
  const dates = [today.subtract({ days: 1 }), today, today.add({ days: 1 })].map(String)
  return (['daily', 'evening'] as const).flatMap((slot) => dates.flatMap((localDate) => [0, 1, 2].map((attempt) => placeCallJobId({ userId, slot, localDate, attempt }))))
}

const addYears = (date: Date, years: number) => {
  const out = new Date(date)
  out.setUTCFullYear(out.getUTCFullYear() + years)
  return out
}

/** What billing law keeps: the Stripe references of paid subscriptions and purchases, with no user id, email or name. */
async function retainBilling(tx: DbExecutor, userId: string, cancelled: readonly CancelledSubscription[], now: Date): Promise<number> {
  const retainUntil = addYears(now, BILLING_RETENTION_YEARS)
  const [subscriber] = await tx.select().from(subscribers).where(eq(subscribers.userId, userId))
  const purchases = await tx
    .select({ session: courseEnrollments.stripeCheckoutSessionId, slug: courses.slug })
    .from(courseEnrollments)
    .innerJoin(courses, eq(courses.id, courseEnrollments.courseId))
    .where(and(eq(courseEnrollments.userId, userId), eq(courseEnrollments.source, 'stripe'), isNotNull(courseEnrollments.stripeCheckoutSessionId)))
  const rows: Array<typeof retainedBillingRecords.$inferInsert> = []
  if (subscriber?.source === 'stripe' && subscriber.stripeSubscriptionId) {
    rows.push({
      kind: 'subscription',
      stripeCustomerId: subscriber.stripeCustomerId,
      stripeSubscriptionId: subscriber.stripeSubscriptionId,
      item: `plan:${subscriber.tier ?? 'unknown'}`,
      status: cancelled.find((sub) => sub.id === subscriber.stripeSubscriptionId)?.status ?? subscriber.status,
      accountDeletedAt: now,
      retainUntil,
    })
  }
  // Subscriptions Stripe had that the record did not (one a checkout left open started): kept too.
  for (const sub of cancelled) {
    if (sub.id === subscriber?.stripeSubscriptionId) continue
    rows.push({ kind: 'subscription', stripeCustomerId: sub.customer, stripeSubscriptionId: sub.id, item: `plan:${sub.tier ?? 'unknown'}`, status: sub.status, accountDeletedAt: now, retainUntil })
  }
  for (const purchase of purchases) {
    rows.push({ kind: 'course_purchase', stripeCustomerId: subscriber?.stripeCustomerId ?? null, stripeCheckoutSessionId: purchase.session, item: `course:${purchase.slug}`, status: 'paid', accountDeletedAt: now, retainUntil })
  }
  if (rows.length > 0) await tx.insert(retainedBillingRecords).values(rows)
  return rows.length
}

/** The one transaction: the person's row locked, what follows collected, billing kept, everything else deleted. */
async function deleteRows(db: Db, userId: string, cancelled: readonly CancelledSubscription[], now: Date): Promise<Deleted | null> {
  return db.transaction(async (tx) => {
    const [user] = await tx.select({ email: users.email, timeZone: profiles.timezone }).from(users).leftJoin(profiles, eq(profiles.id, users.id)).where(eq(users.id, userId)).for('update', { of: users })
    if (!user) return null

    // Calls Vapi may still place: queued or ringing there, or a dial on its way (due now or before).
    const open = await tx
      .select({ id: coachingCalls.id, vapiCallId: coachingCalls.vapiCallId, status: coachingCalls.completionStatus, dialledAt: coachingCalls.dialledAt, slot: coachingCalls.slot })
      .from(coachingCalls)
      .where(and(eq(coachingCalls.userId, userId), inArray(coachingCalls.completionStatus, ['scheduled', 'dialling', 'queued', 'ringing'])))
    const toDeleted = (call: (typeof open)[number]): DeletedCall => ({ callId: call.id, vapiCallId: call.vapiCallId, dialledAt: call.dialledAt?.toISOString() ?? null })
    const vapiNow = open.filter((call) => call.vapiCallId !== null || (call.dialledAt !== null && call.dialledAt <= now)).map(toDeleted)
    const vapiLater = open.filter((call) => call.vapiCallId === null && call.dialledAt !== null && call.dialledAt <= now).map(toDeleted)

    // The runs still waiting for the person: calls (any the tick may have enqueued, and test calls),
    // texts just asked for or held, reports not delivered yet.
    const testCalls = open.filter((call) => call.slot === 'test').map((call) => testCallJobId(call.id))
    const texts = await tx
      .select({ id: textMessages.id })
      .from(textMessages)
      .where(and(eq(textMessages.userId, userId), or(inArray(textMessages.status, ['held', 'sending']), gt(textMessages.createdAt, new Date(now.getTime() - 3_600_000)))))
    const reports = await tx
      .select({ id: weeklyReports.id })
      .from(weeklyReports)
      .where(and(eq(weeklyReports.userId, userId), sql`(${weeklyReports.generatedAt} is null or ${weeklyReports.emailStatus} in ('pending', 'sending') or ${weeklyReports.textStatus} = 'pending')`))
    const hour = Math.floor(now.getTime() / 3_600_000)
    const jobs = [
      { name: PLACE_CALL_JOB, ids: [...placeCallJobIds(userId, user.timeZone ?? 'America/New_York', now), ...testCalls] },
      { name: SEND_TEXT_JOB, ids: texts.map((text) => sendTextJobId(text.id)) },
      { name: REPORT_DELIVERY_JOB, ids: reports.flatMap((report) => [reportDeliveryJobId(report.id), reportDeliveryJobId(report.id, hour), reportDeliveryJobId(report.id, hour - 1)]) },
    ]

    const retained = await retainBilling(tx, userId, cancelled, now)
    // An address that had the free trial keeps having had it (a trial from before trials were claimed).
    await keepTrialClaim(tx, userId, now)
    // The rows no foreign key reaches (found through the person's calls and numbers), then the
    // person: every table with a foreign key to users cascades (the consent ledger's trigger lets
    // only that cascade delete its rows). On the way, the ids under which the processors keep
    // what these rows held, from the very rows that go (an explicit deletion returns them; a
    // cascade's rows are read first): what stays (a text another account shares) stays there too.
    const atProcessors = noProcessorIds()
    const collect = (kind: keyof ProcessorIds, rows: Array<{ id: unknown }>) => {
      for (const { id } of rows) if (typeof id === 'string' && id !== '') atProcessors[kind].push(id)
    }
    for (const part of USER_DATA) {
      const held = part.atProcessor
      if (part.deletion === 'explicit') {
        const rows = tx.delete(part.table).where(part.deleteRows?.(userId) ?? part.rowsOf(userId))
        if (held) collect(held.kind, await rows.returning({ id: held.column }))
        else await rows
      } else if (held) {
        collect(held.kind, await tx.select({ id: held.column }).from(part.table).where(and(part.rowsOf(userId), isNotNull(held.column))))
      }
    }
    await tx.delete(users).where(eq(users.id, userId))
    return { email: user.email, jobs, vapiNow, vapiLater, atProcessors, retained }
  })
}

export async function deleteAccount(deps: DeletionDeps, userId: string, input: { password: string; email: string }): Promise<void> {
  const { db, clock, log, jobs } = deps
  const [current] = await db.select({ email: users.email }).from(users).where(eq(users.id, userId))
  if (!current) throw new AppError('UNAUTHENTICATED')
  if (input.email !== current.email) {
    throw new AppError('VALIDATION_FAILED', 'Type the email of your account exactly as it is shown to confirm.', { field: 'email' })
  }
  await deps.accounts.reauthenticate(userId, input.password)

  // Stripe first, outside the transaction (docs/decisions/030): if it cannot be stopped from
  // charging, nothing is deleted and the person can try again.
  const cancelled = await deps.billing.endAllCharges(userId)
  // A voice call in the app ends (and its recorder finishes) before its rows go.
  deps.accounts.sessionsOfUserEnded(userId)

  const now = clock.now()
  const deleted = await deleteRows(db, userId, cancelled, now)
  if (!deleted) throw new AppError('UNAUTHENTICATED')
  log.info({ userId, retainedBillingRecords: deleted.retained, stripeSubscriptionsCancelled: cancelled.length }, 'account deleted')

  // After the commit; each step is best effort (the rows are gone, and every job finds nothing to do).
  deps.accounts.sessionsOfUserEnded(userId)
  const warn = (what: string) => (error: unknown) => log.warn({ err: error, userId }, `account deletion: ${what}`)
  for (const { name, ids } of deleted.jobs) {
    if (ids.length > 0 && jobs.remove) await jobs.remove(name, ids).catch(warn(`could not remove the waiting ${name} jobs`))
  }
  if (deleted.vapiNow.length > 0) await jobs.enqueue(CANCEL_DELETED_CALLS_JOB, { calls: deleted.vapiNow }).catch(warn('could not enqueue the cancellation of calls at Vapi'))
  if (deleted.vapiLater.length > 0) {
    await jobs.enqueue(CANCEL_DELETED_CALLS_JOB, { calls: deleted.vapiLater }, { delayMs: REVOKED_RECHECK_MS }).catch(warn('could not enqueue the second look for calls at Vapi'))
  }
  // Vapi's calls and chats, Twilio's text bodies: by their ids only, retried until done.
  const { payloads, malformed } = processorPayloads(deleted.atProcessors)
  if (malformed > 0) log.warn({ userId, malformed }, 'account deletion: ids of a form no processor uses were left out of the processor deletion')
  for (const payload of payloads) {
    await jobs.enqueue(PROCESSOR_DELETION_JOB, payload).catch((error: unknown) => log.warn({ err: error, userId, ids: payload }, 'account deletion: could not enqueue the deletion at the processors'))
  }
  await deps.accounts.sendAccountDeletedEmail(deleted.email).catch(warn('could not queue the last email'))
}
