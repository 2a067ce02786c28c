/**
 * The audit log (docs/decisions/072): an append-only record of who did what to whose account.
 * `audit.record(tx, event)` writes one row inside the caller's transaction, so the event and the
 * change it records commit together or not at all. The database refuses to change or delete a row
 * (a trigger), so nothing here can. The account page lists the events about the signed-in person.
 */
import { desc, eq, sql } from 'drizzle-orm'
import {
  ACCOUNT_ACTIVITY_LIMIT,
  describeAuditEvent,
  type AuditAction,
  type AuditActorView,
  type AuditDetails,
  type AuditEventView,
  type AuditTargetType,
} from '#common/audit'
import { isStaffRole, type StaffRole } from '#common/staff'
import type { Db, DbExecutor } from '#server/db/client'
import { auditEvents, users } from '#server/db/schema'

/** Who acted: a signed-in person, the server's command line (`npm run staff:add`), or the product itself. */
export type AuditActor = { kind: 'user'; userId: string } | { kind: 'cli' } | { kind: 'system' }

/** What `audit.record` writes (the coach workspace and the operators' actions record theirs too). @public */
export type AuditEvent = {
  actor: AuditActor
  action: AuditAction
  /** Whose account it is about (null: nobody's). */
  subjectUserId: string | null
  /** What of it: a role (its name), the person's two-factor sign-in. Never a person's id. */
  target?: { type: AuditTargetType; id: string | null }
  /** Ids, counts and words of ours only: no secret, nothing personal beyond an id. */
  details?: AuditDetails
  at: Date
}

/** Appends one event, in the caller's transaction. */
async function record(tx: DbExecutor, event: AuditEvent): Promise<void> {
  await tx.insert(auditEvents).values({
    at: event.at,
    actorKind: event.actor.kind,
    actorUserId: event.actor.kind === 'user' ? event.actor.userId : null,
    action: event.action,
    subjectUserId: event.subjectUserId,
    targetType: event.target?.type ?? null,
    targetId: event.target?.id ?? null,
    details: event.details ?? {},
  })
}

export const audit = { record }

function actorView(row: { actorKind: string; actorUserId: string | null; actorName: string | null; actorRoles: string[] | null }, userId: string): AuditActorView {
  const roles = (row.actorRoles ?? []).filter(isStaffRole).sort() as StaffRole[]
  if (row.actorKind === 'cli') return { kind: 'cli', name: null, roles: [] }
  if (row.actorKind === 'system') return { kind: 'system', name: null, roles: [] }
  if (row.actorUserId === null) return { kind: 'removed', name: null, roles: [] }
  if (row.actorUserId === userId) return { kind: 'self', name: null, roles: [] }
  return { kind: roles.length > 0 ? 'staff' : 'person', name: row.actorName, roles }
}

/** The newest events about the person (their account is the subject), with who did each and in words. */
async function aboutPerson(db: Db, userId: string): Promise<AuditEventView[]> {
  const rows = await db
    .select({
      id: auditEvents.id,
      at: auditEvents.at,
      action: auditEvents.action,
      actorKind: auditEvents.actorKind,
      actorUserId: auditEvents.actorUserId,
      targetType: auditEvents.targetType,
      targetId: auditEvents.targetId,
      details: auditEvents.details,
      actorName: users.fullName,
      // The actor's roles now (a staff member is named with them: "Dana Lee (operator)").
      actorRoles: sql<string[] | null>`(select array_agg(r.role order by r.role) from staff_roles r where r.user_id = ${auditEvents.actorUserId})`,
    })
    .from(auditEvents)
    .leftJoin(users, eq(users.id, auditEvents.actorUserId))
    .where(eq(auditEvents.subjectUserId, userId))
    .orderBy(desc(auditEvents.id))
    .limit(ACCOUNT_ACTIVITY_LIMIT)
  return rows.map((row) => {
    const actor = actorView(row, userId)
    const role = row.targetType === 'staff_role' && isStaffRole(row.targetId) ? row.targetId : null
    return {
      id: String(row.id),
      at: row.at.toISOString(),
      action: row.action,
      actor,
      role,
      description: describeAuditEvent({ action: row.action, actor, role, details: row.details }),
    }
  })
}

export function createAudit(deps: { db: Db }) {
  return {
    record,
    /** The account page's "Account activity": the events about the signed-in person, newest first. */
    aboutPerson: (userId: string) => aboutPerson(deps.db, userId),
  }
}
