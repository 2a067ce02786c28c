/**
 * Elite's 1-on-1 sessions with their coach (docs/decisions/082): the coach's hours, the member's
 * booking through a 5-minute hold, moves and cancels under the 24-hour rule, one session a month,
 * the onboarding session of the first 7 days, the invitations and the reminders.
 *
 * Double bookings are impossible in the database, not checked and hoped for: holds and bookings are
 * rows of one table under an exclusion constraint on (coach, [start, end + buffer)); a second
 * writer of an overlapping row gets SLOT_TAKEN from the constraint itself.
 */
import { applyRecord } from '#server/services/memory'
import { and, asc, eq, gt, gte, inArray, isNull, lte, min, ne, or, sql } from 'drizzle-orm'
import { Temporal } from 'temporal-polyfill'
import { z } from 'zod'
import {
  CHANGE_CUTOFF_HOURS,
  HOLD_MINUTES,
  SESSION_MINUTES,
  SESSION_RULE,
  type AdjustPlanBody,
  type Availability,
  type CoachSession,
  type CoachSideSession,
  type HoldBody,
  type HoldResponse,
  type MemberSessionsResponse,
  type SessionKind,
  type SlotsResponse,
} from '#common/coach-sessions'
import type { Db, DbExecutor } from '#server/db/client'
import { coachAssignments, coachAvailability, coachAvailabilityExceptions, coachProfiles, coachSessions, goals, profiles, users, type CoachSessionRow } from '#server/db/schema'
import { composeEmail, type Mailer } from '#server/integrations/mailer'
import { AppError } from '#server/lib/app-error'
import type { Clock } from '#server/lib/clock'
import { jobContract } from '#server/lib/job-contract'
import { audit } from '#server/services/audit'
import { localDateOf, localTimeOf } from '#server/services/calls'
import { isStopped, proofOf } from '#server/services/phones'
import type { createCoach } from '#server/services/coach'
import { calendarLinks, invitation, type CalendarSession } from './calendar'
import { freeSlots, monthOf, type SlotRules } from './slots'


export const COACH_SESSIONS_JOBS = {
  /** Every minute: the 24-hour and 1-hour reminders that came due, each sent once. */
  reminders: jobContract('coach-session-reminders', z.object({}).strict()),
} as const
export type CoachSessionsJob = (typeof COACH_SESSIONS_JOBS)[keyof typeof COACH_SESSIONS_JOBS]

const MINUTE_MS = 60_000
const HOUR_MS = 60 * MINUTE_MS
/** The onboarding session takes place within this many days of the member's first coach. */
const ONBOARDING_DAYS = 7
/** The coach sees the member's number from this long before the start until the end. */
const PHONE_SHOWN_BEFORE_MS = 15 * MINUTE_MS

const ELITE_UPSELL = 'Monthly 1-on-1 sessions with a human coach come with the Elite plan. Upgrade your plan to book one.'

type CoachAccess = Pick<ReturnType<typeof createCoach>, 'coachOf' | 'assertMemberOf'>

type CoachSessionsDeps = {
  db: Db
  clock: Clock
  mailer: Mailer
  appUrl: string
  coach: CoachAccess
  /** The member's call schedule, which the coach may move in onboarding (the calls domain keeps it and its jobs). */
  calls: {
    getSchedule(userId: string): Promise<{ dailyCallTime: string | null; timeZone: string; eveningCallTime: string | null; pausedUntil: string | null; callsEnabled: boolean }>
    updateSchedule(userId: string, input: { dailyCallTime: string; timeZone: string; eveningCallTime: string | null; pausedUntil: string | null; callsEnabled: boolean }): Promise<unknown>
  }
  /** The member's session reminder by text, through the texts outbox (consent, proven number, hours, cap). */
  texts: { sendSessionReminder(input: { userId: string; dedupeKey: string; content: string; onlyOnLocalDate: string }): Promise<unknown> }
}

const pgCode = (error: unknown): string | undefined => (error as { code?: string })?.code ?? (error as { cause?: { code?: string } })?.cause?.code

/** Where a session's start is, in words, in a zone: "Tuesday, March 9 at 3:00 PM (America/New_York)". */
function whenText(instant: Date, timeZone: string): string {
  const day = instant.toLocaleDateString('en-US', { timeZone, weekday: 'long', month: 'long', day: 'numeric' })
  const time = instant.toLocaleTimeString('en-US', { timeZone, hour: 'numeric', minute: '2-digit' })
  return `${day} at ${time} (${timeZone})`
}

export function createCoachSessions(deps: CoachSessionsDeps) {
  const { db, clock } = deps
  const appUrl = deps.appUrl.replace(/\/$/, '')
  const host = new URL(appUrl).hostname

  async function memberZone(memberId: string): Promise<string> {
    const [row] = await db.select({ timeZone: profiles.timezone }).from(profiles).where(eq(profiles.id, memberId)).limit(1)
    return row?.timeZone ?? 'America/New_York'
  }

  async function rulesOf(coachId: string): Promise<SlotRules> {
    const [profile] = await db.select().from(coachProfiles).where(eq(coachProfiles.userId, coachId)).limit(1)
    const weekly = await db.select().from(coachAvailability).where(eq(coachAvailability.coachUserId, coachId))
    const exceptions = await db.select().from(coachAvailabilityExceptions).where(eq(coachAvailabilityExceptions.coachUserId, coachId))
    const timeZone = profile?.timeZone ?? 'America/New_York'
    // A coach who set no session hours books in their working week.
    const defaultWeek = (profile?.workingDays ?? [1, 2, 3, 4, 5]).map((weekday) => ({ weekday, startTime: profile?.startTime ?? '09:00', endTime: profile?.endTime ?? '17:00' }))
    return {
      timeZone,
      weekly: weekly.length > 0 ? weekly : defaultWeek,
      exceptions,
      bufferMinutes: profile?.sessionBufferMinutes ?? 15,
      minNoticeHours: profile?.minNoticeHours ?? 24,
      horizonDays: profile?.horizonDays ?? 30,
    }
  }

  /** The coach's time taken: booked sessions and holds not yet lapsed. */
  async function busyOf(coachId: string, now: Date) {
    const rows = await db
      .select({ from: coachSessions.startsAt, until: coachSessions.blockedUntil })
      .from(coachSessions)
      .where(
        and(
          eq(coachSessions.coachUserId, coachId),
          gt(coachSessions.blockedUntil, now),
          or(eq(coachSessions.status, 'booked'), and(eq(coachSessions.status, 'held'), gt(coachSessions.holdExpiresAt, now))),
        ),
      )
    return rows
  }

  /** Until when the member may have their onboarding session (7 days from their first coach), or null once it is booked or the week is over. */
  async function onboardingUntil(memberId: string, now: Date): Promise<Date | null> {
    const [first] = await db.select({ at: min(coachAssignments.startedAt) }).from(coachAssignments).where(eq(coachAssignments.memberUserId, memberId))
    if (!first?.at) return null
    const until = new Date(new Date(first.at).getTime() + ONBOARDING_DAYS * 24 * HOUR_MS)
    if (until.getTime() <= now.getTime()) return null
    const [taken] = await db
      .select({ id: coachSessions.id })
      .from(coachSessions)
      .where(and(eq(coachSessions.memberUserId, memberId), eq(coachSessions.kind, 'onboarding'), eq(coachSessions.counts, true)))
      .limit(1)
    return taken ? null : until
  }

  function sessionView(row: CoachSessionRow, coachName: string, coachTimeZone: string, now: Date): CoachSession {
    return {
      id: row.id,
      kind: row.kind,
      status: row.status === 'held' ? 'booked' : row.status,
      startsAt: row.startsAt.toISOString(),
      endsAt: row.endsAt.toISOString(),
      coachName,
      coachTimeZone,
      meeting: row.meeting,
      videoUrl: row.videoUrl,
      counts: row.counts,
      changeable: row.status === 'booked' && row.startsAt.getTime() - now.getTime() >= CHANGE_CUTOFF_HOURS * HOUR_MS,
      summary: row.summary,
      commitments: row.commitments ?? [],
    }
  }

  /** The member's session (404 if it is not theirs). */
  async function ownSession(tx: DbExecutor, memberId: string, sessionId: string, lock = false): Promise<CoachSessionRow> {
    if (!z.uuid().safeParse(sessionId).success) throw new AppError('NOT_FOUND', 'No session has that id.', { field: 'sessionId' })
    const query = tx
      .select()
      .from(coachSessions)
      .where(and(eq(coachSessions.id, sessionId), eq(coachSessions.memberUserId, memberId), ne(coachSessions.status, 'held')))
      .limit(1)
    const [row] = lock ? await query.for('update') : await query
    if (!row) throw new AppError('NOT_FOUND', 'No session has that id.', { field: 'sessionId' })
    return row
  }

  /** The invitation email to the member and to the coach (REQUEST on booking and moves, CANCEL on cancel). */
  async function sendInvitations(row: CoachSessionRow, method: 'REQUEST' | 'CANCEL', what: 'booked' | 'moved' | 'cancelled'): Promise<void> {
    if (!row.coachUserId) return
    const people = await db
      .select({ id: users.id, email: users.email, fullName: users.fullName, timeZone: profiles.timezone, coachZone: coachProfiles.timeZone })
      .from(users)
      .leftJoin(profiles, eq(profiles.id, users.id))
      .leftJoin(coachProfiles, eq(coachProfiles.userId, users.id))
      .where(inArray(users.id, [row.memberUserId, row.coachUserId]))
    const member = people.find((person) => person.id === row.memberUserId)
    const coach = people.find((person) => person.id === row.coachUserId)
    if (!member || !coach) return
    const title = `${row.kind === 'onboarding' ? 'Onboarding session' : '1-on-1 coaching session'}: ${member.fullName} and ${coach.fullName}`
    const location = row.meeting === 'video' && row.videoUrl ? row.videoUrl : `${coach.fullName} calls ${member.fullName.split(/\s+/)[0]}`
    const event: CalendarSession = {
      id: row.id,
      startsAt: row.startsAt,
      endsAt: row.endsAt,
      sequence: row.sequence,
      title,
      description: `Your ${SESSION_MINUTES}-minute session on Momentum Coach. Manage it: ${appUrl}/sessions`,
      location,
      organizer: { name: coach.fullName, email: coach.email },
      attendee: { name: member.fullName, email: member.email },
    }
    const content = invitation(event, method, host)
    const links = method === 'REQUEST' ? calendarLinks(event) : null
    for (const [person, zone, link] of [
      [member, member.timeZone ?? row.memberTimeZone, `${appUrl}/sessions`],
      [coach, coach.coachZone ?? 'America/New_York', `${appUrl}/coach`],
    ] as const) {
      const subject =
        what === 'booked' ? `Booked: ${title.split(':')[0]} on ${whenText(row.startsAt, zone)}` : what === 'moved' ? `Moved: ${title.split(':')[0]} to ${whenText(row.startsAt, zone)}` : `Cancelled: ${title.split(':')[0]} on ${whenText(row.startsAt, zone)}`
      await deps.mailer.send({
        ...composeEmail({
          kind: 'coach_session',
          to: person.email,
          subject,
          greeting: `Hi ${person.fullName.split(/\s+/)[0]},`,
          paragraphs: [
            what === 'cancelled' ? `The session on ${whenText(row.startsAt, zone)} is cancelled.` : `${title}, ${whenText(row.startsAt, zone)}, ${SESSION_MINUTES} minutes.`,
            ...(what !== 'cancelled' ? [row.meeting === 'video' && row.videoUrl ? `Join by video: ${row.videoUrl}` : `${coach.fullName} will call ${member.fullName.split(/\s+/)[0]}'s phone.`] : []),
          ],
          action: 'See your sessions',
          link,
          extraLinks: links ? [{ label: 'Add to Google Calendar', url: links.google }, { label: 'Add to Outlook', url: links.outlook }] : [],
          footer: 'The invitation is attached: open it to add the session to your calendar.',
        }),
        calendar: { method, content },
      })
    }
  }

  /** Holds that lapsed stop blocking (the constraint counts every held row). */
  const clearLapsedHolds = (tx: DbExecutor, coachId: string, now: Date) =>
    tx.delete(coachSessions).where(and(eq(coachSessions.coachUserId, coachId), eq(coachSessions.status, 'held'), lte(coachSessions.holdExpiresAt, now)))

  async function counted(tx: DbExecutor, memberId: string, kind: SessionKind, month: string, except?: string) {
    const [row] = await tx
      .select({ id: coachSessions.id })
      .from(coachSessions)
      .where(and(eq(coachSessions.memberUserId, memberId), eq(coachSessions.kind, kind), eq(coachSessions.month, month), eq(coachSessions.counts, true), except ? ne(coachSessions.id, except) : undefined))
      .limit(1)
    return row !== undefined
  }

  return {
    /** The member's sessions, this month's state and the onboarding offer (403 ELITE_REQUIRED on other plans). */
    async forMember(memberId: string): Promise<MemberSessionsResponse> {
      const coach = await deps.coach.coachOf(memberId, ELITE_UPSELL)
      const now = clock.now()
      const zone = await memberZone(memberId)
      const month = monthOf(now, zone)
      const rows = await db
        .select()
        .from(coachSessions)
        .where(and(eq(coachSessions.memberUserId, memberId), ne(coachSessions.status, 'held')))
        .orderBy(asc(coachSessions.startsAt))
      const until = await onboardingUntil(memberId, now)
      return {
        coach: { coachId: coach.coachId, fullName: coach.fullName, timeZone: coach.profile.timeZone },
        memberTimeZone: zone,
        rule: SESSION_RULE,
        month: { month, used: rows.some((row) => row.kind === 'monthly' && row.month === month && row.counts) },
        onboarding: { offered: until !== null, until: until?.toISOString() ?? null },
        sessions: rows.map((row) => sessionView(row, coach.fullName, coach.profile.timeZone, now)),
      }
    },

    /** The coach's free slots for the member (the next horizon days, from the minimum notice on). */
    async slots(memberId: string, kind: SessionKind): Promise<SlotsResponse> {
      const coach = await deps.coach.coachOf(memberId, ELITE_UPSELL)
      const now = clock.now()
      const rules = await rulesOf(coach.coachId)
      let starts = freeSlots(rules, await busyOf(coach.coachId, now), now)
      if (kind === 'onboarding') {
        const until = await onboardingUntil(memberId, now)
        starts = until ? starts.filter((start) => start.getTime() + SESSION_MINUTES * MINUTE_MS <= until.getTime()) : []
      }
      return {
        coachTimeZone: rules.timeZone,
        memberTimeZone: await memberZone(memberId),
        slots: starts.map((start) => ({ startsAt: start.toISOString(), endsAt: new Date(start.getTime() + SESSION_MINUTES * MINUTE_MS).toISOString() })),
      }
    },

    /**
     * Holds a slot for HOLD_MINUTES while the member confirms (their earlier hold is let go). The slot
     * must be one of the coach's free ones; the month must be free (monthly); a move must be 24
     * hours or more ahead. A slot another member holds or booked: 409 SLOT_TAKEN, from the constraint.
     */
    async hold(memberId: string, body: HoldBody): Promise<HoldResponse> {
      const coach = await deps.coach.coachOf(memberId, ELITE_UPSELL)
      const now = clock.now()
      const zone = await memberZone(memberId)
      const start = new Date(body.startsAt)
      let kind: SessionKind = body.kind
      if (body.movesSessionId) {
        const moving = await ownSession(db, memberId, body.movesSessionId)
        if (moving.status !== 'booked') throw new AppError('CONFLICT', 'Only a booked session can be moved.', { field: 'movesSessionId' })
        if (moving.startsAt.getTime() - now.getTime() < CHANGE_CUTOFF_HOURS * HOUR_MS) throw new AppError('SESSION_CHANGE_CLOSED', undefined, { field: 'movesSessionId' })
        kind = moving.kind
      }
      const rules = await rulesOf(coach.coachId)
      const open = freeSlots(rules, [], now).some((slot) => slot.getTime() === start.getTime())
      if (!open) throw new AppError('VALIDATION_FAILED', "That time is not one of your coach's open times.", { field: 'startsAt' })
      if (kind === 'onboarding') {
        const until = await onboardingUntil(memberId, now)
        if (!until || start.getTime() + SESSION_MINUTES * MINUTE_MS > until.getTime()) throw new AppError('CONFLICT', 'The onboarding session is booked within your first 7 days with your coach.', { field: 'startsAt' })
      }
      const month = kind === 'onboarding' ? 'onboarding' : monthOf(start, zone)
      if (kind === 'monthly' && (await counted(db, memberId, 'monthly', month, body.movesSessionId))) throw new AppError('SESSION_ALREADY_USED', undefined, { field: 'startsAt' })
      const endsAt = new Date(start.getTime() + SESSION_MINUTES * MINUTE_MS)
      const expiresAt = new Date(now.getTime() + HOLD_MINUTES * MINUTE_MS)
      try {
        const row = await db.transaction(async (tx) => {
          await clearLapsedHolds(tx, coach.coachId, now)
          await tx.delete(coachSessions).where(and(eq(coachSessions.memberUserId, memberId), eq(coachSessions.status, 'held')))
          const [inserted] = await tx
            .insert(coachSessions)
            .values({
              memberUserId: memberId,
              coachUserId: coach.coachId,
              kind,
              status: 'held',
              startsAt: start,
              endsAt,
              blockedUntil: new Date(endsAt.getTime() + rules.bufferMinutes * MINUTE_MS),
              holdExpiresAt: expiresAt,
              movesSessionId: body.movesSessionId ?? null,
              memberTimeZone: zone,
              month,
              createdAt: now,
              updatedAt: now,
            })
            .returning()
          return inserted!
        })
        return { holdId: row.id, startsAt: row.startsAt.toISOString(), endsAt: row.endsAt.toISOString(), expiresAt: expiresAt.toISOString() }
      } catch (error) {
        if (pgCode(error) === '23P01') throw new AppError('SLOT_TAKEN', undefined, { field: 'startsAt' })
        throw error
      }
    },

    /** Books the held slot (or moves the session it was held for there, SEQUENCE raised); the invitations go out. */
    async confirm(memberId: string, holdId: string): Promise<CoachSession> {
      const coach = await deps.coach.coachOf(memberId, ELITE_UPSELL)
      if (!z.uuid().safeParse(holdId).success) throw new AppError('NOT_FOUND', 'No hold has that id.', { field: 'holdId' })
      const now = clock.now()
      let moved = false
      let row: CoachSessionRow
      try {
        row = await db.transaction(async (tx) => {
          const [hold] = await tx
            .select()
            .from(coachSessions)
            .where(and(eq(coachSessions.id, holdId), eq(coachSessions.memberUserId, memberId), eq(coachSessions.status, 'held')))
            .limit(1)
            .for('update')
          if (!hold || !hold.holdExpiresAt || hold.holdExpiresAt.getTime() <= now.getTime()) {
            if (hold) await tx.delete(coachSessions).where(eq(coachSessions.id, hold.id))
            throw new AppError('HOLD_EXPIRED', undefined, { field: 'holdId' })
          }
          if (hold.movesSessionId) {
            const original = await ownSession(tx, memberId, hold.movesSessionId, true)
            if (original.status !== 'booked' || original.startsAt.getTime() - now.getTime() < CHANGE_CUTOFF_HOURS * HOUR_MS) throw new AppError('SESSION_CHANGE_CLOSED', undefined, { field: 'holdId' })
            // The hold gives its place to the session it was for (both cannot be live at once: the constraint).
            await tx.delete(coachSessions).where(eq(coachSessions.id, hold.id))
            const [updated] = await tx
              .update(coachSessions)
              .set({
                startsAt: hold.startsAt,
                endsAt: hold.endsAt,
                blockedUntil: hold.blockedUntil,
                month: hold.month,
                memberTimeZone: hold.memberTimeZone,
                sequence: original.sequence + 1,
                reminder24hAt: null,
                reminder1hAt: null,
                coachReminder24hAt: null,
                coachReminder1hAt: null,
                updatedAt: now,
              })
              .where(eq(coachSessions.id, original.id))
              .returning()
            moved = true
            return updated!
          }
          const [booked] = await tx
            .update(coachSessions)
            .set({ status: 'booked', counts: true, holdExpiresAt: null, bookedAt: now, updatedAt: now })
            .where(eq(coachSessions.id, hold.id))
            .returning()
          return booked!
        })
      } catch (error) {
        if (pgCode(error) === '23505') throw new AppError('SESSION_ALREADY_USED', undefined, { field: 'holdId' })
        if (pgCode(error) === '23P01') throw new AppError('SLOT_TAKEN', undefined, { field: 'holdId' })
        throw error
      }
      await sendInvitations(row, 'REQUEST', moved ? 'moved' : 'booked')
      return sessionView(row, coach.fullName, coach.profile.timeZone, now)
    },

    /**
     * Cancels a booked session. 24 hours or more ahead, the month's session is given back; later, it
     * counts as used (the rule shown before booking). The CANCEL invitation (SEQUENCE raised) goes out.
     */
    async cancel(memberId: string, sessionId: string): Promise<CoachSession> {
      const coach = await deps.coach.coachOf(memberId, ELITE_UPSELL)
      const now = clock.now()
      const row = await db.transaction(async (tx) => {
        const session = await ownSession(tx, memberId, sessionId, true)
        if (session.status !== 'booked') throw new AppError('CONFLICT', 'This session is not booked.', { field: 'sessionId' })
        const inTime = session.startsAt.getTime() - now.getTime() >= CHANGE_CUTOFF_HOURS * HOUR_MS
        const [cancelled] = await tx
          .update(coachSessions)
          .set({ status: 'cancelled', counts: inTime ? false : session.counts, cancelledAt: now, sequence: session.sequence + 1, updatedAt: now })
          .where(eq(coachSessions.id, session.id))
          .returning()
        return cancelled!
      })
      await sendInvitations(row, 'CANCEL', 'cancelled')
      return sessionView(row, coach.fullName, coach.profile.timeZone, now)
    },

    coach: {
      /** The coach's sessions from a day ago on, with each member's number only within the session's window. */
      async list(coachId: string): Promise<CoachSideSession[]> {
        const now = clock.now()
        const [profile] = await db.select({ timeZone: coachProfiles.timeZone }).from(coachProfiles).where(eq(coachProfiles.userId, coachId)).limit(1)
        const [me] = await db.select({ fullName: users.fullName }).from(users).where(eq(users.id, coachId)).limit(1)
        const rows = await db
          .select({ session: coachSessions, memberName: users.fullName, phone: sql<string | null>`coalesce(${profiles.phoneNumber}, ${users.phoneNumber})` })
          .from(coachSessions)
          .innerJoin(users, eq(users.id, coachSessions.memberUserId))
          .leftJoin(profiles, eq(profiles.id, coachSessions.memberUserId))
          .where(and(eq(coachSessions.coachUserId, coachId), ne(coachSessions.status, 'held'), gte(coachSessions.endsAt, new Date(now.getTime() - 24 * HOUR_MS))))
          .orderBy(asc(coachSessions.startsAt))
        const sessions: CoachSideSession[] = []
        for (const { session, memberName, phone } of rows) {
          const inWindow = session.status === 'booked' && session.meeting === 'phone' && now.getTime() >= session.startsAt.getTime() - PHONE_SHOWN_BEFORE_MS && now.getTime() <= session.endsAt.getTime()
          // Only a number the member proved theirs (docs/decisions/060), and not one that texted STOP.
          const callable = inWindow && phone !== null && (await proofOf(db, session.memberUserId, phone)) && !(await isStopped(db, phone))
          sessions.push({
            ...sessionView(session, me?.fullName ?? '', profile?.timeZone ?? 'America/New_York', now),
            memberId: session.memberUserId,
            memberName,
            memberTimeZone: session.memberTimeZone,
            memberPhone: callable ? phone : null,
            started: session.startsAt.getTime() <= now.getTime(),
          })
        }
        return sessions
      },

      async availability(coachId: string): Promise<Availability & { timeZone: string }> {
        const rules = await rulesOf(coachId)
        const weekly = await db.select().from(coachAvailability).where(eq(coachAvailability.coachUserId, coachId)).orderBy(asc(coachAvailability.weekday), asc(coachAvailability.startTime))
        return {
          timeZone: rules.timeZone,
          weekly: (weekly.length > 0 ? weekly : rules.weekly).map(({ weekday, startTime, endTime }) => ({ weekday, startTime, endTime })),
          exceptions: rules.exceptions.map(({ date, kind, startTime, endTime }) => ({ date, kind, startTime, endTime })).sort((a, b) => a.date.localeCompare(b.date)),
          bufferMinutes: rules.bufferMinutes,
          minNoticeHours: rules.minNoticeHours,
          horizonDays: rules.horizonDays,
        }
      },

      /** Replaces the coach's hours and rules (booked sessions stay as they are). */
      async setAvailability(coachId: string, body: Availability): Promise<Availability & { timeZone: string }> {
        const now = clock.now()
        await db.transaction(async (tx) => {
          await tx.delete(coachAvailability).where(eq(coachAvailability.coachUserId, coachId))
          await tx.delete(coachAvailabilityExceptions).where(eq(coachAvailabilityExceptions.coachUserId, coachId))
          if (body.weekly.length > 0) await tx.insert(coachAvailability).values(body.weekly.map((window) => ({ coachUserId: coachId, ...window })))
          if (body.exceptions.length > 0) await tx.insert(coachAvailabilityExceptions).values(body.exceptions.map((exception) => ({ coachUserId: coachId, ...exception })))
          await tx
            .insert(coachProfiles)
            .values({ userId: coachId, sessionBufferMinutes: body.bufferMinutes, minNoticeHours: body.minNoticeHours, horizonDays: body.horizonDays, updatedAt: now })
            .onConflictDoUpdate({ target: coachProfiles.userId, set: { sessionBufferMinutes: body.bufferMinutes, minNoticeHours: body.minNoticeHours, horizonDays: body.horizonDays, updatedAt: now } })
        })
        return this.availability(coachId)
      },

      /** The coach's own session (404 otherwise). */
      async own(coachId: string, sessionId: string): Promise<CoachSessionRow> {
        if (!z.uuid().safeParse(sessionId).success) throw new AppError('NOT_FOUND', 'No session has that id.', { field: 'sessionId' })
        const [row] = await db
          .select()
          .from(coachSessions)
          .where(and(eq(coachSessions.id, sessionId), eq(coachSessions.coachUserId, coachId), ne(coachSessions.status, 'held')))
          .limit(1)
        if (!row) throw new AppError('NOT_FOUND', 'No session has that id.', { field: 'sessionId' })
        return row
      },

      /** How they meet: a call to the member's proven number, or the coach's video link (the member's invitation is sent again). */
      async setMeeting(coachId: string, sessionId: string, body: { meeting: 'phone' | 'video'; videoUrl: string | null }): Promise<void> {
        const session = await this.own(coachId, sessionId)
        if (session.status !== 'booked') throw new AppError('CONFLICT', 'This session is not booked.', { field: 'sessionId' })
        const [row] = await db
          .update(coachSessions)
          .set({ meeting: body.meeting, videoUrl: body.meeting === 'video' ? body.videoUrl : null, sequence: session.sequence + 1, updatedAt: clock.now() })
          .where(eq(coachSessions.id, session.id))
          .returning()
        await sendInvitations(row!, 'REQUEST', 'moved')
      },

      /** The member did not come (from the start on): the month's session is used. */
      async markNoShow(coachId: string, sessionId: string): Promise<void> {
        const session = await this.own(coachId, sessionId)
        const now = clock.now()
        if (session.status !== 'booked' || session.startsAt.getTime() > now.getTime()) throw new AppError('CONFLICT', 'A session can be marked missed once it has started.', { field: 'sessionId' })
        await db.transaction(async (tx) => {
          await tx.update(coachSessions).set({ status: 'no_show', updatedAt: now }).where(eq(coachSessions.id, session.id))
          await audit.record(tx, { actor: { kind: 'user', userId: coachId }, action: 'coach_session_updated', subjectUserId: session.memberUserId, target: { type: 'coach', id: null }, details: { change: 'no_show' }, at: now })
        })
      },

      /**
       * White-glove onboarding (or any time after): the coach changes one of their members' 90-day
       * goal, obstacles or daily call time. Each change is audited, so the member's account page
       * says "Dana Lee (coach) updated your 90-day goal."; a moved call time goes through the calls
       * domain (its consent and jobs unchanged).
       */
      async adjustPlan(coachId: string, memberId: string, body: AdjustPlanBody): Promise<Array<'goal_90_days' | 'obstacles' | 'daily_call_time' | 'area_goal'>> {
        await deps.coach.assertMemberOf(coachId, memberId)
        const now = clock.now()
        const changed: Array<'goal_90_days' | 'obstacles' | 'daily_call_time' | 'area_goal'> = []
        if (body.area) {
          const { lifeArea, notes } = body.area
          await db.transaction(async (tx) => {
            const [row] = await tx
              .select({ customNotes: goals.customNotes })
              .from(goals)
              .where(and(eq(goals.userId, memberId), eq(goals.lifeArea, lifeArea)))
              .limit(1)
              .for('update')
            if ((row?.customNotes ?? '') === notes) return
            await tx
              .insert(goals)
              .values({ userId: memberId, lifeArea, selectedOptions: [], satisfactionScore: null, customNotes: notes || null, createdAt: now, updatedAt: now })
              .onConflictDoUpdate({ target: [goals.userId, goals.lifeArea], set: { customNotes: notes || null, updatedAt: now } })
            await audit.record(tx, { actor: { kind: 'user', userId: coachId }, action: 'coach_plan_updated', subjectUserId: memberId, target: { type: 'coach', id: null }, details: { change: 'area_goal', area: lifeArea }, at: now })
            changed.push('area_goal')
          })
        }
        if (body.goal90Days !== undefined || body.obstacles !== undefined) {
          await db.transaction(async (tx) => {
            const [row] = await tx
              .select({ specificGoals: goals.specificGoals })
              .from(goals)
              .where(and(eq(goals.userId, memberId), eq(goals.lifeArea, 'specific_goals')))
              .limit(1)
              .for('update')
            const current = row?.specificGoals ?? {}
            const next = { ...current }
            if (body.goal90Days !== undefined && body.goal90Days !== (current.goal_90_days ?? '')) {
              next.goal_90_days = body.goal90Days
              changed.push('goal_90_days')
            }
            if (body.obstacles !== undefined && body.obstacles !== (current.obstacles ?? '')) {
              next.obstacles = body.obstacles || null
              changed.push('obstacles')
            }
            if (changed.length === 0) return
            await tx
              .insert(goals)
              .values({ userId: memberId, lifeArea: 'specific_goals', selectedOptions: [], satisfactionScore: null, customNotes: null, specificGoals: next, createdAt: now, updatedAt: now })
              .onConflictDoUpdate({ target: [goals.userId, goals.lifeArea], set: { specificGoals: next, updatedAt: now } })
            for (const change of changed) {
              await audit.record(tx, { actor: { kind: 'user', userId: coachId }, action: 'coach_plan_updated', subjectUserId: memberId, target: { type: 'coach', id: null }, details: { change }, at: now })
            }
          })
        }
        if (body.dailyCallTime !== undefined) {
          const schedule = await deps.calls.getSchedule(memberId)
          if (schedule.dailyCallTime !== body.dailyCallTime) {
            const { timeZone, eveningCallTime, pausedUntil, callsEnabled } = schedule
            await deps.calls.updateSchedule(memberId, { dailyCallTime: body.dailyCallTime, timeZone, eveningCallTime, pausedUntil, callsEnabled })
            const [hours, minutes] = body.dailyCallTime.split(':').map(Number) as [number, number]
            const time = `${hours % 12 === 0 ? 12 : hours % 12}:${String(minutes).padStart(2, '0')} ${hours < 12 ? 'AM' : 'PM'}`
            await audit.record(db, { actor: { kind: 'user', userId: coachId }, action: 'coach_plan_updated', subjectUserId: memberId, target: { type: 'coach', id: null }, details: { change: 'daily_call_time', time }, at: now })
            changed.push('daily_call_time')
          }
        }
        return changed
      },

      /** After the session: the summary and the commitments agreed (the member sees them). */
      async complete(coachId: string, sessionId: string, body: { summary: string; commitments: string[] }): Promise<void> {
        const session = await this.own(coachId, sessionId)
        const now = clock.now()
        if (session.status === 'cancelled' || session.startsAt.getTime() > now.getTime()) throw new AppError('CONFLICT', 'A summary is written once the session has started.', { field: 'sessionId' })
        await db.transaction(async (tx) => {
          await tx.update(coachSessions).set({ status: 'completed', summary: body.summary, commitments: body.commitments, updatedAt: now }).where(eq(coachSessions.id, session.id))
          // The session joins the coach's memory as an episode (docs/decisions/083), once.
          const agreed = body.commitments.length > 0 ? ` Agreed: ${body.commitments.join('; ')}.` : ''
          await applyRecord(tx, {
            userId: session.memberUserId,
            channel: 'coach_session',
            sourceId: session.id,
            key: session.id,
            occurredAt: session.startsAt.toISOString(),
            summary: `${body.summary}${agreed}`.slice(0, 4000),
            learned: [],
            changed: [],
          })
          await audit.record(tx, { actor: { kind: 'user', userId: coachId }, action: 'coach_session_updated', subjectUserId: session.memberUserId, target: { type: 'coach', id: null }, details: { change: 'summary' }, at: now })
        })
      },
    },

    /**
     * The `coach-session-reminders` job: each booked session's 24-hour and 1-hour reminders, to the
     * member (email, and a text when texts are on) and to the coach, once each: a reminder is claimed
     * (its column set where it was null) before it is sent, so two runners never both send it. A
     * reminder whose time passed while nothing ran (or a session booked inside it) goes at once; a
     * moved session's reminders start again; a cancelled one has none.
     */
    async sendReminders(): Promise<{ sent: number }> {
      const now = clock.now()
      let sent = 0
      const due = await db
        .select()
        .from(coachSessions)
        .where(
          and(
            eq(coachSessions.status, 'booked'),
            gt(coachSessions.startsAt, now),
            lte(coachSessions.startsAt, new Date(now.getTime() + 24 * HOUR_MS)),
            or(isNull(coachSessions.reminder24hAt), isNull(coachSessions.coachReminder24hAt), and(lte(coachSessions.startsAt, new Date(now.getTime() + HOUR_MS)), or(isNull(coachSessions.reminder1hAt), isNull(coachSessions.coachReminder1hAt)))),
          ),
        )
        .orderBy(asc(coachSessions.startsAt))
        .limit(500)
      for (const session of due) {
        const within1h = session.startsAt.getTime() - now.getTime() <= HOUR_MS
        // Within the hour, the day-before reminder is skipped (claimed, not sent): one reminder, the nearer.
        const which = within1h ? ('1h' as const) : ('24h' as const)
        const claims = [
          { key: within1h ? ('reminder1hAt' as const) : ('reminder24hAt' as const), side: 'member' as const },
          { key: within1h ? ('coachReminder1hAt' as const) : ('coachReminder24hAt' as const), side: 'coach' as const },
        ]
        if (within1h) {
          await db.update(coachSessions).set({ reminder24hAt: now }).where(and(eq(coachSessions.id, session.id), isNull(coachSessions.reminder24hAt)))
          await db.update(coachSessions).set({ coachReminder24hAt: now }).where(and(eq(coachSessions.id, session.id), isNull(coachSessions.coachReminder24hAt)))
        }
        for (const claim of claims) {
          // Claimed only while the session is still booked at that time (a move or a cancel in between wins).
          const [won] = await db
            .update(coachSessions)
            .set({ [claim.key]: now })
            .where(and(eq(coachSessions.id, session.id), eq(coachSessions.status, 'booked'), eq(coachSessions.startsAt, session.startsAt), isNull(coachSessions[claim.key])))
            .returning({ id: coachSessions.id })
          if (!won) continue
          await remind(session, claim.side, which)
          sent++
        }
      }
      return { sent }
    },
  }

  async function remind(session: CoachSessionRow, side: 'member' | 'coach', which: '24h' | '1h'): Promise<void> {
    const personId = side === 'member' ? session.memberUserId : session.coachUserId
    if (!personId) return
    const [person] = await db
      .select({ email: users.email, fullName: users.fullName, timeZone: profiles.timezone, coachZone: coachProfiles.timeZone })
      .from(users)
      .leftJoin(profiles, eq(profiles.id, users.id))
      .leftJoin(coachProfiles, eq(coachProfiles.userId, users.id))
      .where(eq(users.id, personId))
      .limit(1)
    if (!person) return
    const zone = side === 'member' ? (person.timeZone ?? session.memberTimeZone) : (person.coachZone ?? 'America/New_York')
    const when = whenText(session.startsAt, zone)
    const soon = which === '1h' ? 'in an hour' : 'tomorrow'
    const how = session.meeting === 'video' && session.videoUrl ? `Join by video: ${session.videoUrl}` : side === 'member' ? 'Your coach will call your phone.' : "Call the member's number, shown in your workspace from 15 minutes before."
    await deps.mailer.send(
      composeEmail({
        kind: 'coach_session',
        to: person.email,
        subject: `Reminder: your 1-on-1 session ${soon}, ${when}`,
        greeting: `Hi ${person.fullName.split(/\s+/)[0]},`,
        paragraphs: [`Your ${SESSION_MINUTES}-minute session is ${when}.`, how],
        action: side === 'member' ? 'See your sessions' : 'Open your workspace',
        link: side === 'member' ? `${appUrl}/sessions` : `${appUrl}/coach`,
        footer: 'We send a reminder the day before and an hour before each session.',
      }),
    )
    if (side === 'member') {
      const now = clock.now()
      const today = localDateOf(now, zone)
      const sessionDay = localDateOf(session.startsAt, zone)
      const nowLocal = localTimeOf(now, zone)
      // The hour-before text goes now or not at all (held to the morning it would come after the session).
      if (which === '1h' && (nowLocal < '08:00' || nowLocal >= '21:00')) return
      const day = sessionDay === today ? 'today' : sessionDay === Temporal.PlainDate.from(today).add({ days: 1 }).toString() ? 'tomorrow' : `on ${session.startsAt.toLocaleDateString('en-US', { timeZone: zone, weekday: 'long' })}`
      const time = session.startsAt.toLocaleTimeString('en-US', { timeZone: zone, hour: 'numeric', minute: '2-digit' })
      await deps.texts.sendSessionReminder({
        userId: personId,
        dedupeKey: `session_reminder:${session.id}:${which}:${session.startsAt.getTime()}`,
        content: `Reminder: your 1-on-1 coaching session is ${day} at ${time}. Details: ${appUrl}/sessions`,
        // Held past today (the night, the daily cap), its words would be wrong: skipped instead.
        onlyOnLocalDate: today,
      })
    }
  }
}
