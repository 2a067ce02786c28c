import { sql } from 'drizzle-orm'
import { bigint, check, index, jsonb, pgTable, primaryKey, smallint, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { AUDIT_ACTIONS, AUDIT_ACTOR_KINDS, AUDIT_TARGET_TYPES, type AuditDetails } from '#common/audit'
import { STAFF_ROLES } from '#common/staff'
import { inList } from './helpers'
import { bytea, users } from './users'

/**
 * Staff roles (docs/decisions/072): an account is staff while it holds at least one. `granted_by`
 * is the person who granted it, or null for the command line (`npm run staff:add`); the audit log
 * has the full history of grants and removals.
 */
export const staffRoles = pgTable(
  'staff_roles',
  {
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    role: text({ enum: STAFF_ROLES }).notNull(),
    grantedAt: timestamp({ withTimezone: true }).notNull(),
    grantedBy: uuid().references(() => users.id, { onDelete: 'set null' }),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.role] }),
    index('staff_roles_granted_by_idx').on(t.grantedBy),
    check('staff_roles_role_check', inList(t.role, STAFF_ROLES)),
  ],
)

/**
 * A person's authenticator key for two-factor sign-in (TOTP). Written when the set-up starts, it
 * counts only once `enabled_at` is set (a code from the app confirmed it). The key must be read to
 * check a code, so it is stored as it is (docs/decisions/072 says why not encrypted); it never
 * leaves the server after the set-up. `last_used_step` is the 30-second step of the last code
 * accepted: a code is good once (RFC 6238 §5.2).
 */
export const twoFactorCredentials = pgTable('two_factor_credentials', {
  userId: uuid()
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  secret: bytea().notNull(),
  enabledAt: timestamp({ withTimezone: true }),
  lastUsedStep: bigint({ mode: 'number' }),
  createdAt: timestamp({ withTimezone: true }).notNull(),
})

/** The single-use recovery codes of two-factor sign-in: the SHA-256 of the user's id and the code only. */
export const twoFactorRecoveryCodes = pgTable(
  'two_factor_recovery_codes',
  {
    id: uuid().primaryKey().defaultRandom(),
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    codeHash: bytea().notNull(),
    /** Its place in the list shown (1 to 10). */
    position: smallint().notNull(),
    usedAt: timestamp({ withTimezone: true }),
    createdAt: timestamp({ withTimezone: true }).notNull(),
  },
  (t) => [uniqueIndex('two_factor_recovery_codes_hash_key').on(t.codeHash), index('two_factor_recovery_codes_user_idx').on(t.userId)],
)

/**
 * The audit log (docs/decisions/072): append-only, in the database itself (a trigger in migration
 * 0017 refuses UPDATE and DELETE). Who (`actor`: a person's id, or the command line, or the
 * product), what (`action`), whose account (`subject_user_id`), what of it (`target_type`,
 * `target_id`: a role, never a person's id), and when. When an account is deleted its rows stay,
 * with its id set to null by the foreign keys (the only update the trigger lets through).
 */
export const auditEvents = pgTable(
  'audit_events',
  {
    id: bigint({ mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    at: timestamp({ withTimezone: true }).notNull(),
    actorKind: text({ enum: AUDIT_ACTOR_KINDS }).notNull(),
    actorUserId: uuid().references(() => users.id, { onDelete: 'set null' }),
    action: text({ enum: AUDIT_ACTIONS }).notNull(),
    subjectUserId: uuid().references(() => users.id, { onDelete: 'set null' }),
    targetType: text({ enum: AUDIT_TARGET_TYPES }),
    targetId: text(),
    /** Ids, counts and words of ours; never a secret, and nothing personal beyond an id. */
    details: jsonb().$type<AuditDetails>().notNull().default({}),
  },
  (t) => [
    index('audit_events_subject_idx').on(t.subjectUserId, t.id),
    index('audit_events_actor_idx').on(t.actorUserId, t.id),
    check('audit_events_actor_kind_check', inList(t.actorKind, AUDIT_ACTOR_KINDS)),
    check('audit_events_action_check', inList(t.action, AUDIT_ACTIONS)),
    check('audit_events_target_type_check', inList(t.targetType, AUDIT_TARGET_TYPES)),
    // Only a person has an id; the command line and the product have none.
    check('audit_events_actor_user', sql`${t.actorKind} = 'user' or ${t.actorUserId} is null`),
  ],
)

export type StaffRoleRow = typeof staffRoles.$inferSelect
export type AuditEventRow = typeof auditEvents.$inferSelect
