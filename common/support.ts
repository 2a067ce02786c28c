/**
 * Priority support (docs/decisions/077): a person's tickets on the Help page, and the support
 * inbox of `support` staff. The shapes both sides read, the caps, and the first-response targets
 * by plan.
 */
import { z } from 'zod'
import { PLAN_IDS, type PlanId } from './plans'
import { text } from './text'

/** What a ticket is about, chosen on the Help page. */
export const SUPPORT_TOPICS = ['account', 'billing', 'calls', 'texts', 'coaching', 'app', 'other'] as const
export type SupportTopic = (typeof SUPPORT_TOPICS)[number]

export const SUPPORT_TOPIC_NAMES: Readonly<Record<SupportTopic, string>> = {
  account: 'My account and signing in',
  billing: 'Billing and my plan',
  calls: 'Coaching calls',
  texts: 'Texts and emails',
  coaching: 'My goals and coaching',
  app: 'Something in the app is not working',
  other: 'Something else',
}

/** open: support's turn; waiting_on_member: support replied and waits; resolved: done (a new message reopens it). */
export const SUPPORT_TICKET_STATUSES = ['open', 'waiting_on_member', 'resolved'] as const
export type SupportTicketStatus = (typeof SUPPORT_TICKET_STATUSES)[number]

export const SUPPORT_STATUS_NAMES: Readonly<Record<SupportTicketStatus, string>> = {
  open: 'Open',
  waiting_on_member: 'Waiting for you',
  resolved: 'Resolved',
}

/** The order of the inbox: Elite first, then Premium, then everyone else (Basic, or no plan). */
export const SUPPORT_PRIORITIES = ['elite', 'premium', 'basic'] as const
export type SupportPriority = (typeof SUPPORT_PRIORITIES)[number]

/** A ticket's priority: the plan the person had when they opened it (no plan counts as Basic). */
export const supportPriorityOf = (plan: PlanId | null): SupportPriority => (plan === 'elite' || plan === 'premium' ? plan : 'basic')

/**
 * The first-response target, in business hours (support's hours: Monday to Friday, 9 AM to 5 PM
 * Eastern; docs/decisions/077): Elite 4, Premium 8 (one business day), Basic 16 (two business days).
 */
export const FIRST_RESPONSE_BUSINESS_HOURS: Readonly<Record<SupportPriority, number>> = { elite: 4, premium: 8, basic: 16 }

/** What the Help page promises, by plan. */
export const FIRST_RESPONSE_PROMISE: Readonly<Record<SupportPriority, string>> = {
  elite: 'As an Elite member you hear back within 4 business hours.',
  premium: 'As a Premium member you hear back within one business day.',
  basic: 'We reply within two business days.',
}

/** The longest message, reply or note. */
export const SUPPORT_MESSAGE_MAX = 4_000
/** Tickets a person can have open (not resolved) at once. */
export const SUPPORT_OPEN_TICKETS_MAX = 5
/** Messages in one ticket, both sides and notes together. */
export const SUPPORT_MESSAGES_PER_TICKET_MAX = 200
/** Canned replies an admin can keep. */
export const CANNED_REPLIES_MAX = 100

const message = (field: string) =>
  text()
    .trim()
    .min(1, `Write your ${field}.`)
    .max(SUPPORT_MESSAGE_MAX, `A ${field} must be at most ${SUPPORT_MESSAGE_MAX.toLocaleString('en-US')} characters.`)

/**
 * What the product fills in for the person: the page they were on and the last error code they
 * saw (the plan is added by the server, from the account). Both are short words of ours.
 */
export const SupportContextSchema = z.object({
  page: text()
    .max(200)
    .regex(/^\/[A-Za-z0-9/_.$-]*$/, 'must be a path of the app')
    .optional(),
  errorCode: text()
    .max(64)
    .regex(/^[A-Z][A-Z0-9_]*$/, 'must be an error code')
    .optional(),
})
export type SupportContext = z.infer<typeof SupportContextSchema>

export const CreateSupportTicketBodySchema = z.object({
  topic: z.enum(SUPPORT_TOPICS, { error: 'Choose what your question is about.' }),
  message: message('message'),
  context: SupportContextSchema.optional(),
})
export type CreateSupportTicketBody = z.infer<typeof CreateSupportTicketBodySchema>

export const SupportMessageBodySchema = z.object({ message: message('message') })

export const SupportTicketParamsSchema = z.object({ id: text() })

/** One message as the person sees it: theirs, or support's (by the staff member's first name). */
export const SupportMessageViewSchema = z.object({
  id: text(),
  from: z.enum(['you', 'support']),
  /** Support's: the staff member's first name ("Sam from support"); null for the person's own. */
  authorName: text().nullable(),
  body: text(),
  at: text(),
})
export type SupportMessageView = z.infer<typeof SupportMessageViewSchema>

export const SupportTicketSummarySchema = z.object({
  id: text(),
  /** A short reference the person and support can quote ("#A1B2C3"). */
  reference: text(),
  topic: z.enum(SUPPORT_TOPICS),
  status: z.enum(SUPPORT_TICKET_STATUSES),
  createdAt: text(),
  lastMessageAt: text(),
  /** Who wrote last: support's reply waiting to be read shows on the Help page. */
  lastFrom: z.enum(['you', 'support']),
})
export type SupportTicketSummary = z.infer<typeof SupportTicketSummarySchema>

export const SupportTicketViewSchema = SupportTicketSummarySchema.extend({
  messages: z.array(SupportMessageViewSchema),
})
export type SupportTicketView = z.infer<typeof SupportTicketViewSchema>

export const SupportTicketResponseSchema = z.object({ ticket: SupportTicketViewSchema })

export const SupportTicketsResponseSchema = z.object({
  tickets: z.array(SupportTicketSummarySchema),
  /** The person's first-response promise, by their plan now. */
  priority: z.enum(SUPPORT_PRIORITIES),
})
export type SupportTicketsResponse = z.infer<typeof SupportTicketsResponseSchema>

// ---- The support inbox (support staff) ----

export const SupportInboxQuerySchema = z.object({
  status: z.enum(['open', 'waiting_on_member', 'resolved', 'all']).default('open'),
})

export const InboxTicketSchema = z.object({
  id: text(),
  reference: text(),
  topic: z.enum(SUPPORT_TOPICS),
  status: z.enum(SUPPORT_TICKET_STATUSES),
  priority: z.enum(SUPPORT_PRIORITIES),
  /** The member's name (null when the account is being deleted). */
  memberName: text(),
  createdAt: text(),
  lastMessageAt: text(),
  lastFrom: z.enum(['member', 'support']),
  /** When the first reply is due (business hours from the ticket's opening). */
  firstResponseDueAt: text(),
  firstRespondedAt: text().nullable(),
  /** No first reply yet and past its target. */
  overdue: z.boolean(),
})
export type InboxTicket = z.infer<typeof InboxTicketSchema>

export const SupportInboxResponseSchema = z.object({ tickets: z.array(InboxTicketSchema) })
export type SupportInboxResponse = z.infer<typeof SupportInboxResponseSchema>

/** One entry of a ticket as support sees it: the member's messages, replies, and internal notes. */
export const InboxMessageSchema = z.object({
  id: text(),
  kind: z.enum(['member', 'reply', 'note']),
  /** The staff member who wrote a reply or note (null for the member's, or a deleted account's). */
  authorName: text().nullable(),
  body: text(),
  at: text(),
})
export type InboxMessage = z.infer<typeof InboxMessageSchema>

/**
 * What support sees of the member (docs/decisions/077): the account and billing state, and the
 * context the Help page sent. Never goals, calls, transcripts, conversations or coach notes.
 */
const SupportMemberSchema = z.object({
  fullName: text(),
  email: text(),
  memberSince: text(),
  emailConfirmed: z.boolean(),
  phoneVerified: z.boolean(),
  twoFactorOn: z.boolean(),
  plan: z.enum(PLAN_IDS).nullable(),
  /** The subscription's status as stored (active, trialing, past_due, canceled...), null with none. */
  subscriptionStatus: text().nullable(),
  paid: z.boolean(),
})

export const InboxTicketDetailSchema = InboxTicketSchema.extend({
  member: SupportMemberSchema,
  context: z.object({ page: text().nullable(), errorCode: text().nullable(), plan: z.enum(PLAN_IDS).nullable() }),
  messages: z.array(InboxMessageSchema),
})
export type InboxTicketDetail = z.infer<typeof InboxTicketDetailSchema>

export const InboxTicketResponseSchema = z.object({ ticket: InboxTicketDetailSchema })

export const SupportReplyBodySchema = z.object({
  message: message('reply'),
  /** Where the ticket stands after the reply: waiting for the member (the default) or resolved. */
  status: z.enum(['waiting_on_member', 'resolved']).default('waiting_on_member'),
})
export const SupportNoteBodySchema = z.object({ note: message('note') })
export const SupportStatusBodySchema = z.object({ status: z.enum(SUPPORT_TICKET_STATUSES) })

export const CannedReplySchema = z.object({ id: text(), title: text(), body: text(), updatedAt: text() })
export type CannedReply = z.infer<typeof CannedReplySchema>
export const CannedRepliesResponseSchema = z.object({ replies: z.array(CannedReplySchema) })
export const CannedReplyBodySchema = z.object({
  title: text().trim().min(1, 'Give the reply a title.').max(80, 'A title must be at most 80 characters.'),
  body: message('reply'),
})
export const CannedReplyParamsSchema = z.object({ id: text() })
export const CannedReplyResponseSchema = z.object({ reply: CannedReplySchema })
