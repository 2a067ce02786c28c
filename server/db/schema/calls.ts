import { sql } from 'drizzle-orm'
import { bigint, check, date, index, integer, jsonb, pgTable, smallint, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { CALL_KINDS, CALL_SLOTS, CALL_STATUSES } from '#common/domain'
import { inList } from './helpers'
import { timestamps, users } from './users'

/**
 * A coaching call. For a daily call the row is also its claim: it is inserted before Vapi is asked
 * to dial, and the unique (user, slot, local date, attempt) key means a second worker, a retried
 * job or a second server can never place the same call twice. A retry is a new row (attempt 1, 2).
 */
export const coachingCalls = pgTable(
  'coaching_calls',
  {
    id: uuid().primaryKey().defaultRandom(),
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** When the call was due (the dashboard's date). */
    callDate: timestamp({ withTimezone: true }).notNull(),
    /** Seconds the conversation lasted (0 until it ended). */
    callDuration: integer().notNull().default(0),
    areasDiscussed: text().array().notNull().default(sql`'{}'::text[]`),
    /** Where a live call is, then how it ended; only moves forward (see CALL_STATUSES). */
    completionStatus: text({ enum: CALL_STATUSES }).notNull().default('scheduled'),
    /** The provider's call id once the call is placed. */
    vapiCallId: text(),
    summary: text(),
    slot: text({ enum: CALL_SLOTS }).notNull().default('daily'),
    kind: text({ enum: CALL_KINDS }).notNull().default('check_in'),
    /** The person's local date of the slot (null for calls that are not a day's slot). */
    localDate: date({ mode: 'string' }),
    /** 0 for the first dial of a slot, 1 and 2 for retries. */
    attempt: smallint().notNull().default(0),
    /** The zone the call time was in when the call was claimed. */
    timeZone: text(),
    maxDurationSeconds: integer(),
    /** A dialler holds the call until then; another one may take it over after. */
    dialLeaseUntil: timestamp({ withTimezone: true }),
    dialledAt: timestamp({ withTimezone: true }),
    startedAt: timestamp({ withTimezone: true }),
    endedAt: timestamp({ withTimezone: true }),
    endedReason: text(),
    /** Why a call was not placed or not retried (eligibility reason, window, error). */
    skipReason: text(),
    /**
     * Why the dial waited past the call's time (null: it did not wait): 'lines_busy' (every
     * coaching line was in use) or 'pace' (the dials-per-second limit). Lateness is dialled_at − call_date.
     */
    dialWaitReason: text({ enum: ['lines_busy', 'pace'] }),
    mood: smallint(),
    energy: smallint(),
    commitments: jsonb().$type<string[]>().notNull().default(sql`'[]'::jsonb`),
    /**
     * The open commitments this call's variables carried, in the order they were numbered: the
     * report's review of them ("number 2: kept") is read against this list.
     */
    askedCommitmentIds: uuid().array().notNull().default(sql`'{}'::uuid[]`),
    transcript: text(),
    /** When the next attempt is due, for a call that did not reach the person (null: none). */
    retryAt: timestamp({ withTimezone: true }),
    /** When the end-of-call report was applied (it may come before or after the final status). */
    reportAt: timestamp({ withTimezone: true }),
    ...timestamps,
  },
  (t) => [
    index('coaching_calls_user_call_date_idx').on(t.userId, t.callDate.desc()),
    uniqueIndex('coaching_calls_vapi_call_id_key').on(t.vapiCallId),
    uniqueIndex('coaching_calls_claim_key').on(t.userId, t.slot, t.localDate, t.attempt),
    // The tick finds retries that are due.
    index('coaching_calls_retry_idx')
      .on(t.retryAt)
      .where(sql`${t.retryAt} is not null`),
    // The sweep looks for calls that are not final yet.
    index('coaching_calls_live_idx')
      .on(t.callDate)
      .where(sql`${t.completionStatus} in ('scheduled', 'dialling', 'queued', 'ringing', 'in_progress')`),
    check('coaching_calls_status_check', inList(t.completionStatus, CALL_STATUSES)),
    check('coaching_calls_slot_check', inList(t.slot, CALL_SLOTS)),
    check('coaching_calls_kind_check', inList(t.kind, CALL_KINDS)),
    check('coaching_calls_duration_nonnegative', sql`${t.callDuration} >= 0`),
    check('coaching_calls_attempt_range', sql`${t.attempt} between 0 and 2`),
    check('coaching_calls_mood_range', sql`${t.mood} is null or ${t.mood} between 1 and 10`),
    check('coaching_calls_energy_range', sql`${t.energy} is null or ${t.energy} between 1 and 10`),
  ],
)

/** A call's timeline: every transition and decision, in order. */
export const coachingCallEvents = pgTable(
  'coaching_call_events',
  {
    id: bigint({ mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    callId: uuid()
      .notNull()
      .references(() => coachingCalls.id, { onDelete: 'cascade' }),
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** scheduled, dialled, queued, ringing, answered, ended, report, retry_scheduled, not_retried, skipped, dial_failed, reconciled. */
    type: text().notNull(),
    at: timestamp({ withTimezone: true }).notNull(),
    detail: jsonb().$type<Record<string, unknown>>(),
  },
  (t) => [index('coaching_call_events_call_idx').on(t.callId, t.at, t.id)],
)

/**
 * Vapi's server messages as they arrived, before they are applied: the webhook persists and
 * acknowledges, a job applies. Vapi sends no event id, so the key is built from the call id, the
 * type and the status; a duplicate delivery finds the key taken and is dropped.
 */
export const vapiWebhookEvents = pgTable(
  'vapi_webhook_events',
  {
    id: bigint({ mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    dedupeKey: text().notNull(),
    vapiCallId: text().notNull(),
    type: text().notNull(),
    payload: jsonb().$type<Record<string, unknown>>().notNull(),
    receivedAt: timestamp({ withTimezone: true }).notNull(),
    processedAt: timestamp({ withTimezone: true }),
    attempts: integer().notNull().default(0),
    lastError: text(),
    /** Set when applying the message failed too many times: parked, no longer retried (the diagnostics page lists it). */
    deadAt: timestamp({ withTimezone: true }),
  },
  (t) => [
    uniqueIndex('vapi_webhook_events_dedupe_key').on(t.dedupeKey),
    // A person's calls' messages (their data export, their account's deletion).
    index('vapi_webhook_events_vapi_call_id_idx').on(t.vapiCallId),
    index('vapi_webhook_events_pending_idx')
      .on(t.receivedAt)
      .where(sql`${t.processedAt} is null`),
  ],
)

export type CoachingCall = typeof coachingCalls.$inferSelect
export type CoachingCallEvent = typeof coachingCallEvents.$inferSelect
