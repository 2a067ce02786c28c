/**
 * Priority support (docs/decisions/077): a person's tickets (the Help page) and the support inbox.
 * Every read and write of a person's tickets is filtered by their user id; support staff reach any
 * ticket, and each time they open one, reply, note or change its status the audit log records it in
 * the same transaction. Support sees the member's account and billing state and what they wrote,
 * never their goals, calls, transcripts or conversations. A reply is emailed by a job, once.
 */
import { and, asc, between, count, desc, eq, isNull, ne, sql } from 'drizzle-orm'
import { z } from 'zod'
import {
  CANNED_REPLIES_MAX,
  FIRST_RESPONSE_BUSINESS_HOURS,
  SUPPORT_MESSAGES_PER_TICKET_MAX,
  SUPPORT_OPEN_TICKETS_MAX,
  SUPPORT_PRIORITIES,
  SUPPORT_TOPIC_NAMES,
  supportPriorityOf,
  type CannedReply,
  type CreateSupportTicketBody,
  type InboxMessage,
  type InboxTicket,
  type InboxTicketDetail,
  type SupportInboxResponse,
  type SupportMessageView,
  type SupportTicketStatus,
  type SupportTicketSummary,
  type SupportTicketsResponse,
  type SupportTicketView,
} from '#common/support'
import { isUuid } from '#common/uuid'
import type { Db, DbExecutor } from '#server/db/client'
import { accessColumns } from '#server/db/access'
import { phoneProofs, profiles, subscribers, supportCannedReplies, supportMessages, supportTickets, twoFactorCredentials, users, type SupportTicketRow } from '#server/db/schema'
import { composeEmail, type Mailer } from '#server/integrations/mailer'
import { AppError } from '#server/lib/app-error'
import type { Clock } from '#server/lib/clock'
import { jobContract, type JobQueue } from '#server/lib/job-contract'
import { audit, type AuditEvent } from '#server/services/audit'
import { decideAccess, type Access } from '#server/services/billing'
import { addBusinessHours } from './business-hours'

export { addBusinessHours } from './business-hours'

export const SUPPORT_JOBS = {
  /** Support's reply, emailed to the member (sent once; retried until it is). */
  replyEmail: jobContract('support-reply-email', z.object({ messageId: z.uuid() }).strict()),
  /** Every few minutes: a reply whose email job was never queued (the process stopped just after the commit) gets one. */
  repliesSweep: jobContract('support-replies-sweep', z.object({}).strict()),
} as const
export type SupportJob = (typeof SUPPORT_JOBS)[keyof typeof SUPPORT_JOBS]

type SupportDeps = { db: Db; clock: Clock; mailer: Mailer; appUrl: string; jobs: JobQueue<SupportJob> }

const DAY_MS = 24 * 60 * 60 * 1000
/** A reply still not emailed this long after it was written is queued again by the sweep. */
const UNSENT_AFTER_MS = 5 * 60 * 1000

const notFound = () => new AppError('NOT_FOUND', 'This support request could not be found.', { field: 'id' })

/** "#3F9A1C": the first six hex digits of the ticket's id, for the person and support to quote. */
const referenceOf = (id: string) => `#${id.replace(/-/g, '').slice(0, 6).toUpperCase()}`

const firstName = (fullName: string | null) => (fullName ? (fullName.trim().split(/\s+/)[0] ?? null) : null)

const PRIORITY_RANK = Object.fromEntries(SUPPORT_PRIORITIES.map((priority, index) => [priority, index + 1])) as Record<(typeof SUPPORT_PRIORITIES)[number], number>

function summaryOf(row: SupportTicketRow): SupportTicketSummary {
  return {
    id: row.id,
    reference: referenceOf(row.id),
    topic: row.topic,
    status: row.status,
    createdAt: row.createdAt.toISOString(),
    lastMessageAt: row.lastMessageAt.toISOString(),
    lastFrom: row.lastFrom === 'member' ? 'you' : 'support',
  }
}

function inboxTicketOf(row: SupportTicketRow & { memberName: string | null }, now: Date): InboxTicket {
  return {
    id: row.id,
    reference: referenceOf(row.id),
    topic: row.topic,
    status: row.status,
    priority: row.priority,
    memberName: row.memberName ?? 'A deleted account',
    createdAt: row.createdAt.toISOString(),
    lastMessageAt: row.lastMessageAt.toISOString(),
    lastFrom: row.lastFrom,
    firstResponseDueAt: row.firstResponseDueAt.toISOString(),
    firstRespondedAt: row.firstRespondedAt?.toISOString() ?? null,
    overdue: row.firstRespondedAt === null && row.status !== 'resolved' && row.firstResponseDueAt.getTime() < now.getTime(),
  }
}

/** The ticket, locked for the change (FOR UPDATE), or 404; a person's own only when `userId` is given. */
async function lockTicket(tx: DbExecutor, ticketId: string, userId?: string): Promise<SupportTicketRow> {
  if (!isUuid(ticketId)) throw notFound()
  const [row] = await tx
    .select()
    .from(supportTickets)
    .where(userId ? and(eq(supportTickets.id, ticketId), eq(supportTickets.userId, userId)) : eq(supportTickets.id, ticketId))
    .for('update')
    .limit(1)
  if (!row) throw notFound()
  return row
}

async function assertRoomFor(tx: DbExecutor, ticketId: string): Promise<void> {
  const [row] = await tx.select({ n: count() }).from(supportMessages).where(eq(supportMessages.ticketId, ticketId))
  if ((row?.n ?? 0) >= SUPPORT_MESSAGES_PER_TICKET_MAX) {
    throw new AppError('SUPPORT_THREAD_FULL', undefined, { field: 'message' })
  }
}

export function createSupport(deps: SupportDeps) {
  const { db, clock } = deps

  /** The person's view of one of their tickets: their messages and support's replies, never the notes. */
  async function viewOf(executor: DbExecutor, ticket: SupportTicketRow): Promise<SupportTicketView> {
    const rows = await executor
      .select({ id: supportMessages.id, kind: supportMessages.kind, body: supportMessages.body, at: supportMessages.createdAt, authorName: users.fullName })
      .from(supportMessages)
      .leftJoin(users, eq(users.id, supportMessages.authorUserId))
      .where(and(eq(supportMessages.ticketId, ticket.id), ne(supportMessages.kind, 'note')))
      .orderBy(asc(supportMessages.seq))
    const messages: SupportMessageView[] = rows.map((row) => ({
      id: row.id,
      from: row.kind === 'member' ? 'you' : 'support',
      authorName: row.kind === 'member' ? null : firstName(row.authorName),
      body: row.body,
      at: row.at.toISOString(),
    }))
    return { ...summaryOf(ticket), messages }
  }

  /** Support's view of a ticket: the member's account and billing state, every message and note. */
  async function detailOf(executor: DbExecutor, ticket: SupportTicketRow): Promise<InboxTicketDetail> {
    const now = clock.now()
    const [member] = await executor
      .select({
        fullName: users.fullName,
        email: users.email,
        createdAt: users.createdAt,
        emailConfirmedAt: users.emailConfirmedAt,
        phoneNumber: users.phoneNumber,
        provenNumber: phoneProofs.phoneNumber,
        twoFactorOn: sql<boolean>`${twoFactorCredentials.enabledAt} is not null`,
        ...accessColumns,
      })
      .from(users)
      .leftJoin(profiles, eq(profiles.id, users.id))
      .leftJoin(subscribers, eq(subscribers.userId, users.id))
      .leftJoin(phoneProofs, eq(phoneProofs.userId, users.id))
      .leftJoin(twoFactorCredentials, eq(twoFactorCredentials.userId, users.id))
      .where(eq(users.id, ticket.userId))
      .limit(1)
    if (!member) throw notFound()
    const access = decideAccess(member, now)
    const rows = await executor
      .select({ id: supportMessages.id, kind: supportMessages.kind, body: supportMessages.body, at: supportMessages.createdAt, authorName: users.fullName })
      .from(supportMessages)
      .leftJoin(users, eq(users.id, supportMessages.authorUserId))
      .where(eq(supportMessages.ticketId, ticket.id))
      .orderBy(asc(supportMessages.seq))
    const messages: InboxMessage[] = rows.map((row) => ({
      id: row.id,
      kind: row.kind,
      authorName: row.kind === 'member' ? null : row.authorName,
      body: row.body,
      at: row.at.toISOString(),
    }))
    return {
      ...inboxTicketOf({ ...ticket, memberName: member.fullName }, now),
      member: {
        fullName: member.fullName,
        email: member.email,
        memberSince: member.createdAt.toISOString(),
        emailConfirmed: member.emailConfirmedAt !== null,
        phoneVerified: member.provenNumber !== null && member.provenNumber === member.phoneNumber,
        twoFactorOn: member.twoFactorOn === true,
        plan: access.hasSubscription ? access.tier : null,
        subscriptionStatus: access.status,
        paid: access.paid,
      },
      context: { page: ticket.context.page ?? null, errorCode: ticket.context.errorCode ?? null, plan: ticket.plan },
      messages,
    }
  }

  /** A staff action on a ticket, with its audit row, in one transaction; answers support's view after it. */
  async function asStaff(
    staffUserId: string,
    ticketId: string,
    action: AuditEvent['action'],
    change: (tx: DbExecutor, ticket: SupportTicketRow, now: Date) => Promise<Record<string, string | null>>,
  ): Promise<InboxTicketDetail> {
    return db.transaction(async (tx) => {
      const ticket = await lockTicket(tx, ticketId)
      const now = clock.now()
      const details = await change(tx, ticket, now)
      await audit.record(tx, {
        actor: { kind: 'user', userId: staffUserId },
        action,
        subjectUserId: ticket.userId,
        target: { type: 'support_ticket', id: ticket.id },
        details: { reference: referenceOf(ticket.id), ...details },
        at: now,
      })
      const [updated] = await tx.select().from(supportTickets).where(eq(supportTickets.id, ticket.id)).limit(1)
      return detailOf(tx, updated ?? ticket)
    })
  }

  return {
    /** The Help page: the person's tickets, newest activity first, and the reply time their plan promises. */
    async listMine(userId: string, access: Access): Promise<SupportTicketsResponse> {
      const rows = await db.select().from(supportTickets).where(eq(supportTickets.userId, userId)).orderBy(desc(supportTickets.lastMessageAt), desc(supportTickets.id)).limit(100)
      return { tickets: rows.map(summaryOf), priority: supportPriorityOf(access.paid ? access.tier : null) }
    },

    /** The person's requests, newest activity first, without their messages (an Elite member's coach sees these). */
    async summariesFor(userId: string): Promise<SupportTicketSummary[]> {
      const rows = await db.select().from(supportTickets).where(eq(supportTickets.userId, userId)).orderBy(desc(supportTickets.lastMessageAt), desc(supportTickets.id)).limit(20)
      return rows.map(summaryOf)
    },

    /** One of the person's tickets with its conversation (never support's notes); anyone else's is a 404. */
    async getMine(userId: string, ticketId: string): Promise<SupportTicketView> {
      if (!isUuid(ticketId)) throw notFound()
      const [row] = await db
        .select()
        .from(supportTickets)
        .where(and(eq(supportTickets.id, ticketId), eq(supportTickets.userId, userId)))
        .limit(1)
      if (!row) throw notFound()
      return viewOf(db, row)
    },

    /**
     * Opens a ticket: its priority and first-response target from the person's plan now, at most
     * SUPPORT_OPEN_TICKETS_MAX not resolved at once (409 SUPPORT_TICKET_LIMIT).
     */
    async open(userId: string, access: Access, body: CreateSupportTicketBody): Promise<SupportTicketView> {
      const plan = access.paid ? access.tier : null
      const priority = supportPriorityOf(plan)
      return db.transaction(async (tx) => {
        // One person's openings, one at a time: the count below cannot be raced past the cap.
        await tx.execute(sql`select pg_advisory_xact_lock(hashtext('support-open'), hashtext(${userId}))`)
        const [open] = await tx
          .select({ n: count() })
          .from(supportTickets)
          .where(and(eq(supportTickets.userId, userId), ne(supportTickets.status, 'resolved')))
        if ((open?.n ?? 0) >= SUPPORT_OPEN_TICKETS_MAX) throw new AppError('SUPPORT_TICKET_LIMIT', undefined, { field: 'topic' })
        const now = clock.now()
        const [ticket] = await tx
          .insert(supportTickets)
          .values({
            userId,
            topic: body.topic,
            status: 'open',
            priority,
            priorityRank: PRIORITY_RANK[priority],
            plan,
            context: { ...(body.context?.page ? { page: body.context.page } : {}), ...(body.context?.errorCode ? { errorCode: body.context.errorCode } : {}) },
            createdAt: now,
            updatedAt: now,
            lastMessageAt: now,
            lastFrom: 'member',
            firstResponseDueAt: addBusinessHours(now, FIRST_RESPONSE_BUSINESS_HOURS[priority]),
          })
          .returning()
        await tx.insert(supportMessages).values({ ticketId: ticket!.id, kind: 'member', authorUserId: userId, body: body.message, createdAt: now })
        return viewOf(tx, ticket!)
      })
    },

    /** The person adds to their ticket; a ticket waiting for them, or resolved, is open again. */
    async addMessage(userId: string, ticketId: string, message: string): Promise<SupportTicketView> {
      return db.transaction(async (tx) => {
        const ticket = await lockTicket(tx, ticketId, userId)
        await assertRoomFor(tx, ticket.id)
        const now = clock.now()
        await tx.insert(supportMessages).values({ ticketId: ticket.id, kind: 'member', authorUserId: userId, body: message, createdAt: now })
        const [updated] = await tx
          .update(supportTickets)
          .set({ status: 'open', lastMessageAt: now, lastFrom: 'member', updatedAt: now, resolvedAt: null })
          .where(eq(supportTickets.id, ticket.id))
          .returning()
        return viewOf(tx, updated!)
      })
    },

    /** The inbox: by plan priority, then age (oldest first); `all` lists every status. */
    async inbox(status: SupportTicketStatus | 'all'): Promise<SupportInboxResponse> {
      const rows = await db
        .select({ ticket: supportTickets, memberName: users.fullName })
        .from(supportTickets)
        .leftJoin(users, eq(users.id, supportTickets.userId))
        .where(status === 'all' ? undefined : eq(supportTickets.status, status))
        .orderBy(asc(supportTickets.priorityRank), asc(supportTickets.createdAt), asc(supportTickets.id))
        .limit(500)
      const now = clock.now()
      return { tickets: rows.map((row) => inboxTicketOf({ ...row.ticket, memberName: row.memberName }, now)) }
    },

    /** Support opens a ticket: its conversation, notes and the member's account; written to the audit log. */
    read: (staffUserId: string, ticketId: string) => asStaff(staffUserId, ticketId, 'support_ticket_viewed', async () => ({})),

    /** Support replies: the member is emailed (a job, queued after the commit), the first response is recorded, the ticket waits for the member or is resolved. */
    async reply(staffUserId: string, ticketId: string, input: { message: string; status: 'waiting_on_member' | 'resolved' }): Promise<InboxTicketDetail> {
      let messageId: string | undefined
      const detail = await asStaff(staffUserId, ticketId, 'support_reply_sent', async (tx, ticket, now) => {
        await assertRoomFor(tx, ticket.id)
        const [message] = await tx.insert(supportMessages).values({ ticketId: ticket.id, kind: 'reply', authorUserId: staffUserId, body: input.message, createdAt: now }).returning({ id: supportMessages.id })
        messageId = message!.id
        await tx
          .update(supportTickets)
          .set({
            status: input.status,
            lastMessageAt: now,
            lastFrom: 'support',
            updatedAt: now,
            firstRespondedAt: ticket.firstRespondedAt ?? now,
            resolvedAt: input.status === 'resolved' ? now : null,
          })
          .where(eq(supportTickets.id, ticket.id))
        return { status: input.status }
      })
      // After the commit, so the job finds the reply; if this enqueue is lost, the sweep queues it.
      await deps.jobs.enqueue(SUPPORT_JOBS.replyEmail.name, { messageId: messageId! })
      return detail
    },

    /** An internal note: support staff see it, the member never does. */
    addNote: (staffUserId: string, ticketId: string, note: string) =>
      asStaff(staffUserId, ticketId, 'support_note_added', async (tx, ticket, now) => {
        await assertRoomFor(tx, ticket.id)
        await tx.insert(supportMessages).values({ ticketId: ticket.id, kind: 'note', authorUserId: staffUserId, body: note, createdAt: now })
        await tx.update(supportTickets).set({ updatedAt: now }).where(eq(supportTickets.id, ticket.id))
        return {}
      }),

    setStatus: (staffUserId: string, ticketId: string, status: SupportTicketStatus) =>
      asStaff(staffUserId, ticketId, 'support_status_changed', async (tx, ticket, now) => {
        await tx
          .update(supportTickets)
          .set({ status, updatedAt: now, resolvedAt: status === 'resolved' ? (ticket.resolvedAt ?? now) : null })
          .where(eq(supportTickets.id, ticket.id))
        return { status }
      }),

    /** The `support-reply-email` job: the reply, emailed once to the member's address now. */
    async deliverReplyEmail(messageId: string): Promise<'sent' | 'skipped'> {
      const [row] = await db
        .select({ message: supportMessages, ticket: supportTickets, email: users.email, fullName: users.fullName, authorName: sql<string | null>`(select u.full_name from users u where u.id = ${supportMessages.authorUserId})` })
        .from(supportMessages)
        .innerJoin(supportTickets, eq(supportTickets.id, supportMessages.ticketId))
        .innerJoin(users, eq(users.id, supportTickets.userId))
        .where(and(eq(supportMessages.id, messageId), eq(supportMessages.kind, 'reply'), isNull(supportMessages.notifiedAt)))
        .limit(1)
      if (!row) return 'skipped'
      const reference = referenceOf(row.ticket.id)
      const from = firstName(row.authorName)
      await deps.mailer.send(
        composeEmail({
          kind: 'support_reply',
          to: row.email,
          subject: `Re: your support request ${reference}`,
          greeting: `Hi ${firstName(row.fullName) ?? 'there'},`,
          paragraphs: [`${from ? `${from} from support` : 'Support'} replied to your request ${reference} (${SUPPORT_TOPIC_NAMES[row.ticket.topic]}):`, ...row.message.body.split(/\n{2,}/)],
          action: 'See the conversation',
          link: `${deps.appUrl}/help/${row.ticket.id}`,
          footer: 'You can answer on the Help page; there is no need to reply to this email.',
        }),
      )
      await db.update(supportMessages).set({ notifiedAt: clock.now() }).where(eq(supportMessages.id, messageId))
      return 'sent'
    },

    /**
     * The `support-replies-sweep` job: replies of the last day not emailed 5 minutes after they were
     * written get their email job again (sending is once per reply: `notified_at`).
     */
    async sweepUnsentReplies(): Promise<{ queued: number }> {
      const now = clock.now().getTime()
      const rows = await db
        .select({ id: supportMessages.id })
        .from(supportMessages)
        .where(
          and(
            eq(supportMessages.kind, 'reply'),
            isNull(supportMessages.notifiedAt),
            between(supportMessages.createdAt, new Date(now - DAY_MS), new Date(now - UNSENT_AFTER_MS)),
          ),
        )
        .limit(500)
      for (const row of rows) await deps.jobs.enqueue(SUPPORT_JOBS.replyEmail.name, { messageId: row.id })
      return { queued: rows.length }
    },

    cannedReplies: {
      async list(): Promise<CannedReply[]> {
        const rows = await db.select().from(supportCannedReplies).orderBy(asc(supportCannedReplies.title), asc(supportCannedReplies.id))
        return rows.map((row) => ({ id: row.id, title: row.title, body: row.body, updatedAt: row.updatedAt.toISOString() }))
      },
      async create(input: { title: string; body: string }): Promise<CannedReply> {
        return db.transaction(async (tx) => {
          await tx.execute(sql`select pg_advisory_xact_lock(hashtext('support-canned-replies'))`)
          const [existing] = await tx.select({ n: count() }).from(supportCannedReplies)
          if ((existing?.n ?? 0) >= CANNED_REPLIES_MAX) throw new AppError('CANNED_REPLY_LIMIT', undefined, { field: 'title' })
          const now = clock.now()
          const [row] = await tx.insert(supportCannedReplies).values({ title: input.title, body: input.body, createdAt: now, updatedAt: now }).returning()
          return { id: row!.id, title: row!.title, body: row!.body, updatedAt: row!.updatedAt.toISOString() }
        })
      },
      async update(id: string, input: { title: string; body: string }): Promise<CannedReply> {
        if (!isUuid(id)) throw new AppError('NOT_FOUND', 'No canned reply has that id.', { field: 'id' })
        const [row] = await db.update(supportCannedReplies).set({ title: input.title, body: input.body, updatedAt: clock.now() }).where(eq(supportCannedReplies.id, id)).returning()
        if (!row) throw new AppError('NOT_FOUND', 'No canned reply has that id.', { field: 'id' })
        return { id: row.id, title: row.title, body: row.body, updatedAt: row.updatedAt.toISOString() }
      },
      async remove(id: string): Promise<void> {
        if (!isUuid(id)) throw new AppError('NOT_FOUND', 'No canned reply has that id.', { field: 'id' })
        const deleted = await db.delete(supportCannedReplies).where(eq(supportCannedReplies.id, id)).returning({ id: supportCannedReplies.id })
        if (deleted.length === 0) throw new AppError('NOT_FOUND', 'No canned reply has that id.', { field: 'id' })
      },
    },
  }
}

