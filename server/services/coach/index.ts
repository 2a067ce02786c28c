/**
 * Elite's human coach (docs/decisions/078): coaches' profiles, the assignment of every Elite member
 * to a coach (automatically to the coach with the most free places, or by an admin; the history
 * kept), and the coach's workspace: their members only, what a coach may read of each, and private
 * notes. Every read of a member's coaching data and every change is written to the audit log.
 */
import { and, asc, count, desc, eq, inArray, isNotNull, isNull, sql } from 'drizzle-orm'
import { z } from 'zod'
import {
  COACH_MESSAGES_PER_DAY,
  hoursTextOf,
  MESSAGE_NOTICE_AFTER_MS,
  MESSAGE_NOTICE_EVERY_MS,
  QUIET_AFTER_DAYS,
  replyPromiseOf,
  type CoachMemberDetail,
  type CoachMessage,
  type CoachThreadEvent,
  type CoachThreadResponse,
  type CoachMemberSummary,
  type CoachNote,
  type CoachProfile,
  type MyCoachResponse,
  type UpdateCoachProfileBody,
} from '#common/coach'
import { overallScore } from '#common/dashboard'
import { LIFE_AREAS } from '#common/domain'
import { CRISIS_RESOURCES, isCrisisMessage } from '#common/texts'
import { isUuid } from '#common/uuid'
import { accessColumns } from '#server/db/access'
import type { Db, DbExecutor } from '#server/db/client'
import { coachAssignments, coachMessages, coachNotes, coachProfiles, coachSessions, coachingCalls, goals, profiles, staffRoles, subscribers, twoFactorCredentials, users, type CoachProfileRow } from '#server/db/schema'
import { composeEmail, type Mailer } from '#server/integrations/mailer'
import type { ClusterBus } from '#server/services/cluster-bus'
import { AppError } from '#server/lib/app-error'
import type { Clock } from '#server/lib/clock'
import { jobContract } from '#server/lib/job-contract'
import { audit, type AuditActor } from '#server/services/audit'
import { decideAccess, paidUserCondition } from '#server/services/billing'
import { recentCalls } from '#server/services/calls'
import { loadGoals } from '#server/services/goals'

export const COACH_JOBS = {
  /** Every few minutes: Elite members without a coach get one; assignments of members who left Elite, or of coaches gone, end. */
  assignmentsSweep: jobContract('coach-assignments-sweep', z.object({}).strict()),
  /** Every few minutes: one email about unread thread messages per person, at most one per 15 minutes. */
  messageNotices: jobContract('coach-message-notices', z.object({}).strict()),
} as const
export type CoachJob = (typeof COACH_JOBS)[keyof typeof COACH_JOBS]

type CoachDeps = {
  db: Db
  clock: Clock
  /** The thread's live events to both sides' streams, on every server. */
  bus: Pick<ClusterBus, 'publish' | 'subscribe'>
  mailer: Mailer
  appUrl: string
  /** The member's text about their coach's unread messages, through the texts outbox (its consent, proven number, hours and cap). */
  texts: {
    sendCoachMessageNotice(input: { userId: string; firstUnreadId: string; coachName: string; count: number }): Promise<unknown>
    withdrawCoachMessageNotices(userId: string): Promise<unknown>
  }
  /** What the workspace shows of a member beyond goals and calls (the services that own them). */
  reads: {
    commitments(userId: string): Promise<CoachMemberDetail['commitments']>
    reports(userId: string): Promise<CoachMemberDetail['reports']>
    nextCall(userId: string): Promise<CoachMemberDetail['nextCall']>
    supportRequests(userId: string): Promise<CoachMemberDetail['supportRequests']>
  }
}

const DAY_MS = 24 * 60 * 60 * 1000
const memberNotFound = () => new AppError('NOT_FOUND', 'This member is not one of yours.', { field: 'memberId' })
/** One assignment decision at a time across every server: places are counted, then taken. */
const lockAssignments = (tx: DbExecutor) => tx.execute(sql`select pg_advisory_xact_lock(hashtext('coach-assignments'))`)

const profileDefaults = (userId: string, now: Date) => ({ userId, updatedAt: now })

function profileView(row: CoachProfileRow, fullName: string): CoachProfile {
  const days = [...row.workingDays].sort((a, b) => a - b)
  return {
    coachId: row.userId,
    fullName,
    bio: row.bio,
    timeZone: row.timeZone,
    workingDays: days,
    startTime: row.startTime,
    endTime: row.endTime,
    replyWithinHours: row.replyWithinHours,
    replyPromise: replyPromiseOf(fullName, row.replyWithinHours),
    hoursText: hoursTextOf(days, row.startTime, row.endTime, row.timeZone),
  }
}

/** The coach's profile row, made with the defaults when it does not exist yet. */
async function profileRow(tx: DbExecutor, userId: string, now: Date): Promise<CoachProfileRow> {
  await tx.insert(coachProfiles).values(profileDefaults(userId, now)).onConflictDoNothing()
  const [row] = await tx.select().from(coachProfiles).where(eq(coachProfiles.userId, userId)).limit(1)
  return row!
}

/** Whether the person's plan now is Elite and paid (the paid rule of billing). */
async function isEliteMember(tx: DbExecutor, userId: string, now: Date): Promise<boolean> {
  const [row] = await tx.select(accessColumns).from(profiles).leftJoin(subscribers, eq(subscribers.userId, profiles.id)).where(eq(profiles.id, userId)).limit(1)
  const access = decideAccess(row, now)
  return access.paid && access.tier === 'elite'
}

/** The coach with the most free places (then the fewest members, then the longest-standing), among coaches with two-factor sign-in on; none when all are full. */
async function coachWithMostRoom(tx: DbExecutor): Promise<string | null> {
  const current = tx
    .select({ coachUserId: coachAssignments.coachUserId, members: count().as('members') })
    .from(coachAssignments)
    .where(isNull(coachAssignments.endedAt))
    .groupBy(coachAssignments.coachUserId)
    .as('current')
  const capacity = sql<number>`coalesce(${coachProfiles.maxMembers}, 25)`
  const members = sql<number>`coalesce(${current.members}, 0)`
  const [row] = await tx
    .select({ coachId: staffRoles.userId })
    .from(staffRoles)
    .leftJoin(coachProfiles, eq(coachProfiles.userId, staffRoles.userId))
    .leftJoin(current, eq(current.coachUserId, staffRoles.userId))
    // Only a coach who can open the workspace: two-factor sign-in on (staff pages need it).
    .innerJoin(twoFactorCredentials, and(eq(twoFactorCredentials.userId, staffRoles.userId), isNotNull(twoFactorCredentials.enabledAt)))
    .where(and(eq(staffRoles.role, 'coach'), sql`${capacity} - ${members} > 0`))
    .orderBy(desc(sql`${capacity} - ${members}`), asc(members), asc(staffRoles.grantedAt), asc(staffRoles.userId))
    .limit(1)
  return row?.coachId ?? null
}

const isCoach = async (tx: DbExecutor, userId: string) =>
  (await tx.select({ userId: staffRoles.userId }).from(staffRoles).where(and(eq(staffRoles.userId, userId), eq(staffRoles.role, 'coach'))).limit(1)).length > 0

/** The member's current assignment (with a coach still on record), or none. */
async function currentAssignment(tx: DbExecutor, memberId: string) {
  const [row] = await tx
    .select()
    .from(coachAssignments)
    .where(and(eq(coachAssignments.memberUserId, memberId), isNull(coachAssignments.endedAt)))
    .limit(1)
  return row
}

type Assignment = NonNullable<Awaited<ReturnType<typeof currentAssignment>>>

/** Ends the member's current assignment (if any) and starts one with `coachId`; audited as `actor`. */
async function assign(tx: DbExecutor, memberId: string, coachId: string, actor: AuditActor, now: Date, ended?: Assignment): Promise<void> {
  if (ended) await tx.update(coachAssignments).set({ endedAt: now }).where(eq(coachAssignments.id, ended.id))
  await tx.insert(coachAssignments).values({
    memberUserId: memberId,
    coachUserId: coachId,
    startedAt: now,
    how: actor.kind === 'user' ? 'admin' : 'auto',
    assignedBy: actor.kind === 'user' ? actor.userId : null,
  })
  await audit.record(tx, { actor, action: 'coach_assigned', subjectUserId: memberId, target: { type: 'coach', id: null }, at: now })
}

export function createCoach(deps: CoachDeps) {
  const { db, clock } = deps

  /**
   * The Elite member's coach: their current one, or (none yet, or theirs no longer coaching) the
   * coach with the most free places, assigned now. Null when every coach is full.
   */
  async function ensureAssigned(memberId: string): Promise<Assignment | null> {
    return db.transaction(async (tx) => {
      const existing = await currentAssignment(tx, memberId)
      if (existing?.coachUserId && (await isCoach(tx, existing.coachUserId))) return existing
      await lockAssignments(tx)
      const now = clock.now()
      const again = await currentAssignment(tx, memberId)
      if (again?.coachUserId && (await isCoach(tx, again.coachUserId))) return again
      const coachId = await coachWithMostRoom(tx)
      if (!coachId) {
        if (again) await tx.update(coachAssignments).set({ endedAt: now }).where(eq(coachAssignments.id, again.id))
        return null
      }
      await assign(tx, memberId, coachId, { kind: 'system' }, now, again)
      return (await currentAssignment(tx, memberId)) ?? null
    })
  }

  /** The coach's current members (the one check behind every workspace read). */
  async function assertMemberOf(coachId: string, memberId: string): Promise<Assignment> {
    if (!isUuid(memberId)) throw memberNotFound()
    const [row] = await db
      .select()
      .from(coachAssignments)
      .where(and(eq(coachAssignments.memberUserId, memberId), eq(coachAssignments.coachUserId, coachId), isNull(coachAssignments.endedAt)))
      .limit(1)
    if (!row) throw memberNotFound()
    return row
  }

  async function summaries(coachId: string, memberId?: string): Promise<Array<CoachMemberSummary & { timeZone: string | null }>> {
    const now = clock.now()
    const lastCall = sql<Date | null>`(select max(${coachingCalls.endedAt}) from ${coachingCalls} where ${coachingCalls.userId} = ${coachAssignments.memberUserId} and ${coachingCalls.completionStatus} = 'completed')`
    const score = sql<string | null>`(select round(avg(${goals.satisfactionScore})) from ${goals} where ${goals.userId} = ${coachAssignments.memberUserId} and ${inArray(goals.lifeArea, [...LIFE_AREAS])} and ${goals.satisfactionScore} is not null)`
    const unread = sql<number>`(select count(*)::int from ${coachMessages} m where m.member_user_id = ${coachAssignments.memberUserId} and m."from" = 'member' and m.read_at is null)`
    const urgent = sql<boolean>`exists (select 1 from ${coachMessages} m where m.member_user_id = ${coachAssignments.memberUserId} and m.crisis and m.read_at is null and m.created_at > ${new Date(now.getTime() - 7 * DAY_MS).toISOString()})`
    // New: their first coach came in the last 7 days, and no onboarding session was held (completed) yet.
    const awaitingOnboarding = sql<boolean>`(select min(a.started_at) from ${coachAssignments} a where a.member_user_id = ${coachAssignments.memberUserId}) > ${new Date(now.getTime() - 7 * DAY_MS).toISOString()}
      and not exists (select 1 from ${coachSessions} s where s.member_user_id = ${coachAssignments.memberUserId} and s.kind = 'onboarding' and s.status = 'completed')`
    const rows = await db
      .select({ memberId: coachAssignments.memberUserId, fullName: users.fullName, assignedAt: coachAssignments.startedAt, lastCall, score, timeZone: profiles.timezone, unread, urgent, awaitingOnboarding })
      .from(coachAssignments)
      .innerJoin(users, eq(users.id, coachAssignments.memberUserId))
      .leftJoin(profiles, eq(profiles.id, coachAssignments.memberUserId))
      .where(and(eq(coachAssignments.coachUserId, coachId), isNull(coachAssignments.endedAt), memberId ? eq(coachAssignments.memberUserId, memberId) : undefined))
      .orderBy(asc(users.fullName), asc(coachAssignments.memberUserId))
    return rows.map((row) => {
      const last = row.lastCall ? new Date(row.lastCall) : null
      const since = last ?? row.assignedAt
      return {
        memberId: row.memberId,
        fullName: row.fullName,
        assignedAt: row.assignedAt.toISOString(),
        overallScore: row.score === null ? null : Number(row.score),
        lastCompletedCallAt: last?.toISOString() ?? null,
        quiet: now.getTime() - since.getTime() > QUIET_AFTER_DAYS * DAY_MS,
        unread: Number(row.unread),
        urgent: row.urgent === true,
        awaitingOnboarding: row.awaitingOnboarding === true,
        timeZone: row.timeZone ?? null,
      }
    })
  }

  const messageView = (row: typeof coachMessages.$inferSelect): CoachMessage => ({
    id: row.id,
    from: row.from,
    body: row.body,
    at: row.createdAt.toISOString(),
    readAt: row.readAt?.toISOString() ?? null,
  })

  /** Tells both sides' live streams (the member's channel and the coach's). */
  async function tell(memberId: string, coachId: string | null, event: CoachThreadEvent): Promise<void> {
    await Promise.all([deps.bus.publish(memberId, event), coachId ? deps.bus.publish(coachId, event) : Promise.resolve()])
  }

  async function threadOf(memberId: string): Promise<CoachMessage[]> {
    const rows = await db.select().from(coachMessages).where(eq(coachMessages.memberUserId, memberId)).orderBy(desc(coachMessages.seq)).limit(200)
    return rows.reverse().map(messageView)
  }

  /** Marks what `reader` has not read of the other side's messages read, and tells both sides. */
  async function markRead(memberId: string, coachId: string | null, reader: 'member' | 'coach'): Promise<void> {
    const now = clock.now()
    const read = await db
      .update(coachMessages)
      .set({ readAt: now })
      .where(and(eq(coachMessages.memberUserId, memberId), eq(coachMessages.from, reader === 'member' ? 'coach' : 'member'), isNull(coachMessages.readAt)))
      .returning({ id: coachMessages.id })
    if (read.length === 0) return
    await tell(memberId, coachId, { type: 'coach-messages-read', memberId, by: reader, at: now.toISOString() })
    if (reader === 'member') await deps.texts.withdrawCoachMessageNotices(memberId)
  }

  /**
   * The text to the member beside the email: one per run of unread coach messages, keyed by the
   * run's oldest (the texts outbox makes a second ask for the same key nothing).
   */
  async function textMember(memberId: string, coachName: string): Promise<void> {
    const unread = await db
      .select({ id: coachMessages.id })
      .from(coachMessages)
      .where(and(eq(coachMessages.memberUserId, memberId), eq(coachMessages.from, 'coach'), isNull(coachMessages.readAt)))
      .orderBy(asc(coachMessages.seq))
    if (unread.length === 0) return
    await deps.texts.sendCoachMessageNotice({ userId: memberId, firstUnreadId: unread[0]!.id, coachName, count: unread.length })
  }

  /**
   * The Elite member's current coach for the thread and the 1-on-1s; 403 on other plans (`upsell`:
   * what the plan would give), 409 while a coach is being matched.
   */
  async function threadCoach(memberId: string, upsell?: string): Promise<{ coachId: string; fullName: string; profile: CoachProfileRow }> {
    if (!(await isEliteMember(db, memberId, clock.now()))) throw new AppError('ELITE_REQUIRED', upsell)
    const assignment = await ensureAssigned(memberId)
    if (!assignment?.coachUserId) throw new AppError('CONFLICT', "We're still matching you with a coach. You can write to them once they're assigned.")
    const [coach] = await db.select({ fullName: users.fullName }).from(users).where(eq(users.id, assignment.coachUserId)).limit(1)
    return { coachId: assignment.coachUserId, fullName: coach!.fullName, profile: await profileRow(db, assignment.coachUserId, clock.now()) }
  }

  async function insertMessage(memberId: string, coachId: string, from: 'member' | 'coach', body: string, crisis: boolean): Promise<CoachMessage> {
    const [row] = await db.insert(coachMessages).values({ memberUserId: memberId, coachUserId: coachId, from, body, crisis, createdAt: clock.now() }).returning()
    const message = messageView(row!)
    await tell(memberId, coachId, { type: 'coach-message', memberId, message })
    return message
  }

  async function notesOf(memberId: string): Promise<CoachNote[]> {
    const rows = await db.select().from(coachNotes).where(eq(coachNotes.memberUserId, memberId)).orderBy(desc(coachNotes.createdAt), desc(coachNotes.id))
    return rows.map((row) => ({ id: row.id, body: row.body, createdAt: row.createdAt.toISOString(), updatedAt: row.updatedAt.toISOString() }))
  }

  return {
    /** The member's coach (1-on-1 sessions): 403 ELITE_REQUIRED with `upsell` on other plans, 409 while one is matched. */
    coachOf: (memberId: string, upsell: string) => threadCoach(memberId, upsell),
    /** 404 unless `memberId` is one of the coach's current members. */
    assertMemberOf,

    /** GET /api/coach: an Elite member's coach (assigned now if they have none), or that one is being matched. */
    async mine(memberId: string): Promise<MyCoachResponse> {
      if (!(await isEliteMember(db, memberId, clock.now()))) return { status: 'not-elite' }
      const assignment = await ensureAssigned(memberId)
      if (!assignment?.coachUserId) return { status: 'matching' }
      const [coach] = await db.select({ fullName: users.fullName }).from(users).where(eq(users.id, assignment.coachUserId)).limit(1)
      const row = await profileRow(db, assignment.coachUserId, clock.now())
      return { status: 'assigned', coach: profileView(row, coach!.fullName), since: assignment.startedAt.toISOString() }
    },

    /**
     * The `coach-assignments-sweep` job: assignments of members no longer Elite, or of coaches no
     * longer coaching, end; then Elite members without a coach get one, while places last.
     */
    async sweep(): Promise<{ ended: number; assigned: number; waiting: number }> {
      const now = clock.now()
      const ended = await db.transaction(async (tx) => {
        await lockAssignments(tx)
        const gone = await tx
          .update(coachAssignments)
          .set({ endedAt: now })
          .where(
            and(
              isNull(coachAssignments.endedAt),
              sql`(${coachAssignments.coachUserId} is null
                or not exists (select 1 from ${staffRoles} r where r.user_id = ${coachAssignments.coachUserId} and r.role = 'coach')
                or not exists (select 1 from ${profiles} left join ${subscribers} on ${subscribers.userId} = ${profiles.id}
                               where ${profiles.id} = ${coachAssignments.memberUserId} and ${subscribers.tier} = 'elite' and ${paidUserCondition(now)}))`,
            ),
          )
          .returning({ id: coachAssignments.id })
        return gone.length
      })
      const waiting = await db
        .select({ id: profiles.id })
        .from(profiles)
        .innerJoin(subscribers, eq(subscribers.userId, profiles.id))
        .where(and(eq(subscribers.tier, 'elite'), paidUserCondition(now), sql`not exists (select 1 from ${coachAssignments} a where a.member_user_id = ${profiles.id} and a.ended_at is null)`))
        .limit(200)
      let assigned = 0
      for (const member of waiting) {
        if (!(await ensureAssigned(member.id))) break
        assigned++
      }
      return { ended, assigned, waiting: waiting.length - assigned }
    },

    /** The coach's own profile (made with the defaults the first time). */
    async ownProfile(coachId: string): Promise<CoachProfile> {
      const [coach] = await db.select({ fullName: users.fullName }).from(users).where(eq(users.id, coachId)).limit(1)
      return profileView(await profileRow(db, coachId, clock.now()), coach!.fullName)
    },

    async updateOwnProfile(coachId: string, body: UpdateCoachProfileBody): Promise<CoachProfile> {
      const now = clock.now()
      await db
        .insert(coachProfiles)
        .values({ ...profileDefaults(coachId, now), ...body })
        .onConflictDoUpdate({ target: coachProfiles.userId, set: { ...body, updatedAt: now } })
      return this.ownProfile(coachId)
    },

    /** The workspace's list: the coach's current members, with their score, last completed call and whether they went quiet. */
    async members(coachId: string): Promise<CoachMemberSummary[]> {
      return (await summaries(coachId)).map(({ timeZone: _zone, ...member }) => member)
    },

    /** One of the coach's members, as the coach may read them; the read is written to the member's audit log. */
    async member(coachId: string, memberId: string): Promise<CoachMemberDetail> {
      await assertMemberOf(coachId, memberId)
      const [summary] = await summaries(coachId, memberId)
      if (!summary) throw memberNotFound()
      const [memberGoals, calls, commitmentList, reports, nextCall, supportRequests, notes] = await Promise.all([
        loadGoals(db, memberId),
        recentCalls(db, memberId),
        deps.reads.commitments(memberId),
        deps.reads.reports(memberId),
        deps.reads.nextCall(memberId),
        deps.reads.supportRequests(memberId),
        notesOf(memberId),
      ])
      await audit.record(db, { actor: { kind: 'user', userId: coachId }, action: 'coach_member_viewed', subjectUserId: memberId, target: { type: 'coach', id: null }, at: clock.now() })
      const lastCalls = calls.slice(0, 5)
      const feelings = lastCalls.length
        ? await db
            .select({ id: coachingCalls.id, mood: coachingCalls.mood, energy: coachingCalls.energy })
            .from(coachingCalls)
            .where(and(eq(coachingCalls.userId, memberId), inArray(coachingCalls.id, lastCalls.map((call) => call.id))))
        : []
      const feelingOf = new Map(feelings.map((row) => [row.id, row]))
      const scored = memberGoals.filter((goal) => (LIFE_AREAS as readonly string[]).includes(goal.lifeArea))
      return {
        member: { ...summary, overallScore: scored.some((goal) => goal.satisfactionScore !== null) ? overallScore(scored) : null },
        goals: memberGoals,
        calls: lastCalls.map((call) => ({ ...call, mood: feelingOf.get(call.id)?.mood ?? null, energy: feelingOf.get(call.id)?.energy ?? null })),
        commitments: commitmentList,
        reports: reports.slice(0, 4),
        nextCall,
        supportRequests,
        notes,
      }
    },

    thread: {
      /** The member's thread with their coach (the last 200 messages); the coach's messages become read. */
      async forMember(memberId: string): Promise<CoachThreadResponse> {
        const coach = await threadCoach(memberId)
        await markRead(memberId, coach.coachId, 'member')
        return {
          coach: { fullName: coach.fullName, replyPromise: replyPromiseOf(coach.fullName, coach.profile.replyWithinHours), hoursText: profileView(coach.profile, coach.fullName).hoursText },
          messages: await threadOf(memberId),
        }
      },

      /**
       * The member writes to their coach: at most COACH_MESSAGES_PER_DAY a day (409). Words about
       * suicide or self-harm get the crisis resources at once, and flag the member in the workspace.
       */
      async sendAsMember(memberId: string, body: string): Promise<{ message: CoachMessage; crisisResources: string | null }> {
        const coach = await threadCoach(memberId)
        const dayStart = new Date(Math.floor(clock.now().getTime() / DAY_MS) * DAY_MS)
        const [sent] = await db
          .select({ n: count() })
          .from(coachMessages)
          .where(and(eq(coachMessages.memberUserId, memberId), eq(coachMessages.from, 'member'), sql`${coachMessages.createdAt} >= ${dayStart.toISOString()}`))
        if ((sent?.n ?? 0) >= COACH_MESSAGES_PER_DAY) throw new AppError('COACH_MESSAGE_LIMIT', undefined, { field: 'body' })
        const crisis = isCrisisMessage(body)
        const message = await insertMessage(memberId, coach.coachId, 'member', body, crisis)
        return { message, crisisResources: crisis ? `${CRISIS_RESOURCES} ${coach.fullName.split(/\s+/)[0]} will read your message, but may not be available right now.` : null }
      },

      /** The coach's side of one of their members' threads; the member's messages become read; the read is audited. */
      async forCoach(coachId: string, memberId: string): Promise<CoachMessage[]> {
        await assertMemberOf(coachId, memberId)
        await audit.record(db, { actor: { kind: 'user', userId: coachId }, action: 'coach_messages_viewed', subjectUserId: memberId, target: { type: 'coach', id: null }, at: clock.now() })
        await markRead(memberId, coachId, 'coach')
        return threadOf(memberId)
      },

      async sendAsCoach(coachId: string, memberId: string, body: string): Promise<CoachMessage> {
        await assertMemberOf(coachId, memberId)
        return insertMessage(memberId, coachId, 'coach', body, false)
      },

      /** Refuses a member who has no thread (not Elite: 403; no coach yet: 409), before a stream opens. */
      async assertOpen(memberId: string): Promise<void> {
        await threadCoach(memberId)
      },

      /** The person's live thread events (the member's own thread, or every thread of a coach). */
      watch(userId: string, listener: (event: CoachThreadEvent) => void) {
        return deps.bus.subscribe(userId, (event) => {
          if (event.type === 'coach-message' || event.type === 'coach-messages-read') listener(event)
        })
      },

      /**
       * The `coach-message-notices` job: for each side with messages unread MESSAGE_NOTICE_AFTER_MS
       * after they arrived, one email (not more than one per MESSAGE_NOTICE_EVERY_MS per thread and
       * side); the messages it covers are marked notified.
       */
      async sendNotices(): Promise<{ sent: number }> {
        const now = clock.now()
        const due = await db
          .select({ memberId: coachMessages.memberUserId, from: coachMessages.from, coachId: sql<string | null>`max(${coachMessages.coachUserId}::text)`, count: count() })
          .from(coachMessages)
          .where(and(isNull(coachMessages.readAt), isNull(coachMessages.notifiedAt), sql`${coachMessages.createdAt} <= ${new Date(now.getTime() - MESSAGE_NOTICE_AFTER_MS).toISOString()}`))
          .groupBy(coachMessages.memberUserId, coachMessages.from)
          .limit(500)
        let sent = 0
        for (const thread of due) {
          const [recent] = await db
            .select({ at: sql<string | null>`max(${coachMessages.notifiedAt})` })
            .from(coachMessages)
            .where(and(eq(coachMessages.memberUserId, thread.memberId), eq(coachMessages.from, thread.from)))
          if (recent?.at && now.getTime() - new Date(recent.at).getTime() < MESSAGE_NOTICE_EVERY_MS) continue
          const recipientId = thread.from === 'member' ? thread.coachId : thread.memberId
          const writerId = thread.from === 'member' ? thread.memberId : thread.coachId
          if (recipientId && writerId) {
            const people = await db.select({ id: users.id, email: users.email, fullName: users.fullName }).from(users).where(inArray(users.id, [recipientId, writerId]))
            const recipient = people.find((person) => person.id === recipientId)
            const writer = people.find((person) => person.id === writerId)
            if (recipient && writer) {
              const many = thread.count === 1 ? 'a message' : `${thread.count} messages`
              await deps.mailer.send(
                composeEmail({
                  kind: 'coach_message_notice',
                  to: recipient.email,
                  subject: thread.from === 'member' ? `${writer.fullName} wrote to you` : `Your coach ${writer.fullName} wrote to you`,
                  greeting: `Hi ${recipient.fullName.split(/\s+/)[0]},`,
                  paragraphs: [`${writer.fullName} sent you ${many} on Momentum Coach.`],
                  action: 'Read and reply',
                  link: thread.from === 'member' ? `${deps.appUrl}/coach?member=${thread.memberId}` : `${deps.appUrl}/messages`,
                  footer: 'We send at most one of these every 15 minutes, and only while the messages are unread.',
                }),
              )
              sent++
              if (thread.from === 'coach') await textMember(thread.memberId, writer.fullName)
            }
          }
          await db
            .update(coachMessages)
            .set({ notifiedAt: now })
            .where(and(eq(coachMessages.memberUserId, thread.memberId), eq(coachMessages.from, thread.from), isNull(coachMessages.readAt), isNull(coachMessages.notifiedAt)))
        }
        return { sent }
      },
    },

    notes: {
      async add(coachId: string, memberId: string, body: string): Promise<CoachNote> {
        await assertMemberOf(coachId, memberId)
        return db.transaction(async (tx) => {
          const now = clock.now()
          const [row] = await tx.insert(coachNotes).values({ memberUserId: memberId, coachUserId: coachId, body, createdAt: now, updatedAt: now }).returning()
          await audit.record(tx, { actor: { kind: 'user', userId: coachId }, action: 'coach_note_written', subjectUserId: memberId, target: { type: 'coach', id: null }, details: { change: 'added' }, at: now })
          return { id: row!.id, body: row!.body, createdAt: row!.createdAt.toISOString(), updatedAt: row!.updatedAt.toISOString() }
        })
      },
      async update(coachId: string, memberId: string, noteId: string, body: string): Promise<CoachNote> {
        await assertMemberOf(coachId, memberId)
        if (!isUuid(noteId)) throw new AppError('NOT_FOUND', 'No note has that id.', { field: 'noteId' })
        return db.transaction(async (tx) => {
          const now = clock.now()
          const [row] = await tx
            .update(coachNotes)
            .set({ body, updatedAt: now, coachUserId: coachId })
            .where(and(eq(coachNotes.id, noteId), eq(coachNotes.memberUserId, memberId)))
            .returning()
          if (!row) throw new AppError('NOT_FOUND', 'No note has that id.', { field: 'noteId' })
          await audit.record(tx, { actor: { kind: 'user', userId: coachId }, action: 'coach_note_written', subjectUserId: memberId, target: { type: 'coach', id: null }, details: { change: 'changed' }, at: now })
          return { id: row.id, body: row.body, createdAt: row.createdAt.toISOString(), updatedAt: row.updatedAt.toISOString() }
        })
      },
      async remove(coachId: string, memberId: string, noteId: string): Promise<void> {
        await assertMemberOf(coachId, memberId)
        if (!isUuid(noteId)) throw new AppError('NOT_FOUND', 'No note has that id.', { field: 'noteId' })
        await db.transaction(async (tx) => {
          const now = clock.now()
          const gone = await tx
            .delete(coachNotes)
            .where(and(eq(coachNotes.id, noteId), eq(coachNotes.memberUserId, memberId)))
            .returning({ id: coachNotes.id })
          if (gone.length === 0) throw new AppError('NOT_FOUND', 'No note has that id.', { field: 'noteId' })
          await audit.record(tx, { actor: { kind: 'user', userId: coachId }, action: 'coach_note_written', subjectUserId: memberId, target: { type: 'coach', id: null }, details: { change: 'deleted' }, at: now })
        })
      },
    },

    admin: {
      /** Every coach with their members and capacity, and how many Elite members wait for one. */
      async coaches() {
        const now = clock.now()
        const rows = await db
          .select({
            coachId: staffRoles.userId,
            fullName: users.fullName,
            maxMembers: sql<number>`coalesce(${coachProfiles.maxMembers}, 25)`,
            members: sql<number>`(select count(*)::int from ${coachAssignments} a where a.coach_user_id = ${staffRoles.userId} and a.ended_at is null)`,
          })
          .from(staffRoles)
          .innerJoin(users, eq(users.id, staffRoles.userId))
          .leftJoin(coachProfiles, eq(coachProfiles.userId, staffRoles.userId))
          .where(eq(staffRoles.role, 'coach'))
          .orderBy(asc(users.fullName), asc(staffRoles.userId))
        const [waiting] = await db
          .select({ n: count() })
          .from(profiles)
          .innerJoin(subscribers, eq(subscribers.userId, profiles.id))
          .where(and(eq(subscribers.tier, 'elite'), paidUserCondition(now), sql`not exists (select 1 from ${coachAssignments} a where a.member_user_id = ${profiles.id} and a.ended_at is null)`))
        return { coaches: rows.map((row) => ({ ...row, maxMembers: Number(row.maxMembers), members: Number(row.members) })), unassigned: waiting?.n ?? 0 }
      },

      async setCapacity(coachId: string, maxMembers: number) {
        if (!isUuid(coachId) || !(await isCoach(db, coachId))) throw new AppError('NOT_FOUND', 'No coach has that id.', { field: 'coachId' })
        const now = clock.now()
        await db
          .insert(coachProfiles)
          .values({ ...profileDefaults(coachId, now), maxMembers })
          .onConflictDoUpdate({ target: coachProfiles.userId, set: { maxMembers, updatedAt: now } })
        return this.coaches()
      },

      /** An admin gives an Elite member (by email) a coach; the earlier assignment ends and stays in the history. */
      async assign(adminId: string, memberEmail: string, coachId: string) {
        const now = clock.now()
        const [member] = await db.select({ id: users.id }).from(users).where(eq(users.email, memberEmail.toLowerCase())).limit(1)
        if (!member) throw new AppError('NOT_FOUND', 'No member has that email.', { field: 'memberEmail' })
        if (!(await isEliteMember(db, member.id, now))) throw new AppError('CONFLICT', 'Only Elite members have a coach.', { field: 'memberEmail' })
        if (!isUuid(coachId) || !(await isCoach(db, coachId))) throw new AppError('NOT_FOUND', 'No coach has that id.', { field: 'coachId' })
        await db.transaction(async (tx) => {
          await lockAssignments(tx)
          const current = await currentAssignment(tx, member.id)
          if (current?.coachUserId === coachId) return
          await assign(tx, member.id, coachId, { kind: 'user', userId: adminId }, now, current)
        })
        return { memberId: member.id, coachId }
      },
    },
  }
}
