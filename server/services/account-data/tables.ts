/**
 * Everything the product keeps about a person, table by table: which rows are theirs, what of them
 * goes into the export (never a secret), in which file, and how they go when the account is
 * deleted. Export and deletion both read this one list, and a test holds it against the database's
 * own catalogue (every table with a user id, or a foreign key to users, must be here), so a new
 * table cannot be forgotten: add it here, with its place in the export and its way out.
 */
import { eq, sql, type SQL } from 'drizzle-orm'
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core'
import type { ProcessorIdKind } from './processors'
import {
  accountDataExports,
  auditEvents,
  coachAssignments,
  coachAvailability,
  coachAvailabilityExceptions,
  coachMessages,
  coachNotes,
  coachPhotos,
  coachProfiles,
  coachSessions,
  coachingCallEvents,
  contactChanges,
  coachingCalls,
  commitments,
  consentEvents,
  consentStates,
  conversations,
  courseEnrollments,
  courses,
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
  profiles,
  quizAttempts,
  quizzes,
  sessions,
  staffRoles,
  subscribers,
  supportMessages,
  supportTickets,
  textMessages,
  textSuppressions,
  twoFactorCredentials,
  twoFactorRecoveryCodes,
  usageDays,
  usageVoiceCalls,
  userActivity,
  users,
  vapiWebhookEvents,
  weeklyReports,
} from '#server/db/schema'

export type UserDataPart = {
  /** Its key in the file's JSON object. */
  key: string
  /** One line for the README. */
  description: string
  table: PgTable
  /** The person's rows (the only filter: every query is this person's). */
  rowsOf(userId: string): SQL
  /** Columns never exported (by their schema name): secrets, and what only repeats a secret. */
  omit?: readonly string[]
  /** Columns added for the reader (a course's title), by their name in the export. */
  extra?: Readonly<Record<string, SQL>>
  /** The order of the rows; the last column is unique among the person's rows (the export pages by it). */
  orderBy: readonly PgColumn[]
  /**
   * How the rows go when the account is deleted: with the person's users row (its foreign key
   * cascades), by a statement of their own before it (`explicit`: `rowsOf`), or not at all
   * (`detach`: the rows stay, and the foreign keys set the person's id in them to null, so nothing
   * names the person any more: the audit log, docs/decisions/072).
   */
  deletion: 'cascade' | 'explicit' | 'detach'
  /** The rows an explicit deletion takes, when not all of `rowsOf` (what others share stays). */
  deleteRows?(userId: string): SQL
  /**
   * The column naming what a processor keeps of a row (Vapi's call or chat, Twilio's message):
   * the deletion collects it from the very rows it deletes, and the processors' job deletes or
   * redacts it there (processors.ts).
   */
  atProcessor?: { kind: ProcessorIdKind; column: PgColumn }
}

export type ExportFile = {
  name: string
  title: string
  about: string
  parts: readonly UserDataPart[]
}

const userIs = (column: PgColumn) => (userId: string) => eq(column, userId)

/** The inbound texts that reached the person's account when they arrived. */
const textsHeldBy = (userId: string) => sql`(select ${inboundTextAccounts.messageSid} from ${inboundTextAccounts} where ${inboundTextAccounts.userId} = ${userId})`

/** The person's calls' ids at the provider. */
const vapiCallsOf = (userId: string) => sql`(select ${coachingCalls.vapiCallId} from ${coachingCalls} where ${coachingCalls.userId} = ${userId} and ${coachingCalls.vapiCallId} is not null)`

export const EXPORT_FILES: readonly ExportFile[] = [
  {
    name: 'account.json',
    title: 'Your account and profile',
    about: 'What you gave at sign-up, your coaching profile and call schedule, the days you were active, and when you last exported your data. Your password is never included (we keep only a one-way hash of it, which is left out too).',
    parts: [
      { key: 'account', description: 'Your account: name, email, phone, consent version, when you confirmed your email and accepted the terms.', table: users, rowsOf: userIs(users.id), omit: ['passwordHash'], orderBy: [users.id], deletion: 'cascade' },
      { key: 'profile', description: 'Your coaching profile: time zone, daily and evening call times, pause, partner program, onboarding and the text opt-in you confirmed.', table: profiles, rowsOf: userIs(profiles.id), orderBy: [profiles.id], deletion: 'cascade' },
      {
        key: 'phoneProof',
        description: 'The phone number you proved is yours (by a START texted from it, or the code we texted to it) and when: calls and texts reach only a proven number.',
        table: phoneProofs,
        rowsOf: userIs(phoneProofs.userId),
        orderBy: [phoneProofs.userId],
        deletion: 'cascade',
      },
      { key: 'activity', description: 'The moments that count toward "Days Active": sign-ins, goal saves, completed calls.', table: userActivity, rowsOf: userIs(userActivity.userId), orderBy: [userActivity.occurredAt, userActivity.id], deletion: 'cascade' },
      { key: 'dataExports', description: 'When you last asked for an export like this one.', table: accountDataExports, rowsOf: userIs(accountDataExports.userId), orderBy: [accountDataExports.userId], deletion: 'cascade' },
    ],
  },
  {
    name: 'goals.json',
    title: 'Your goals',
    about:
      'Your goal intake: a record per life area with the options you chose, your satisfaction score (1 to 10) and notes, plus your company and industry and your specific goals (90 days, obstacles), and the goal template version you started from, if any. The goal templates your coach offered you and your answers; and, if you write goal templates as a coach or administrator, the templates and versions you wrote.',
    parts: [
      { key: 'goals', description: 'One record per life area (and the company_industry and specific_goals records); template_version_id: the goal template version the intake started from.', table: goals, rowsOf: userIs(goals.userId), orderBy: [goals.lifeArea, goals.id], deletion: 'cascade' },
      {
        key: 'templateOffers',
        description: 'The goal templates your coach offered you (template_version_id, offered_by: the coach\'s account id) and whether you accepted or declined each.',
        table: goalTemplateOffers,
        rowsOf: userIs(goalTemplateOffers.memberUserId),
        orderBy: [goalTemplateOffers.createdAt, goalTemplateOffers.id],
        deletion: 'cascade',
      },
      // Templates are the product's content, used by the members who took them: when their author's
      // account goes they stay, with the author's id set to null (as the audit log's rows).
      { key: 'templatesWritten', description: 'If you write goal templates: the templates you created.', table: goalTemplates, rowsOf: userIs(goalTemplates.createdBy), orderBy: [goalTemplates.createdAt, goalTemplates.id], deletion: 'detach' },
      {
        key: 'templateVersionsWritten',
        description: 'If you write goal templates: each version you wrote (name, who it is for, the life-area targets, the 90-day goal, obstacles and first commitments).',
        table: goalTemplateVersions,
        rowsOf: userIs(goalTemplateVersions.createdBy),
        orderBy: [goalTemplateVersions.createdAt, goalTemplateVersions.id],
        deletion: 'detach',
      },
    ],
  },
  {
    name: 'calls.json',
    title: 'Your coaching calls',
    about: 'Every coaching call (daily, evening, test and in-app voice calls): when it was due and placed, how it ended, its length, summary, mood and energy, the life areas discussed, the commitments made and the full transcript; each call\'s timeline of events; and the list of status messages the call provider sent about your calls (their content is what the calls hold; the raw messages also carry our own provider configuration, so only their type and times are listed).',
    parts: [
      {
        key: 'calls',
        description: 'Your calls, oldest first, with summary and transcript.',
        table: coachingCalls,
        rowsOf: userIs(coachingCalls.userId),
        orderBy: [coachingCalls.callDate, coachingCalls.id],
        deletion: 'cascade',
        atProcessor: { kind: 'vapiCalls', column: coachingCalls.vapiCallId },
      },
      { key: 'timeline', description: "Each call's timeline (scheduled, dialled, ringing, answered, ended, report, retries...), by call_id.", table: coachingCallEvents, rowsOf: userIs(coachingCallEvents.userId), orderBy: [coachingCallEvents.id], deletion: 'cascade' },
      {
        key: 'providerMessages',
        description: 'The messages the call provider (Vapi) sent about your calls: type and when they arrived and were applied.',
        table: vapiWebhookEvents,
        rowsOf: (userId) => sql`${vapiWebhookEvents.vapiCallId} in ${vapiCallsOf(userId)}`,
        omit: ['payload', 'dedupeKey', 'lastError'],
        orderBy: [vapiWebhookEvents.id],
        deletion: 'explicit',
      },
    ],
  },
  {
    name: 'commitments.json',
    title: 'Your commitments',
    about: 'What you committed to in your calls, and whether the next call (or you, in the app) marked each kept or missed.',
    parts: [{ key: 'commitments', description: 'Each commitment with the call it was made in (call_id) and how it was settled.', table: commitments, rowsOf: userIs(commitments.userId), orderBy: [commitments.madeAt, commitments.id], deletion: 'cascade' }],
  },
  {
    name: 'conversations.json',
    title: 'Your conversations with the assistant',
    about: 'Every saved chat with the assistant (typed, and the transcripts of voice chats in the app), each with its messages in order in "content" (id, text, sender: user or ai, timestamp).',
    parts: [
      {
        key: 'conversations',
        description: 'Your conversations with their messages.',
        table: conversations,
        rowsOf: userIs(conversations.userId),
        omit: ['previousChatId'],
        orderBy: [conversations.createdAt, conversations.id],
        deletion: 'cascade',
        atProcessor: { kind: 'vapiChatChains', column: conversations.previousChatId },
      },
    ],
  },
  {
    name: 'memory.json',
    title: 'What your coach remembers',
    about:
      "The coach's memory of you (the \"What your coach remembers\" page): each fact it learned in a call, a voice session, a chat, a text or a session with your coach, or that you wrote as a correction, with where it came from and when it held (valid_from, and valid_to with superseded_by when a newer fact replaced it); each conversation's summary (episodes); and whether you paused the memory. Facts you deleted are not kept, and so are not included.",
    parts: [
      {
        key: 'facts',
        description: 'The facts, oldest first: statement, subject, source_channel and source_id (the call, conversation, text or session it came from; person: your own correction), valid_from, valid_to and superseded_by.',
        table: memoryFacts,
        rowsOf: userIs(memoryFacts.userId),
        orderBy: [memoryFacts.validFrom, memoryFacts.id],
        deletion: 'cascade',
      },
      {
        key: 'episodes',
        description: 'The summary of each call, voice session, chat and session with your coach the memory read, with its channel and time.',
        table: memoryEpisodes,
        rowsOf: userIs(memoryEpisodes.userId),
        orderBy: [memoryEpisodes.occurredAt, memoryEpisodes.id],
        deletion: 'cascade',
      },
      { key: 'pauses', description: 'When you paused your coach\'s memory and when you resumed it (empty while paused).', table: memoryPauses, rowsOf: userIs(memoryPauses.userId), orderBy: [memoryPauses.pausedAt, memoryPauses.id], deletion: 'cascade' },
    ],
  },
  {
    name: 'courses.json',
    title: 'Your courses',
    about: 'The courses you enrolled in (with how: free, testing mode or paid), your progress through their lessons, and every quiz answer you gave with whether it was right.',
    parts: [
      {
        key: 'enrollments',
        description: 'Your enrollments with progress, the lesson you last opened and when you completed the course.',
        table: courseEnrollments,
        rowsOf: userIs(courseEnrollments.userId),
        extra: { course_title: sql`(select ${courses.title} from ${courses} where ${courses.id} = ${courseEnrollments.courseId})` },
        orderBy: [courseEnrollments.enrolledAt, courseEnrollments.id],
        deletion: 'cascade',
      },
      {
        key: 'lessonProgress',
        description: 'The lessons you completed.',
        table: lessonProgress,
        rowsOf: userIs(lessonProgress.userId),
        extra: { lesson_title: sql`(select ${lessons.title} from ${lessons} where ${lessons.id} = ${lessonProgress.lessonId})` },
        orderBy: [lessonProgress.createdAt, lessonProgress.id],
        deletion: 'cascade',
      },
      {
        key: 'quizAttempts',
        description: 'Your quiz answers, each with the question, whether it was right and the points earned.',
        table: quizAttempts,
        rowsOf: userIs(quizAttempts.userId),
        extra: { question: sql`(select ${quizzes.question} from ${quizzes} where ${quizzes.id} = ${quizAttempts.quizId})` },
        orderBy: [quizAttempts.createdAt, quizAttempts.id],
        deletion: 'cascade',
      },
    ],
  },
  {
    name: 'consent.json',
    title: 'Your consent',
    about: 'The consent ledger: every time calls, texts or weekly report emails were turned on or off, where (sign-up, the opt-in screen, settings, a text you sent, an email link, your carrier), the exact words shown or sent, and the address and browser it came from; and where each channel stands now.',
    parts: [
      { key: 'ledger', description: 'Every grant and revocation, in order.', table: consentEvents, rowsOf: userIs(consentEvents.userId), orderBy: [consentEvents.id], deletion: 'cascade' },
      { key: 'current', description: 'Where each channel stands now (the latest ledger row per channel).', table: consentStates, rowsOf: userIs(consentStates.userId), orderBy: [consentStates.channel], deletion: 'cascade' },
    ],
  },
  {
    name: 'texts.json',
    title: 'Your text messages',
    about: 'The texts we sent you or held for you (call recaps, missed-call notices, weekly report links) with what happened to each, the texts you sent to our number, and any number of yours our texts could not reach.',
    parts: [
      {
        key: 'sent',
        description: 'Texts to you: the words, the body as sent, the number, the status and the times.',
        table: textMessages,
        rowsOf: userIs(textMessages.userId),
        orderBy: [textMessages.createdAt, textMessages.id],
        deletion: 'cascade',
        atProcessor: { kind: 'twilioMessages', column: textMessages.providerSid },
      },
      {
        key: 'received',
        description: 'Texts from your number to ours (STOP, START, HELP and anything else) that reached your account when they arrived, with our answer.',
        table: inboundTexts,
        // The texts this account holds (docs/decisions/060): never by the number it has now, which
        // could be someone else's texts of before.
        rowsOf: (userId) => sql`${inboundTexts.messageSid} in ${textsHeldBy(userId)}`,
        orderBy: [inboundTexts.receivedAt, inboundTexts.messageSid],
        deletion: 'explicit',
        // The texts the deletion takes (deleteRows) are redacted at Twilio too; those it keeps are not.
        atProcessor: { kind: 'twilioMessages', column: inboundTexts.messageSid },
        // A text another account also holds stays: it is that account's too. Its row for this
        // account goes with the account (the cascade of inbound_text_accounts).
        deleteRows: (userId) => sql`${inboundTexts.messageSid} in ${textsHeldBy(userId)} and not exists (
          select 1 from ${inboundTextAccounts} other where other.message_sid = ${inboundTexts.messageSid} and other.user_id <> ${userId})`,
      },
      {
        key: 'receivedBy',
        description: 'Which of those texts reached your account (by message id).',
        table: inboundTextAccounts,
        rowsOf: userIs(inboundTextAccounts.userId),
        orderBy: [inboundTextAccounts.messageSid],
        deletion: 'cascade',
      },
      {
        key: 'unreachable_numbers',
        description: "Your numbers our texts could not reach (Twilio's error code: not a mobile number, a landline, blocked...), which get no texts until a START comes from them.",
        table: textSuppressions,
        rowsOf: userIs(textSuppressions.userId),
        orderBy: [textSuppressions.createdAt, textSuppressions.toNumber],
        deletion: 'cascade',
      },
    ],
  },
  {
    name: 'weekly-reports.json',
    title: 'Your weekly reports',
    about: 'Each weekly progress report: its week, its figures (calls, minutes, moods, life areas, commitments) and whether its email and text went out.',
    parts: [{ key: 'reports', description: 'Your weekly reports, oldest first.', table: weeklyReports, rowsOf: userIs(weeklyReports.userId), omit: ['unsubscribeTokenHash'], orderBy: [weeklyReports.periodEnd, weeklyReports.id], deletion: 'cascade' }],
  },
  {
    name: 'usage.json',
    title: 'Your use of the plan in the app',
    about: "What counted against your plan's monthly budget in the app (the account page shows what is left): the messages you sent the assistant, per day, and the seconds of each voice call in the app, by the day (in your time zone) each counted against.",
    parts: [
      { key: 'chatTurns', description: 'Messages sent to the assistant, per local date.', table: usageDays, rowsOf: userIs(usageDays.userId), orderBy: [usageDays.localDate], deletion: 'cascade' },
      { key: 'voiceCalls', description: 'The seconds each voice call in the app counted (call_id: the call in calls.json).', table: usageVoiceCalls, rowsOf: userIs(usageVoiceCalls.userId), orderBy: [usageVoiceCalls.localDate, usageVoiceCalls.callId], deletion: 'cascade' },
    ],
  },
  {
    name: 'billing.json',
    title: 'Your billing',
    about: 'Your subscription as we store it: plan, status, trial and renewal dates, and the Stripe customer and subscription it belongs to. Invoices and card details are held by Stripe, our payment processor (your receipts and the billing portal show them); paid courses are in courses.json.',
    parts: [{ key: 'subscription', description: 'Your subscription record.', table: subscribers, rowsOf: userIs(subscribers.userId), omit: ['stripeSyncTicket'], orderBy: [subscribers.userId], deletion: 'cascade' }],
  },
  {
    name: 'sessions.json',
    title: 'Your sign-ins',
    about: 'Where you are signed in (each session: when it began, was last used and will end, the browser and address it began from, and whether it passed two-factor sign-in), the email links we sent you (to confirm your email, reset your password or accept a staff invitation: when, until when, and whether used), your two-factor sign-in and its recovery codes, and an email or phone change waiting for its confirmation. Session keys, link tokens, two-factor keys and codes are never included.',
    parts: [
      { key: 'sessions', description: 'Your sessions.', table: sessions, rowsOf: userIs(sessions.userId), omit: ['id', 'secretHash'], orderBy: [sessions.createdAt, sessions.id], deletion: 'cascade' },
      { key: 'emailLinks', description: 'The confirmation and password reset links sent to you.', table: emailTokens, rowsOf: userIs(emailTokens.userId), omit: ['tokenHash'], orderBy: [emailTokens.createdAt, emailTokens.id], deletion: 'cascade' },
      {
        key: 'twoFactor',
        description: 'Your two-factor sign-in: when you set it up and turned it on, and the time step of the last code used (the key itself is never included).',
        table: twoFactorCredentials,
        rowsOf: userIs(twoFactorCredentials.userId),
        omit: ['secret'],
        orderBy: [twoFactorCredentials.userId],
        deletion: 'cascade',
      },
      {
        key: 'recoveryCodes',
        description: 'Your recovery codes for two-factor sign-in: when each was made and used (the codes themselves are never included).',
        table: twoFactorRecoveryCodes,
        rowsOf: userIs(twoFactorRecoveryCodes.userId),
        omit: ['codeHash'],
        orderBy: [twoFactorRecoveryCodes.position, twoFactorRecoveryCodes.id],
        deletion: 'cascade',
      },
      {
        key: 'pendingChanges',
        description: 'An email or phone number change waiting for its confirmation: the new address or number, until when, and the wrong codes entered.',
        table: contactChanges,
        rowsOf: userIs(contactChanges.userId),
        omit: ['secretHash'],
        orderBy: [contactChanges.createdAt, contactChanges.id],
        deletion: 'cascade',
      },
    ],
  },
  {
    name: 'coach.json',
    title: 'Your coach',
    about: "Elite's human coach: your messages with your coach, your 1-on-1 sessions, which coach you had and when (each assignment from its start to its end, and whether the product or an administrator made it); and, if you coach yourself, your coach profile and photo.",
    parts: [
      {
        key: 'assignments',
        description: 'Your coaches over time (coach_user_id: the coach\'s account id), oldest first.',
        table: coachAssignments,
        rowsOf: userIs(coachAssignments.memberUserId),
        orderBy: [coachAssignments.startedAt, coachAssignments.id],
        deletion: 'cascade',
      },
      {
        key: 'messages',
        description: 'Your messages with your coach (from: member or coach), oldest first, with when each was read.',
        table: coachMessages,
        rowsOf: userIs(coachMessages.memberUserId),
        orderBy: [coachMessages.seq],
        deletion: 'cascade',
      },
      {
        key: 'sessions',
        description: 'Your 1-on-1 sessions with your coach (monthly and onboarding): when, their status, how you met, and the summary and commitments your coach wrote after.',
        table: coachSessions,
        rowsOf: userIs(coachSessions.memberUserId),
        orderBy: [coachSessions.startsAt, coachSessions.id],
        deletion: 'cascade',
      },
      { key: 'coachProfile', description: 'Your coach profile, if you are a coach: bio, working days and hours, reply-time promise, capacity, session buffer and booking window.', table: coachProfiles, rowsOf: userIs(coachProfiles.userId), orderBy: [coachProfiles.userId], deletion: 'cascade' },
      {
        key: 'coachPhoto',
        description: 'Your coach photo, if you are a coach: the image your members see (a data: URL, WebP in base64), its version and its size in bytes.',
        table: coachPhotos,
        rowsOf: userIs(coachPhotos.userId),
        // The bytes as text a JSON file holds (encode's base64 breaks its lines every 76 characters).
        omit: ['image'],
        extra: { image: sql<string>`'data:' || ${coachPhotos.contentType} || ';base64,' || translate(encode(${coachPhotos.image}, 'base64'), chr(10), '')` },
        orderBy: [coachPhotos.userId],
        deletion: 'cascade',
      },
      { key: 'availability', description: 'If you are a coach: your weekly hours for 1-on-1 sessions.', table: coachAvailability, rowsOf: userIs(coachAvailability.coachUserId), orderBy: [coachAvailability.weekday, coachAvailability.startTime], deletion: 'cascade' },
      {
        key: 'availabilityExceptions',
        description: 'If you are a coach: your days off and extra hours.',
        table: coachAvailabilityExceptions,
        rowsOf: userIs(coachAvailabilityExceptions.coachUserId),
        orderBy: [coachAvailabilityExceptions.date, coachAvailabilityExceptions.id],
        deletion: 'cascade',
      },
    ],
  },
  {
    name: 'support.json',
    title: 'Your support requests',
    about: "Each support request you opened on the Help page (its topic, status, the plan and page it was sent from, when support first replied) and the conversation: your messages and support's replies. Support's internal notes are support's working notes, not part of your conversation, and are not included.",
    parts: [
      { key: 'requests', description: 'Your support requests, oldest first.', table: supportTickets, rowsOf: userIs(supportTickets.userId), orderBy: [supportTickets.createdAt, supportTickets.id], deletion: 'cascade' },
      {
        key: 'messages',
        description: "The messages of your requests (ticket_id: the request), yours (kind member) and support's replies (kind reply), each with its writer's account id, oldest first.",
        table: supportMessages,
        rowsOf: (userId) => sql`${supportMessages.ticketId} in (select ${supportTickets.id} from ${supportTickets} where ${supportTickets.userId} = ${userId}) and ${supportMessages.kind} <> 'note'`,
        omit: ['notifiedAt'],
        orderBy: [supportMessages.seq],
        deletion: 'cascade',
      },
    ],
  },
  {
    name: 'activity.json',
    title: 'Your account activity and staff roles',
    about:
      "The audit log's events about your account (the account page lists them): who did what (you, a staff member by their account id, the server's command line) and when; and your staff roles, if you have any, with when and by whom each was granted. Events where you are only the one who acted, as staff, on someone else's account are records of that account, not yours, and are not included.",
    parts: [
      {
        key: 'events',
        description: 'Each event about your account, oldest first: the action, who acted, what it concerned and its details (ids and counts, never a secret).',
        table: auditEvents,
        rowsOf: userIs(auditEvents.subjectUserId),
        orderBy: [auditEvents.id],
        deletion: 'detach',
      },
      {
        key: 'staffRoles',
        description: 'Your staff roles (coach, support, operator, admin): when each was granted, and by whom (an account id; none for the command line).',
        table: staffRoles,
        rowsOf: userIs(staffRoles.userId),
        orderBy: [staffRoles.role],
        deletion: 'cascade',
      },
    ],
  },
]

/**
 * What the product keeps about a person but leaves out of their export, each with the reason the
 * export's README gives; deleted with the account all the same.
 */
export const NOT_EXPORTED: ReadonlyArray<UserDataPart & { why: string }> = [
  {
    key: 'coachNotes',
    description: "Your coach's private notes about you.",
    why: "Your coach's private working notes about you (Elite) are not included: they are your coach's notes for their work with you, never shown to you (docs/decisions/078). They are deleted with your account.",
    table: coachNotes,
    rowsOf: userIs(coachNotes.memberUserId),
    orderBy: [coachNotes.createdAt, coachNotes.id],
    deletion: 'cascade',
  },
  {
    key: 'memoryForgotten',
    description: 'Fingerprints of the facts you deleted from your coach\'s memory.',
    why: "The facts you deleted from your coach's memory are not included: they are gone. What is kept of each is a one-way fingerprint of its words and the conversation it came from (not the words), only so that your coach never learns it again from that conversation. These are deleted with your account.",
    table: memoryForgotten,
    rowsOf: userIs(memoryForgotten.userId),
    orderBy: [memoryForgotten.forgottenAt, memoryForgotten.fingerprint],
    deletion: 'cascade',
  },
  {
    key: 'memoryExtractions',
    description: "Which of your conversations the coach's memory has read.",
    why: "The coach's memory's record of which calls, chats and texts it has already read (their ids and how many facts each gave, none of your words) is not included: it is bookkeeping so that nothing is read twice. It is deleted with your account.",
    table: memoryExtractions,
    rowsOf: userIs(memoryExtractions.userId),
    orderBy: [memoryExtractions.extractedAt, memoryExtractions.key],
    deletion: 'cascade',
  },
]

/** Every part of every file, and what is kept out of the export. */
export const USER_DATA: readonly UserDataPart[] = [...EXPORT_FILES.flatMap((file) => file.parts), ...NOT_EXPORTED]
