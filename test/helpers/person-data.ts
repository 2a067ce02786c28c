/**
 * A person's data in every table that can hold it, and the database's own catalogue of those
 * tables (information_schema, not a hand list): the account data tests seed one row per table,
 * then check that the export holds each and that after deletion nothing anywhere names the person.
 * A table the catalogue shows without a seeder here fails those tests until it gets one (and a
 * place in server/services/account-data/tables.ts).
 */
import { randomBytes } from 'node:crypto'
import { eq, sql } from 'drizzle-orm'
import { createSession } from '#server/auth/session'
import { hashSecret } from '#server/auth/tokens'
import type { Db } from '#server/db/client'
import {
  accountDataExports,
  auditEvents,
  coachingCallEvents,
  coachingCalls,
  commitments,
  contactChanges,
  conversations,
  courseEnrollments,
  emailTokens,
  goals,
  goalTemplateOffers,
  goalTemplates,
  goalTemplateVersions,
  inboundTextAccounts,
  inboundTexts,
  lessonProgress,
  lessons,
  memoryEpisodes,
  memoryExtractions,
  memoryFacts,
  memoryForgotten,
  memoryPauses,
  phoneProofs,
  quizAttempts,
  quizzes,
  coachAssignments,
  coachMessages,
  coachNotes,
  coachAvailability,
  coachAvailabilityExceptions,
  coachPhotos,
  coachProfiles,
  coachSessions,
  staffRoles,
  supportMessages,
  supportTickets,
  subscribers,
  textMessages,
  textSuppressions,
  twoFactorCredentials,
  twoFactorRecoveryCodes,
  usageDays,
  usageVoiceCalls,
  userActivity,
  vapiWebhookEvents,
  weeklyReports,
  type User,
} from '#server/db/schema'
import type { Clock } from '#server/lib/clock'
import { seedCourses } from '#server/services/courses'

const rowsOf = <T>(result: unknown): T[] => (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[]

/** A column that names a person: by their id (a user_id column or a foreign key to users.id) or by their email. */
export type PersonColumn = { table: string; column: string; holds: 'id' | 'email' }

/**
 * Every table of the public schema with a column that names a person: `user_id`, any column with a
 * foreign key to users.id, and any column that holds an email address (`email`, `*_email`).
 */
export async function personColumns(db: Db): Promise<PersonColumn[]> {
  const rows = rowsOf<{ table_name: string; column_name: string; holds: 'id' | 'email' }>(
    await db.execute(sql`
      select c.table_name, c.column_name, 'id' as holds
      from information_schema.columns c
      join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name and t.table_type = 'BASE TABLE'
      where c.table_schema = 'public' and c.column_name = 'user_id'
      union
      select kcu.table_name, kcu.column_name, 'id'
      from information_schema.table_constraints tc
      join information_schema.key_column_usage kcu on kcu.constraint_schema = tc.constraint_schema and kcu.constraint_name = tc.constraint_name
      join information_schema.constraint_column_usage ccu on ccu.constraint_schema = tc.constraint_schema and ccu.constraint_name = tc.constraint_name
      where tc.constraint_type = 'FOREIGN KEY' and tc.table_schema = 'public' and ccu.table_name = 'users' and ccu.column_name = 'id'
      union
      select c.table_name, c.column_name, 'email'
      from information_schema.columns c
      join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name and t.table_type = 'BASE TABLE'
      where c.table_schema = 'public' and (c.column_name = 'email' or c.column_name like '%\\_email') and c.data_type in ('text', 'character varying')
      order by 1, 2`),
  )
  return rows.map((row) => ({ table: row.table_name, column: row.column_name, holds: row.holds }))
}

/** The rows of `table` whose `column` names the person. */
export async function countNaming(db: Db, column: PersonColumn, person: { id: string; email: string }): Promise<number> {
  const value = column.holds === 'id' ? person.id : person.email
  const [row] = rowsOf<{ n: number | string }>(await db.execute(sql`select count(*) as n from ${sql.identifier(column.table)} where ${sql.identifier(column.column)}::text = ${value}`))
  return Number(row!.n)
}

/**
 * Every column of every table of the public schema that can hold text (text, varchar, uuid, json,
 * jsonb, arrays), searched for each needle (case-insensitive): the places that still hold it.
 */
export async function placesHolding(db: Db, needles: readonly string[]): Promise<Array<{ table: string; column: string; rows: number }>> {
  const columns = rowsOf<{ table_name: string; column_name: string }>(
    await db.execute(sql`
      select c.table_name, c.column_name from information_schema.columns c
      join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name and t.table_type = 'BASE TABLE'
      where c.table_schema = 'public' and c.data_type in ('text', 'character varying', 'character', 'uuid', 'json', 'jsonb', 'ARRAY')
      order by 1, 2`),
  )
  const patterns = needles.map((needle) => `%${needle.replace(/[\\%_]/g, (c) => `\\${c}`)}%`)
  const found: Array<{ table: string; column: string; rows: number }> = []
  for (const { table_name: table, column_name: column } of columns) {
    const [row] = rowsOf<{ n: number | string }>(
      await db.execute(sql`select count(*) as n from ${sql.identifier(table)} where ${sql.identifier(column)}::text ilike any (${sql`array[${sql.join(patterns.map((p) => sql`${p}`), sql`, `)}]::text[]`})`),
    )
    if (Number(row!.n) > 0) found.push({ table, column, rows: Number(row!.n) })
  }
  return found
}

export type SeedContext = { db: Db; clock: Clock; user: User; marker: string }

/**
 * One step of seeding a person: the tables it writes a row to (the coverage test requires every
 * table the catalogue names to be written by some step). `insertUser` already wrote the users and
 * profiles rows and the sign-up's consent (consent_events, and consent_states by its trigger).
 */
export type Seeder = { tables: readonly string[]; seed(ctx: SeedContext): Promise<void> }

export const SEEDERS: readonly Seeder[] = [
  { tables: ['users', 'profiles', 'consent_events', 'consent_states'], seed: async () => {} },
  {
    tables: ['subscribers'],
    async seed({ db, user, clock, marker }) {
      // A Stripe subscription as the webhook stores it (kept when a test made a real one first).
      await db
        .insert(subscribers)
        .values({ userId: user.id, subscribed: true, tier: 'premium', status: 'active', source: 'stripe', currentPeriodEnd: new Date(clock.now().getTime() + 20 * 86_400_000), stripeCustomerId: `cus_${marker}`, stripeSubscriptionId: `sub_${marker}` })
        .onConflictDoNothing()
    },
  },
  {
    tables: ['goals'],
    async seed({ db, user, marker }) {
      await db.insert(goals).values({ userId: user.id, lifeArea: 'fitness', selectedOptions: ['exercise'], satisfactionScore: 6, customNotes: `goal notes ${marker}` })
    },
  },
  {
    tables: ['coaching_calls', 'coaching_call_events', 'commitments', 'text_messages', 'text_suppressions'],
    async seed({ db, user, clock, marker }) {
      const now = clock.now()
      const vapiCallId = `vapi-${marker}`
      const [call] = await db
        .insert(coachingCalls)
        .values({
          userId: user.id,
          callDate: new Date(now.getTime() - 86_400_000),
          callDuration: 300,
          completionStatus: 'completed',
          vapiCallId,
          summary: `call summary ${marker}`,
          transcript: `AI: How did it go?\nUser: transcript ${marker}`,
          slot: 'daily',
          localDate: '2026-11-20',
          timeZone: 'America/New_York',
          commitments: [`commitment ${marker}`],
          reportAt: now,
        })
        .returning()
      await db.insert(coachingCallEvents).values({ callId: call!.id, userId: user.id, type: 'ended', at: now, detail: { note: `timeline ${marker}` } })
      await db.insert(commitments).values({ userId: user.id, callId: call!.id, position: 0, text: `commitment ${marker}`, madeAt: now })
      const [text] = await db
        .insert(textMessages)
        .values({ userId: user.id, kind: 'recap', dedupeKey: `recap:${call!.id}`, callId: call!.id, content: `recap ${marker}`, body: `Momentum Coach: recap ${marker}`, toNumber: `+1${user.phoneNumber}`, status: 'delivered', providerSid: `SM${randomBytes(16).toString('hex')}`, createdAt: now, sentAt: now, updatedAt: now })
        .returning()
      // Its number turned out to be a landline.
      await db.insert(textSuppressions).values({ userId: user.id, toNumber: `+1${user.phoneNumber}`, errorCode: 30006, textId: text!.id, createdAt: now })
      // The provider's message about it, as stored before it is applied: it names the person too.
      await db.insert(vapiWebhookEvents).values({
        dedupeKey: `${vapiCallId}:end-of-call-report`,
        vapiCallId,
        type: 'end-of-call-report',
        payload: { message: { type: 'end-of-call-report', call: { id: vapiCallId, assistantOverrides: { metadata: { callId: call!.id, userId: user.id }, variableValues: { firstName: user.fullName } } } } },
        receivedAt: now,
        processedAt: now,
      })
    },
  },
  {
    tables: ['usage_days', 'usage_voice_calls'],
    async seed({ db, user, clock }) {
      // Chat turns taken today, and a voice call in the app that counted 95 seconds.
      const now = clock.now()
      await db.insert(usageDays).values({ userId: user.id, localDate: '2026-11-20', chatTurns: 12, updatedAt: now })
      const [call] = await db.insert(coachingCalls).values({ userId: user.id, callDate: now, slot: 'web', kind: 'web', completionStatus: 'completed', callDuration: 95, timeZone: 'America/New_York' }).returning()
      await db.insert(usageVoiceCalls).values({ callId: call!.id, userId: user.id, localDate: '2026-11-20', seconds: 95, updatedAt: now })
    },
  },
  {
    tables: ['conversations'],
    async seed({ db, user, clock, marker }) {
      // A conversation with the assistant at Vapi: the newest chat's id there.
      await db.insert(conversations).values({ userId: user.id, title: `chat ${marker}`, content: [{ id: randomBytes(8).toString('hex'), text: `message ${marker}`, sender: 'user', timestamp: clock.now().toISOString() }], previousChatId: `chat-${marker}` })
    },
  },
  {
    tables: ['course_enrollments', 'lesson_progress', 'quiz_attempts'],
    async seed({ db, user, clock }) {
      await seedCourses(db, { now: clock.now() })
      const [quiz] = await db.select({ id: quizzes.id, lessonId: quizzes.lessonId, courseId: lessons.courseId }).from(quizzes).innerJoin(lessons, eq(lessons.id, quizzes.lessonId)).limit(1)
      await db.insert(courseEnrollments).values({ userId: user.id, courseId: quiz!.courseId, progressPercentage: 20, source: 'free', lastLessonId: quiz!.lessonId })
      await db.insert(lessonProgress).values({ userId: user.id, lessonId: quiz!.lessonId, courseId: quiz!.courseId, completed: true, completionDate: clock.now() })
      await db.insert(quizAttempts).values({ userId: user.id, quizId: quiz!.id, lessonId: quiz!.lessonId, courseId: quiz!.courseId, userAnswer: 'an answer', isCorrect: false, pointsEarned: 0 })
    },
  },
  {
    tables: ['user_activity'],
    async seed({ db, user, clock }) {
      await db.insert(userActivity).values({ userId: user.id, kind: 'goals_saved', occurredAt: clock.now() })
    },
  },
  {
    tables: ['weekly_reports'],
    async seed({ db, user, clock }) {
      const end = clock.now()
      await db.insert(weeklyReports).values({ userId: user.id, weekEnding: '2026-11-15', timeZone: 'America/New_York', periodStart: new Date(end.getTime() - 7 * 86_400_000), periodEnd: end, unsubscribeTokenHash: hashSecret(randomBytes(16).toString('hex')) })
    },
  },
  {
    tables: ['sessions'],
    async seed({ db, user, clock }) {
      await createSession(db, clock, user.id, { userAgent: 'Mozilla/5.0 (seeded)', ip: '203.0.113.9' })
    },
  },
  {
    tables: ['email_tokens'],
    async seed({ db, user, clock }) {
      await db.insert(emailTokens).values({ userId: user.id, purpose: 'confirm_email', tokenHash: hashSecret(randomBytes(16).toString('hex')), expiresAt: new Date(clock.now().getTime() + 86_400_000) })
    },
  },
  {
    tables: ['contact_changes'],
    async seed({ db, user, clock }) {
      // A phone number change waiting for its texted code (the account page).
      await db.insert(contactChanges).values({ userId: user.id, kind: 'phone', newValue: '2025009999', secretHash: hashSecret(`${user.id}:123456`), expiresAt: new Date(clock.now().getTime() + 600_000) })
    },
  },
  {
    tables: ['account_data_exports'],
    async seed({ db, user, clock }) {
      // An export a day ago (a new one is allowed).
      await db.insert(accountDataExports).values({ userId: user.id, lastStartedAt: new Date(clock.now().getTime() - 86_400_000) }).onConflictDoNothing()
    },
  },
  {
    tables: ['inbound_texts', 'inbound_text_accounts'],
    async seed({ db, user, clock, marker }) {
      const messageSid = `SM${randomBytes(16).toString('hex')}`
      await db.insert(inboundTexts).values({ messageSid, fromNumber: `+1${user.phoneNumber}`, toNumber: '+15555550123', body: `hello ${marker}`, keyword: null, matchedUsers: 1, receivedAt: clock.now() })
      await db.insert(inboundTextAccounts).values({ messageSid, userId: user.id })
    },
  },
  {
    tables: ['phone_proofs'],
    async seed({ db, user, clock }) {
      await db
        .insert(phoneProofs)
        .values({ userId: user.id, phoneNumber: user.phoneNumber, method: 'code', provenAt: clock.now() })
        .onConflictDoUpdate({ target: phoneProofs.userId, set: { method: 'code', provenAt: clock.now() } })
    },
  },
  {
    tables: ['two_factor_credentials', 'two_factor_recovery_codes'],
    async seed({ db, user, clock }) {
      // Two-factor sign-in turned on, with one recovery code (docs/decisions/072).
      const now = clock.now()
      await db.insert(twoFactorCredentials).values({ userId: user.id, secret: new Uint8Array(randomBytes(20)), enabledAt: now, lastUsedStep: null, createdAt: now })
      await db.insert(twoFactorRecoveryCodes).values({ userId: user.id, codeHash: hashSecret(randomBytes(8).toString('hex')), position: 1, createdAt: now })
    },
  },
  {
    tables: ['staff_roles', 'audit_events'],
    async seed({ db, user, clock }) {
      // A staff role the person (an administrator) granted themselves, and the audit log's row of
      // their own change to their account.
      const now = clock.now()
      await db.insert(staffRoles).values({ userId: user.id, role: 'coach', grantedAt: now, grantedBy: user.id })
      await db.insert(auditEvents).values({ at: now, actorKind: 'user', actorUserId: user.id, action: 'two_factor_enabled', subjectUserId: user.id, targetType: 'two_factor' })
    },
  },
  {
    tables: ['coach_profiles', 'coach_assignments', 'coach_notes', 'coach_messages'],
    async seed({ db, user, clock, marker }) {
      // A coach's profile, an assignment and a private note (docs/decisions/078), all naming the
      // person (as coach and as member, as the audit row above does), so each column is covered.
      const now = clock.now()
      await db.insert(coachProfiles).values({ userId: user.id, bio: `coach bio ${marker}`, updatedAt: now })
      await db.insert(coachAssignments).values({ memberUserId: user.id, coachUserId: user.id, startedAt: now, how: 'admin', assignedBy: user.id })
      await db.insert(coachNotes).values({ memberUserId: user.id, coachUserId: user.id, body: `coach note ${marker}`, createdAt: now, updatedAt: now })
      await db.insert(coachMessages).values({ memberUserId: user.id, coachUserId: user.id, from: 'member', body: `coach message ${marker}`, createdAt: now })
    },
  },
  {
    tables: ['coach_photos'],
    async seed({ db, user, clock }) {
      // A coach's photo (docs/decisions/080): the bytes need not be an image here, only the row.
      const image = new Uint8Array(randomBytes(64))
      await db.insert(coachPhotos).values({ userId: user.id, image, contentType: 'image/webp', version: randomBytes(8).toString('hex'), bytes: image.length, updatedAt: clock.now() })
    },
  },
  {
    tables: ['coach_sessions', 'coach_availability', 'coach_availability_exceptions'],
    async seed({ db, user, clock, marker }) {
      // A 1-on-1 session (docs/decisions/082) with the person as member and coach, and their hours as a coach.
      const now = clock.now()
      const startsAt = new Date(now.getTime() + 3 * 24 * 60 * 60 * 1000)
      const endsAt = new Date(startsAt.getTime() + 45 * 60 * 1000)
      await db.insert(coachSessions).values({ memberUserId: user.id, coachUserId: user.id, kind: 'monthly', status: 'booked', startsAt, endsAt, blockedUntil: endsAt, memberTimeZone: 'America/New_York', month: startsAt.toISOString().slice(0, 7), counts: true, summary: `session summary ${marker}`, bookedAt: now, createdAt: now, updatedAt: now })
      await db.insert(coachAvailability).values({ coachUserId: user.id, weekday: 2, startTime: '09:00', endTime: '12:00' })
      await db.insert(coachAvailabilityExceptions).values({ coachUserId: user.id, date: '2027-01-04', kind: 'off' })
    },
  },
  {
    tables: ['goal_templates', 'goal_template_versions', 'goal_template_offers'],
    async seed({ db, user, clock }) {
      // A goal template the person wrote (as a coach) and offered to themselves (as a member), so
      // each column naming a person is covered (docs/decisions/081).
      const now = clock.now()
      const [template] = await db.insert(goalTemplates).values({ slug: `seeded-${randomBytes(6).toString('hex')}`, createdBy: user.id, createdAt: now }).returning()
      const [version] = await db
        .insert(goalTemplateVersions)
        .values({ templateId: template!.id, version: 1, name: 'Seeded template', audience: 'Anyone', targets: { fitness: { score: 8, focus: ['better_sleep'] } }, ninetyDayGoal: 'Sleep well', obstacles: [], firstCommitments: [], createdBy: user.id, createdAt: now })
        .returning()
      await db.insert(goalTemplateOffers).values({ memberUserId: user.id, templateVersionId: version!.id, offeredBy: user.id, createdAt: now })
    },
  },
  {
    tables: ['support_tickets', 'support_messages'],
    async seed({ db, user, clock, marker }) {
      // A support request with the person's message (docs/decisions/077).
      const now = clock.now()
      const [ticket] = await db
        .insert(supportTickets)
        .values({ userId: user.id, topic: 'calls', status: 'open', priority: 'basic', priorityRank: 3, plan: null, createdAt: now, updatedAt: now, lastMessageAt: now, lastFrom: 'member', firstResponseDueAt: now })
        .returning()
      await db.insert(supportMessages).values({ ticketId: ticket!.id, kind: 'member', authorUserId: user.id, body: `support request ${marker}`, createdAt: now })
    },
  },
  {
    tables: ['memory_facts', 'memory_episodes', 'memory_extractions', 'memory_forgotten', 'memory_pauses'],
    async seed({ db, user, clock, marker }) {
      // The coach's memory (docs/decisions/083): a fact a correction replaced, the correction, a
      // call's episode, the extraction that read it, a deleted fact's fingerprint, and a pause.
      const now = clock.now()
      const sourceId = `call-${marker}`
      const [old] = await db.insert(memoryFacts).values({ userId: user.id, statement: `remembered fact ${marker}`, subject: 'fitness', sourceChannel: 'call', sourceId, validFrom: new Date(now.getTime() - 86_400_000) }).returning()
      const [fact] = await db.insert(memoryFacts).values({ userId: user.id, statement: `remembered correction ${marker}`, subject: 'fitness', sourceChannel: 'person', sourceId: old!.id, validFrom: now }).returning()
      await db.update(memoryFacts).set({ validTo: now, supersededBy: fact!.id }).where(eq(memoryFacts.id, old!.id))
      await db.insert(memoryEpisodes).values({ userId: user.id, channel: 'call', sourceId, summary: `remembered episode ${marker}`, occurredAt: now })
      await db.insert(memoryExtractions).values({ userId: user.id, channel: 'call', key: sourceId, facts: 1, extractedAt: now })
      await db.insert(memoryForgotten).values({ userId: user.id, sourceChannel: 'call', sourceId, fingerprint: randomBytes(16).toString('hex'), forgottenAt: now })
      await db.insert(memoryPauses).values({ userId: user.id, pausedAt: new Date(now.getTime() - 3_600_000), resumedAt: now })
    },
  },
]

/** Every table some seeder writes. */
export const SEEDED_TABLES = new Set(SEEDERS.flatMap((seeder) => seeder.tables))

/** Writes a row for the person into every table a seeder knows (the person from insertUser). */
export async function seedPersonData(ctx: SeedContext): Promise<void> {
  for (const seeder of SEEDERS) await seeder.seed(ctx)
}
