import { sql } from 'drizzle-orm'
import { bigint, check, index, jsonb, pgTable, smallint, text, timestamp, uuid } from 'drizzle-orm/pg-core'
import { PLAN_IDS } from '#common/plans'
import { SUPPORT_PRIORITIES, SUPPORT_TICKET_STATUSES, SUPPORT_TOPICS } from '#common/support'
import { inList } from './helpers'
import { users } from './users'

/** What the Help page sent along with a ticket: the page and the last error code (ours, short). */
export type SupportTicketContext = { page?: string; errorCode?: string }

/**
 * A person's support ticket (docs/decisions/077). `priority` and `plan` are the person's plan when
 * they opened it, and `first_response_due_at` its target in support's business hours from then;
 * `first_responded_at` is support's first reply. Goes with the account.
 */
export const supportTickets = pgTable(
  'support_tickets',
  {
    id: uuid().primaryKey().defaultRandom(),
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    topic: text({ enum: SUPPORT_TOPICS }).notNull(),
    status: text({ enum: SUPPORT_TICKET_STATUSES }).notNull(),
    priority: text({ enum: SUPPORT_PRIORITIES }).notNull(),
    /** The inbox's order: 1 Elite, 2 Premium, 3 everyone else. */
    priorityRank: smallint().notNull(),
    plan: text({ enum: PLAN_IDS }),
    context: jsonb().$type<SupportTicketContext>().notNull().default({}),
    createdAt: timestamp({ withTimezone: true }).notNull(),
    updatedAt: timestamp({ withTimezone: true }).notNull(),
    lastMessageAt: timestamp({ withTimezone: true }).notNull(),
    /** Who wrote the last message the member can see. */
    lastFrom: text({ enum: ['member', 'support'] }).notNull(),
    firstResponseDueAt: timestamp({ withTimezone: true }).notNull(),
    firstRespondedAt: timestamp({ withTimezone: true }),
    resolvedAt: timestamp({ withTimezone: true }),
  },
  (t) => [
    index('support_tickets_user_idx').on(t.userId, t.lastMessageAt),
    index('support_tickets_inbox_idx').on(t.status, t.priorityRank, t.createdAt),
    check('support_tickets_topic_check', inList(t.topic, SUPPORT_TOPICS)),
    check('support_tickets_status_check', inList(t.status, SUPPORT_TICKET_STATUSES)),
    check('support_tickets_priority_check', inList(t.priority, SUPPORT_PRIORITIES)),
    check('support_tickets_priority_rank_check', sql`${t.priorityRank} between 1 and 3`),
    check('support_tickets_plan_check', inList(t.plan, PLAN_IDS)),
    check('support_tickets_last_from_check', inList(t.lastFrom, ['member', 'support'])),
  ],
)

/**
 * A ticket's messages: the member's, support's replies, and support's internal notes (`note`),
 * which the member never sees and their export leaves out. `author_user_id` is who wrote it: the
 * member, or the staff member of a reply or note (null once that account is deleted).
 */
export const supportMessages = pgTable(
  'support_messages',
  {
    id: uuid().primaryKey().defaultRandom(),
    /** The order written (two entries can share a time: a note and a reply in one go). */
    seq: bigint({ mode: 'number' }).notNull().generatedAlwaysAsIdentity(),
    ticketId: uuid()
      .notNull()
      .references(() => supportTickets.id, { onDelete: 'cascade' }),
    kind: text({ enum: ['member', 'reply', 'note'] }).notNull(),
    authorUserId: uuid().references(() => users.id, { onDelete: 'set null' }),
    body: text().notNull(),
    createdAt: timestamp({ withTimezone: true }).notNull(),
    /** When a reply was emailed to the member (the job sends each once). */
    notifiedAt: timestamp({ withTimezone: true }),
  },
  (t) => [
    index('support_messages_ticket_idx').on(t.ticketId, t.seq),
    index('support_messages_author_idx').on(t.authorUserId),
    check('support_messages_kind_check', inList(t.kind, ['member', 'reply', 'note'])),
  ],
)

/** Replies an admin wrote for support to start from. */
export const supportCannedReplies = pgTable('support_canned_replies', {
  id: uuid().primaryKey().defaultRandom(),
  title: text().notNull(),
  body: text().notNull(),
  createdAt: timestamp({ withTimezone: true }).notNull(),
  updatedAt: timestamp({ withTimezone: true }).notNull(),
})

export type SupportTicketRow = typeof supportTickets.$inferSelect
export type SupportMessageRow = typeof supportMessages.$inferSelect
