/**
 * The outbound texts' outbox (docs/decisions/045). Asking for a text writes its row (once per
 * dedupe key) as held and due now; a sender then claims it in a transaction that checks, in order:
 * the consent ledger (texts granted), a phone number that is proven the person's and did not text
 * STOP (docs/decisions/060), the person's 8:00 AM-9:00 PM local window
 * (else held to the next 8:00 AM), the cap of 3 texts a local day (else held to the next morning),
 * and whether it is the person's first text of the week (the opt-out footer); a number texts cannot
 * reach (delivery.ts) gets none. Claims of one person
 * are serialised (a transaction-scoped advisory lock), so two senders never pass the cap together.
 * The request to Twilio goes out after the claim commits; a claim whose sender died is never sent
 * again blindly (Twilio has no idempotency key): it is marked failed.
 */
import { and, asc, eq, gte, inArray, lt, lte, ne, sql } from 'drizzle-orm'
import { Temporal } from 'temporal-polyfill'
import type { Db, DbExecutor } from '#server/db/client'
import { profiles, textMessages, TEXT_OUT_STATUSES, users, type TextKind, type TextMessage } from '#server/db/schema'
import type { TextSender } from '#server/integrations/twilio'
import { isCallableNumber } from '#server/lib/phone-numbers'
import { fireInstant, localDateOf, localTimeOf } from '#server/services/calls'
import { hasConsent } from '#server/services/consent'
import { isStopped, proofOf } from '#server/services/phones'
import { finalBody, segmentsOf } from './compose'
import { isSuppressed, isUndeliverable, recordCarrierOptOut, suppressNumber, UNANSWERED } from './delivery'
import type { Metrics } from '#server/observability/metrics'

/** The local hours texts may go out in: from 8:00 AM, up to (not including) 9:00 PM. */
const TEXT_WINDOW = { from: '08:00', until: '21:00' } as const
/** Texts a person gets at most per local day. */
const DAILY_TEXT_CAP = 3
/** How long a sender holds a claimed text (a send takes at most the client's 10 s timeout). */
export const SEND_LEASE_MS = 2 * 60_000
/** Texts a release run sends at most. */
const RELEASE_BATCH = 500

export type TextRequest = {
  userId: string
  kind: TextKind
  /** One text per key, however often it is asked for: recap:<call id>, missed_call:<user>:<slot>:<date>, weekly_report:<user>:<week>. */
  dedupeKey: string
  content: string
  callId?: string | null | undefined
  /**
   * A text that is pointless once this local date is over (a missed call's "we will call again at
   * 10:10"): held past it, it is skipped instead.
   */
  onlyOnLocalDate?: string | undefined
}

/** Writes the text's row (held, due now) unless its key exists. Returns its id and whether it is new. */
export async function requestText(db: DbExecutor, request: TextRequest, now: Date): Promise<{ id: string; created: boolean }> {
  const [created] = await db
    .insert(textMessages)
    .values({
      userId: request.userId,
      kind: request.kind,
      dedupeKey: request.dedupeKey,
      callId: request.callId ?? null,
      content: request.content,
      status: 'held',
      holdUntil: now,
      // Kept until the claim sets the date it counted against.
      localDate: request.onlyOnLocalDate ?? null,
      createdAt: now,
      updatedAt: now,
    })
    .onConflictDoNothing({ target: textMessages.dedupeKey })
    .returning({ id: textMessages.id })
  if (created) return { id: created.id, created: true }
  const [existing] = await db.select({ id: textMessages.id }).from(textMessages).where(eq(textMessages.dedupeKey, request.dedupeKey)).limit(1)
  return { id: existing!.id, created: false }
}

/**
 * Texts of `kind` still held for the person are not sent after all (`reason` kept): what they told
 * of has happened (the coach's messages were read). A text already on its way goes.
 */
export async function withdrawHeld(db: DbExecutor, userId: string, kind: TextKind, reason: string, now: Date): Promise<number> {
  const withdrawn = await db
    .update(textMessages)
    .set({ status: 'skipped', skipReason: reason, holdUntil: null, updatedAt: now })
    .where(and(eq(textMessages.userId, userId), eq(textMessages.kind, kind), eq(textMessages.status, 'held')))
    .returning({ id: textMessages.id })
  return withdrawn.length
}

/** The person's local window on the date of `now`: is `now` inside, and when does the next one open. */
function textWindow(now: Date, timeZone: string): { inside: boolean; nextOpen: Date; localDate: string } {
  const localDate = localDateOf(now, timeZone)
  const time = localTimeOf(now, timeZone)
  const inside = time >= TEXT_WINDOW.from && time < TEXT_WINDOW.until
  const today = Temporal.PlainDate.from(localDate)
  const opensToday = fireInstant(localDate, TEXT_WINDOW.from, timeZone)
  const nextOpen = opensToday.getTime() > now.getTime() ? opensToday : fireInstant(today.add({ days: 1 }).toString(), TEXT_WINDOW.from, timeZone)
  return { inside, nextOpen, localDate }
}

/** Monday and Sunday of the local date's week. */
function weekOf(localDate: string): { monday: string; sunday: string } {
  const date = Temporal.PlainDate.from(localDate)
  const monday = date.subtract({ days: date.dayOfWeek - 1 })
  return { monday: monday.toString(), sunday: monday.add({ days: 6 }).toString() }
}

type OutboxDeps = {
  db: Db
  sender: TextSender
  /** SMS_OPT_IN_NUMBER: texts are sent from it. */
  from: string
  /** Where Twilio reports what became of each text (APP_URL + /api/webhooks/sms/status); none when texts are only logged. */
  statusCallback?: string | undefined
  /** Sends counted by what became of them, and Twilio's refusals by code. */
  metrics: Pick<Metrics, 'texts'>
}

type Claimed = { text: TextMessage; to: string; body: string }
export type DeliverOutcome = 'sent' | 'logged' | 'held' | 'skipped' | 'failed' | 'retry' | 'not_due' | 'gone'

/** The query parameter of the StatusCallback URL that names our text. */
export const STATUS_TEXT_PARAM = 'text'

/** An account's ten digits as E.164 (+1…), for Twilio. */
export const e164 = (digits: string) => (digits.startsWith('+') ? digits : `+1${digits}`)

/** The claim: every check, and the row moved to 'sending' (or held, or skipped), in one transaction. */
async function claim(db: Db, id: string, now: Date): Promise<{ outcome: DeliverOutcome } | Claimed> {
  return db.transaction(async (tx) => {
    const [text] = await tx.select().from(textMessages).where(eq(textMessages.id, id)).limit(1).for('update')
    if (!text) return { outcome: 'gone' as const }
    if (text.status !== 'held') return { outcome: 'not_due' as const }
    if (text.holdUntil && text.holdUntil.getTime() > now.getTime()) return { outcome: 'not_due' as const }
    // One claim per person at a time: the cap's count below cannot be passed by two senders at once.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`texts:${text.userId}`}, 0))`)

    const skip = async (reason: string) => {
      await tx.update(textMessages).set({ status: 'skipped', skipReason: reason, holdUntil: null, updatedAt: now }).where(eq(textMessages.id, id))
      return { outcome: 'skipped' as const }
    }
    const hold = async (until: Date, reason: string) => {
      await tx.update(textMessages).set({ holdUntil: until, skipReason: reason, updatedAt: now }).where(eq(textMessages.id, id))
      return { outcome: 'held' as const }
    }

    if (!(await hasConsent(tx, text.userId, 'texts'))) return skip('no_consent')
    const [person] = await tx
      .select({ phone: sql<string | null>`coalesce(${profiles.phoneNumber}, ${users.phoneNumber})`, timeZone: profiles.timezone })
      .from(users)
      .leftJoin(profiles, eq(profiles.id, users.id))
      .where(eq(users.id, text.userId))
      .limit(1)
    if (!person?.phone) return skip('no_phone')
    // Never a number that texted STOP, nor one the person has not proven theirs (docs/decisions/060).
    if (await isStopped(tx, person.phone)) return skip('do_not_contact')
    if (!(await proofOf(tx, text.userId, person.phone))) return skip('unverified')
    // Only a US or Canadian geographic number, whatever an older account holds.
    if (!isCallableNumber(person.phone)) return skip('not_callable')
    if (await isSuppressed(tx, text.userId, e164(person.phone))) return skip('undeliverable')
    const timeZone = person.timeZone ?? 'America/New_York'
    const window = textWindow(now, timeZone)
    // A text bound to its day (a missed call's retry time) is dropped rather than sent another day.
    const boundTo = text.kind === 'missed_call' ? text.localDate : null
    if (boundTo && boundTo !== window.localDate) return skip('stale')
    if (!window.inside) {
      if (boundTo && localDateOf(window.nextOpen, timeZone) !== boundTo) return skip('stale')
      return hold(window.nextOpen, 'quiet_hours')
    }
    const counted = inArray(textMessages.status, [...TEXT_OUT_STATUSES])
    const [today] = await tx
      .select({ count: sql<number>`count(*)::int` })
      .from(textMessages)
      .where(and(eq(textMessages.userId, text.userId), eq(textMessages.localDate, window.localDate), counted, ne(textMessages.id, id)))
    if ((today?.count ?? 0) >= DAILY_TEXT_CAP) {
      if (boundTo) return skip('daily_cap')
      const tomorrow = Temporal.PlainDate.from(window.localDate).add({ days: 1 }).toString()
      return hold(fireInstant(tomorrow, TEXT_WINDOW.from, timeZone), 'daily_cap')
    }
    const week = weekOf(window.localDate)
    const [earlier] = await tx
      .select({ id: textMessages.id })
      .from(textMessages)
      .where(and(eq(textMessages.userId, text.userId), gte(textMessages.localDate, week.monday), lte(textMessages.localDate, week.sunday), counted, ne(textMessages.id, id)))
      .limit(1)
    const body = finalBody(text.content, !earlier)
    const to = e164(person.phone)
    const [claimed] = await tx
      .update(textMessages)
      .set({
        status: 'sending',
        body,
        toNumber: to,
        localDate: window.localDate,
        holdUntil: null,
        skipReason: null,
        segments: segmentsOf(body),
        attempts: sql`${textMessages.attempts} + 1`,
        leaseUntil: new Date(now.getTime() + SEND_LEASE_MS),
        updatedAt: now,
      })
      .where(eq(textMessages.id, id))
      .returning()
    return { text: claimed!, to, body }
  })
}

/**
 * Sends one text if it is due: claims it, asks Twilio (or logs it), and records what came of it.
 * A 21610 (the person opted out with the carrier) is also a revocation in the consent ledger; a
 * number Twilio says cannot take texts (21211, 21614) gets no more.
 */
export async function deliverText(deps: OutboxDeps, id: string, now: () => Date): Promise<DeliverOutcome> {
  const outcome = await deliverOnce(deps, id, now)
  if (outcome === 'sent' || outcome === 'logged' || outcome === 'failed' || outcome === 'skipped') deps.metrics.texts.sent(outcome)
  return outcome
}

async function deliverOnce(deps: OutboxDeps, id: string, now: () => Date): Promise<DeliverOutcome> {
  const claimed = await claim(deps.db, id, now())
  if ('outcome' in claimed) return claimed.outcome
  const { text, to, body } = claimed
  // The text's id rides in the callback's URL (signed with it): a callback that comes before the
  // answer below is recorded still finds its text.
  const statusCallback = deps.statusCallback && `${deps.statusCallback}?${STATUS_TEXT_PARAM}=${id}`
  const result = await deps.sender.send({ to, from: deps.from, body, statusCallback })
  const at = now()
  switch (result.kind) {
    case 'sent':
      await deps.db
        .update(textMessages)
        .set({
          // Sent, unless its callback already said what became of it. A text the sweep gave up on
          // meanwhile (the answer was slow) is sent after all.
          status: sql`case when ${awaitingAnswer} then 'sent' else ${textMessages.status} end`,
          skipReason: sql`case when ${awaitingAnswer} then null else ${textMessages.skipReason} end`,
          providerSid: result.sid,
          segments: result.segments ?? text.segments,
          sentAt: at,
          leaseUntil: null,
          updatedAt: at,
        })
        .where(eq(textMessages.id, id))
      return 'sent'
    case 'logged':
      await deps.db.update(textMessages).set({ status: 'logged', sentAt: at, leaseUntil: null, updatedAt: at }).where(eq(textMessages.id, id))
      return 'logged'
    case 'retry':
      // Nothing was created: held again, tried by the next release run.
      await deps.db
        .update(textMessages)
        .set({ status: 'held', holdUntil: new Date(at.getTime() + 60_000), skipReason: `provider_busy: ${result.message.slice(0, 200)}`, leaseUntil: null, updatedAt: at })
        .where(eq(textMessages.id, id))
      return 'retry'
    case 'refused':
      deps.metrics.texts.refused(result.code)
      await deps.db.transaction(async (tx) => {
        await tx
          .update(textMessages)
          .set({ status: 'failed', errorCode: result.code, skipReason: result.message.slice(0, 300), leaseUntil: null, updatedAt: at })
          .where(eq(textMessages.id, id))
        if (result.code === 21610) await recordCarrierOptOut(tx, { userId: text.userId, to, textId: id, message: result.message, at })
        if (isUndeliverable(result.code)) await suppressNumber(tx, { userId: text.userId, to, errorCode: result.code, textId: id, at })
      })
      return 'failed'
    case 'unknown':
      // Twilio may have it: never sent again (no idempotency key), marked for a person to look at
      // (unless its status callback, which names the text, already said what became of it).
      await deps.db
        .update(textMessages)
        .set({ status: 'failed', skipReason: `${UNANSWERED} ${result.message.slice(0, 280)}`, leaseUntil: null, updatedAt: at })
        .where(and(eq(textMessages.id, id), eq(textMessages.status, 'sending')))
      return 'failed'
  }
}

/** A claimed text whose answer from Twilio is not recorded: still sending, or given up on by the sweep. */
const awaitingAnswer = sql`(${textMessages.status} = 'sending' or (${textMessages.status} = 'failed' and ${textMessages.skipReason} like ${`${UNANSWERED}%`}))`

/** Held texts that are due, oldest first. */
export async function dueTexts(db: DbExecutor, now: Date, limit = RELEASE_BATCH): Promise<string[]> {
  const rows = await db
    .select({ id: textMessages.id })
    .from(textMessages)
    .where(and(eq(textMessages.status, 'held'), lte(textMessages.holdUntil, now)))
    .orderBy(asc(textMessages.holdUntil))
    .limit(limit)
  return rows.map((row) => row.id)
}

/** Claims whose sender died before it recorded the answer: Twilio may have the text, so it is not sent again. */
export async function abandonTexts(db: DbExecutor, now: Date): Promise<number> {
  const rows = await db
    .update(textMessages)
    .set({ status: 'failed', skipReason: `${UNANSWERED} the sender stopped before Twilio answered`, leaseUntil: null, updatedAt: now })
    .where(and(eq(textMessages.status, 'sending'), lt(textMessages.leaseUntil, now)))
    .returning({ id: textMessages.id })
  return rows.length
}

/** A person's held texts, skipped (their consent to texts was revoked). */
export async function skipHeldTexts(db: DbExecutor, userIds: readonly string[], now: Date): Promise<void> {
  if (userIds.length === 0) return
  await db
    .update(textMessages)
    .set({ status: 'skipped', skipReason: 'no_consent', holdUntil: null, updatedAt: now })
    .where(and(inArray(textMessages.userId, [...userIds]), eq(textMessages.status, 'held')))
}
