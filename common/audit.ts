/**
 * The audit log (docs/decisions/072): who did what to whose account, and when. The actions are a
 * bounded list; the account page lists the events about the signed-in person in words built here
 * ("Dana Lee (operator) turned on …"), so the server and the browser phrase them the same way.
 */
import { z } from 'zod'
import { LIFE_AREA_TITLES } from './life-areas'
import { STAFF_ROLE_NAMES, StaffRoleSchema, isStaffRole, type StaffRole } from './staff'
import { text } from './text'

/** Every action the log records (a check constraint holds the column to this list). */
export const AUDIT_ACTIONS = [
  /** An account made for a staff member (`npm run staff:add`), with an invitation to set a password. */
  'staff_account_created',
  'role_granted',
  'role_revoked',
  'two_factor_enabled',
  'two_factor_disabled',
  'recovery_code_used',
  'recovery_codes_regenerated',
  /** An operator put a parked webhook message back to be applied (`/ops`). */
  'webhook_event_retried',
  /** Support opened one of the person's tickets (its messages) in the inbox. */
  'support_ticket_viewed',
  'support_reply_sent',
  'support_note_added',
  'support_status_changed',
  /** The person (Elite) was given a coach: by the product (the coach with the most room) or by an admin. */
  'coach_assigned',
  /** Their coach opened their file in the workspace (goals, calls, commitments, reports). */
  'coach_member_viewed',
  /** Their coach added, changed or deleted a private note on their file. */
  'coach_note_written',
  /** Their coach opened their message thread. */
  'coach_messages_viewed',
  /** Their coach offered them a goal template (docs/decisions/081). */
  'goal_template_offered',
  /** Their coach marked a 1-on-1 session missed, or wrote its summary (docs/decisions/082). */
  'coach_session_updated',
  /** Their coach changed their 90-day goal, obstacles or daily call time (white-glove onboarding, docs/decisions/082). */
  'coach_plan_updated',
] as const
export type AuditAction = (typeof AUDIT_ACTIONS)[number]

/** Who acted: a signed-in person (their user id is kept), the command line on the server, or the product itself. */
export const AUDIT_ACTOR_KINDS = ['user', 'cli', 'system'] as const

/** What an event is about beside the person: a role, the person's two-factor sign-in, a goal template… */
export const AUDIT_TARGET_TYPES = ['staff_role', 'two_factor', 'webhook_event', 'support_ticket', 'coach', 'goal_template'] as const
export type AuditTargetType = (typeof AUDIT_TARGET_TYPES)[number]

/** An event's details: ids, counts and words of ours only, never a secret or anything personal beyond an id. */
export type AuditDetails = Readonly<Record<string, string | number | boolean | null>>

/** Who did it, as the account page shows it. */
const AuditActorViewSchema = z.object({
  /** `self`: the person; `staff`: someone else with staff roles; `person`: someone else; `cli`, `system`; `removed`: an account since deleted. */
  kind: z.enum(['self', 'staff', 'person', 'cli', 'system', 'removed']),
  name: text().nullable(),
  roles: z.array(StaffRoleSchema),
})
export type AuditActorView = z.infer<typeof AuditActorViewSchema>

/** One event about the signed-in person. */
export const AuditEventViewSchema = z.object({
  id: text(),
  at: text(),
  action: z.enum(AUDIT_ACTIONS),
  actor: AuditActorViewSchema,
  /** The role of a grant or removal. */
  role: StaffRoleSchema.nullable(),
  /** What happened, in words: "Dana Lee (operator) gave you the coach role." */
  description: text(),
})
export type AuditEventView = z.infer<typeof AuditEventViewSchema>

export const AccountActivityResponseSchema = z.object({ events: z.array(AuditEventViewSchema) })

/** How many of the newest events the account page lists. */
export const ACCOUNT_ACTIVITY_LIMIT = 100

/** A support request's status in the account page's words. */
const STATUS_WORDS: Readonly<Record<string, string>> = { open: 'open', waiting_on_member: 'as waiting for you', resolved: 'resolved' }

function actorWords(actor: AuditActorView): string {
  switch (actor.kind) {
    case 'self':
      return 'You'
    case 'cli':
      return "An administrator (on the server's command line)"
    case 'system':
      return 'Momentum Coach'
    case 'removed':
      return 'A person whose account has since been deleted'
    case 'person':
      return actor.name ?? 'Someone'
    case 'staff':
      return `${actor.name ?? 'A staff member'} (${actor.roles.map((role) => STAFF_ROLE_NAMES[role]).join(', ')})`
  }
}

/** What happened, with the actor first: "You turned on two-factor sign-in." */
export function describeAuditEvent(event: { action: AuditAction; actor: AuditActorView; role: StaffRole | null; details?: AuditDetails }): string {
  const who = actorWords(event.actor)
  const self = event.actor.kind === 'self'
  const role = event.role && isStaffRole(event.role) ? STAFF_ROLE_NAMES[event.role] : 'staff'
  const left = typeof event.details?.remaining === 'number' ? event.details.remaining : null
  const reference = typeof event.details?.reference === 'string' ? ` ${event.details.reference}` : ''
  switch (event.action) {
    case 'staff_account_created':
      return `${who} created your staff account and emailed you an invitation to choose a password.`
    case 'role_granted':
      return `${who} gave you the ${role} role.`
    case 'role_revoked':
      return `${who} removed your ${role} role.`
    case 'two_factor_enabled':
      return `${who} turned on two-factor sign-in${self ? '' : ' for your account'}.`
    case 'two_factor_disabled':
      return `${who} turned off two-factor sign-in${self ? '' : ' for your account'}.`
    case 'recovery_code_used':
      return `${who} used a recovery code${left === null ? '' : ` (${left} left)`}.`
    case 'recovery_codes_regenerated':
      return `${who} made new recovery codes; the earlier ones no longer work.`
    case 'webhook_event_retried':
      return `${who} put a parked webhook message back to be applied.`
    case 'support_ticket_viewed':
      return `${who} read your support request${reference}.`
    case 'support_reply_sent':
      return `${who} replied to your support request${reference}.`
    case 'support_note_added':
      return `${who} added an internal note to your support request${reference}.`
    case 'coach_assigned':
      return `${who} assigned you a coach.`
    case 'coach_member_viewed':
      return `${who} read your goals, calls, commitments and reports.`
    case 'coach_messages_viewed':
      return `${who} read your messages.`
    case 'goal_template_offered':
      return `${who} suggested a goal template to you.`
    case 'coach_plan_updated': {
      const change = event.details?.change
      if (change === 'daily_call_time') return `${who} moved your daily call to ${typeof event.details?.time === 'string' ? event.details.time : 'a new time'}.`
      if (change === 'area_goal') return `${who} updated your ${typeof event.details?.area === 'string' && event.details.area in LIFE_AREA_TITLES ? LIFE_AREA_TITLES[event.details.area as keyof typeof LIFE_AREA_TITLES] : 'life area'} goal.`
      return change === 'obstacles' ? `${who} updated the obstacles in your goals.` : `${who} updated your 90-day goal.`
    }
    case 'coach_session_updated':
      return event.details?.change === 'no_show' ? `${who} marked your 1-on-1 session as missed.` : `${who} wrote the summary of your 1-on-1 session.`
    case 'coach_note_written': {
      const change = event.details?.change === 'deleted' ? 'deleted a private note from' : event.details?.change === 'changed' ? 'changed a private note on' : 'added a private note to'
      return `${who} ${change} your file.`
    }
    case 'support_status_changed':
      return `${who} marked your support request${reference} ${typeof event.details?.status === 'string' ? (STATUS_WORDS[event.details.status] ?? 'changed') : 'changed'}.`
  }
}
