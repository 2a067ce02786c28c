/**
 * The call schedule the person controls: the daily call time and zone, the evening check-in's
 * time (Premium and Elite), a pause until a date, and calls on or off (consent to calls). A
 * change of the daily time is also written to the goal intake's preferred call time text in the
 * same transaction, so Edit Goals shows what the scheduler uses.
 */
import { eq, sql } from 'drizzle-orm'
import { Temporal } from 'temporal-polyfill'
import type { CallScheduleResponse, UpdateCallSchedule } from '#common/calls'
import { callsSwitchConsentText } from '#common/consent'
import { composeCallTime, fromDailyCallTime, timezoneByIana } from '#common/goals'
import type { Db, DbExecutor } from '#server/db/client'
import { goals, profiles } from '#server/db/schema'
import { AppError } from '#server/lib/app-error'
import { recordConsent, type ConsentRequestMeta } from '#server/services/consent'
import { stoppedMessage } from '#server/services/phones'
import { displayPhoneNumber } from '#common/opt-in'
import { DEFAULT_EVENING_CALL_TIME, PLAN_CALLS } from './entitlements'
import { localDateOf } from './next-fire'
import { loadCallPerson, type CallPerson } from './person'
import { stopCallsOf } from './revoked'

/** How far ahead a pause may end. */
const MAX_PAUSE_YEARS = 1

const invalid = (field: keyof UpdateCallSchedule, message: string) => new AppError('VALIDATION_FAILED', message, { field })

/** The zone's canonical IANA name ('US/Eastern' → 'America/New_York'), or null when it is not one. */
function canonicalTimeZone(name: string): string | null {
  // Intl also takes offsets ('+05:00') on newer engines: only named zones are accepted here.
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(name)) return null
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone
  } catch {
    return null
  }
}

/** The evening check-in is part of the plan (Premium, Elite). */
const hasEvening = (person: CallPerson) => person.access.tier !== null && PLAN_CALLS[person.access.tier].slots.includes('evening')

/** Whether a 'HH:MM' time is one the schedule's dropdowns offer (on the hour or the half hour). */
const onTheHalfHour = (time: string) => time.endsWith(':00') || time.endsWith(':30')

/** A 'YYYY-MM-DD' that names a real calendar day. */
function isCalendarDate(date: string): boolean {
  try {
    Temporal.PlainDate.from(date, { overflow: 'reject' })
    return true
  } catch {
    return false
  }
}

function scheduleOf(person: CallPerson, now: Date, smsNumber: string): CallScheduleResponse {
  const today = localDateOf(now, person.timeZone)
  return {
    dailyCallTime: person.dailyCallTime,
    timeZone: person.timeZone,
    eveningCallTime: person.eveningCallTime,
    eveningDefault: DEFAULT_EVENING_CALL_TIME,
    eveningAvailable: hasEvening(person),
    // A pause whose day has come is over.
    pausedUntil: person.pausedUntil && person.pausedUntil > today ? person.pausedUntil : null,
    callsEnabled: person.callConsent,
    phoneVerified: person.phoneProven,
    phoneStopped: person.phoneStopped,
    startNumber: displayPhoneNumber(smsNumber),
  }
}

async function loadPerson(db: DbExecutor, userId: string, now: Date): Promise<CallPerson> {
  const person = await loadCallPerson(db, userId, now)
  if (!person) throw new AppError('NOT_FOUND', 'Your profile could not be found. Please sign in again.')
  return person
}

export async function getCallScheduleSettings(db: DbExecutor, userId: string, now: Date, smsNumber: string): Promise<CallScheduleResponse> {
  return scheduleOf(await loadPerson(db, userId, now), now, smsNumber)
}

/**
 * The goal intake's text for a daily call time ('7:30 AM Eastern (ET)'); a zone outside the
 * wizard's eight is written as its IANA name ('7:30 AM Europe/London').
 */
function preferredCallTimeText(dailyCallTime: string, timeZone: string): string {
  const { time, period } = fromDailyCallTime(dailyCallTime)
  const zone = timezoneByIana(timeZone)
  return (zone && composeCallTime({ time, period, timezone: zone.id })) || `${time} ${period} ${timeZone}`
}

/**
 * Saves the whole schedule. 400 naming the field for a zone that is not an IANA zone, a time off
 * the half hour, an evening time on a plan without the evening check-in, or a pause that does not
 * end after the person's local today and within a year. Calls turned off (consent revoked) also
 * skip the claims not dialled and drop the retries, in the same transaction (`callsRevoked`: the
 * caller deletes at Vapi what it holds unanswered).
 */
export async function updateCallScheduleSettings(
  db: Db,
  userId: string,
  input: UpdateCallSchedule,
  now: Date,
  meta: ConsentRequestMeta,
  smsNumber: string,
): Promise<{ schedule: CallScheduleResponse; callsRevoked: boolean }> {
  const timeZone = canonicalTimeZone(input.timeZone)
  if (!timeZone) throw invalid('timeZone', 'Choose a time zone from the list (an IANA zone such as America/New_York)')
  if (!onTheHalfHour(input.dailyCallTime)) throw invalid('dailyCallTime', 'Choose a call time on the hour or the half hour')

  const person = await loadPerson(db, userId, now)
  // A number that texted STOP is off for every account: only a START from it brings calls back.
  if (input.callsEnabled && !person.callConsent && person.phoneStopped) {
    throw new AppError('NUMBER_STOPPED', stoppedMessage(displayPhoneNumber(smsNumber)), { field: 'callsEnabled' })
  }
  const evening = hasEvening(person)
  if (input.eveningCallTime !== null) {
    if (!evening) throw invalid('eveningCallTime', 'The evening check-in comes with the Premium and Elite plans')
    if (!onTheHalfHour(input.eveningCallTime)) throw invalid('eveningCallTime', 'Choose an evening time on the hour or the half hour')
  }
  if (input.pausedUntil !== null) {
    const today = localDateOf(now, timeZone)
    const latest = Temporal.PlainDate.from(today).add({ years: MAX_PAUSE_YEARS }).toString()
    if (!isCalendarDate(input.pausedUntil)) throw invalid('pausedUntil', 'Choose a date that exists')
    if (input.pausedUntil <= today) throw invalid('pausedUntil', 'Choose a date after today to resume calls')
    if (input.pausedUntil > latest) throw invalid('pausedUntil', 'Calls can be paused for at most a year')
  }

  const changes: Partial<typeof profiles.$inferInsert> = {
    timezone: timeZone,
    dailyCallTime: `${input.dailyCallTime}:00`,
    callsPausedUntil: input.pausedUntil,
    updatedAt: now,
  }
  // A plan without the evening check-in keeps a time chosen on a plan that had it.
  if (evening) changes.eveningCallTime = input.eveningCallTime === null ? null : `${input.eveningCallTime}:00`

  const preferred = preferredCallTimeText(input.dailyCallTime, timeZone)
  const callsRevoked = person.callConsent && !input.callsEnabled
  return db.transaction(async (tx) => {
    await tx.update(profiles).set(changes).where(eq(profiles.id, userId))
    // The calls switch is consent to calls: a change is a ledger row (saving the same state is not).
    if (input.callsEnabled !== person.callConsent) {
      await recordConsent(tx, {
        userId,
        channel: 'calls',
        action: input.callsEnabled ? 'granted' : 'revoked',
        source: 'settings',
        text: callsSwitchConsentText(input.callsEnabled),
        at: now,
        ip: meta.ip,
        userAgent: meta.userAgent,
      })
    }
    if (callsRevoked) await stopCallsOf(tx, [userId], now)
    await tx
      .insert(goals)
      .values({
        userId,
        lifeArea: 'specific_goals',
        selectedOptions: [],
        satisfactionScore: null,
        customNotes: null,
        specificGoals: { goal_90_days: null, goal_12_months: null, goal_5_years: null, obstacles: null, preferred_call_time: preferred },
        createdAt: now,
        updatedAt: now,
      })
      .onConflictDoUpdate({
        target: [goals.userId, goals.lifeArea],
        set: {
          specificGoals: sql`jsonb_set(coalesce(${goals.specificGoals}, '{}'::jsonb), '{preferred_call_time}', to_jsonb(${preferred}::text))`,
          updatedAt: now,
        },
      })
    return { schedule: scheduleOf(await loadPerson(tx, userId, now), now, smsNumber), callsRevoked }
  })
}
