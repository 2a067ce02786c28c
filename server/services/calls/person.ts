/**
 * What the call scheduler and the dialler read about a person, in one statement: the paid rule's
 * columns, onboarding, the phone number (proven, not stopped), consent, the pause and the schedule. Read fresh every
 * time a call is scheduled, shown or dialled.
 */
import { eq, inArray, sql } from 'drizzle-orm'
import { accessColumns, type AccessRow } from '#server/db/access'
import type { DbExecutor } from '#server/db/client'
import { consentStates, profiles, subscribers, users } from '#server/db/schema'
import { decideAccess, type Access } from '#server/services/billing'
import { provenSql, stoppedSql } from '#server/services/phones'
import { callEligibility, type CallEligibility } from './entitlements'
import { fireInstant } from './next-fire'

export type CallPerson = {
  userId: string
  access: Access
  onboardingCompleted: boolean
  /** Ten digits (the sign-up number, or the profile's when it has one). */
  phoneNumber: string | null
  /** The person has proven the number theirs (docs/decisions/060): until then nothing is sent to it. */
  phoneProven: boolean
  /** The number texted STOP (the do-not-contact list): nothing is sent to it until a START comes from it. */
  phoneStopped: boolean
  /** The consent ledger's latest word on calls: granted or not, and since when (null: never asked). */
  callConsent: boolean
  callConsentChangedAt: Date | null
  timeZone: string
  /** 'HH:MM' local, or null. */
  dailyCallTime: string | null
  eveningCallTime: string | null
  /** The first local date calls resume ('YYYY-MM-DD'), or null. */
  pausedUntil: string | null
}

/** The columns a CallPerson is read from (users, left-joined with profiles and subscribers). */
export const personColumns = {
  userId: users.id,
  ...accessColumns,
  onboardingCompleted: profiles.onboardingCompleted,
  phoneNumber: sql<string | null>`coalesce(${profiles.phoneNumber}, ${users.phoneNumber})`,
  // One primary-key lookup each: the proof of the number, and the do-not-contact list.
  phoneProven: provenSql(users.id, sql`coalesce(${profiles.phoneNumber}, ${users.phoneNumber})`),
  phoneStopped: stoppedSql(sql`coalesce(${profiles.phoneNumber}, ${users.phoneNumber})`),
  // Subqueries (one primary-key lookup each), so every statement selecting these columns reads
  // the ledger's state without a join of its own (the dialler, the instant batches).
  callConsent: sql<boolean | null>`(select ${consentStates.granted} from ${consentStates} where ${consentStates.userId} = ${users.id} and ${consentStates.channel} = 'calls')`,
  callConsentChangedAt: sql<Date | null>`(select ${consentStates.at} from ${consentStates} where ${consentStates.userId} = ${users.id} and ${consentStates.channel} = 'calls')`.mapWith(consentStates.at),
  timeZone: profiles.timezone,
  dailyCallTime: profiles.dailyCallTime,
  eveningCallTime: profiles.eveningCallTime,
  pausedUntil: profiles.callsPausedUntil,
}

export type PersonRow = AccessRow & {
  userId: string
  onboardingCompleted: boolean | null
  phoneNumber: string | null
  phoneProven: boolean | null
  phoneStopped: boolean | null
  callConsent: boolean | null
  callConsentChangedAt: Date | null
  timeZone: string | null
  dailyCallTime: string | null
  eveningCallTime: string | null
  pausedUntil: string | null
}

const hhmm = (value: string | null) => (value ? value.slice(0, 5) : null)

export function toPerson(row: PersonRow, now: Date): CallPerson {
  return {
    userId: row.userId,
    access: decideAccess(row, now),
    onboardingCompleted: row.onboardingCompleted === true,
    phoneNumber: row.phoneNumber,
    phoneProven: row.phoneProven === true,
    phoneStopped: row.phoneStopped === true,
    callConsent: row.callConsent === true,
    callConsentChangedAt: row.callConsentChangedAt,
    timeZone: row.timeZone ?? 'America/New_York',
    dailyCallTime: hhmm(row.dailyCallTime),
    eveningCallTime: hhmm(row.eveningCallTime),
    pausedUntil: row.pausedUntil,
  }
}

function personQuery(db: DbExecutor) {
  return db
    .select(personColumns)
    .from(users)
    .leftJoin(profiles, eq(profiles.id, users.id))
    .leftJoin(subscribers, eq(subscribers.userId, users.id))
}

/** The person as the call scheduler sees them now, or null when the user does not exist. */
export async function loadCallPerson(db: DbExecutor, userId: string, now: Date): Promise<CallPerson | null> {
  const [row] = await personQuery(db).where(eq(users.id, userId)).limit(1)
  return row ? toPerson(row, now) : null
}

/** Many people at once (the scheduler's tick). */
export async function loadCallPeople(db: DbExecutor, userIds: readonly string[], now: Date): Promise<CallPerson[]> {
  if (userIds.length === 0) return []
  const rows = await personQuery(db).where(inArray(users.id, [...userIds]))
  return rows.map((row) => toPerson(row, now))
}

/** The instant a pause ends: midnight starting `pausedUntil` in the person's zone. */
export function pauseEnd(person: Pick<CallPerson, 'pausedUntil' | 'timeZone'>): Date | null {
  return person.pausedUntil ? fireInstant(person.pausedUntil, '00:00', person.timeZone) : null
}

/** Whether the person may be called at `at` (every rule of callEligibility). */
export function eligibilityOf(person: CallPerson, at: Date): CallEligibility {
  return callEligibility(
    {
      access: person.access,
      onboardingCompleted: person.onboardingCompleted,
      phoneNumber: person.phoneNumber,
      phoneProven: person.phoneProven,
      phoneStopped: person.phoneStopped,
      callConsent: person.callConsent,
      pausedUntil: pauseEnd(person),
      dailyCallTime: person.dailyCallTime,
      timeZone: person.timeZone,
    },
    at,
  )
}
