/**
 * Staff roles (docs/decisions/072): granting and removing them, each change written to the audit
 * log in the same transaction, and a staff account made for someone who has none, with an
 * invitation to choose a password (the link sets it as a reset link does).
 */
import { and, eq, inArray } from 'drizzle-orm'
import { CONSENT_TEXT_VERSION } from '#common/auth'
import { STAFF_ROLE_NAMES, STAFF_ROLES, type StaffRole } from '#common/staff'
import { hashPassword } from '#server/auth/password'
import { hashSecret, randomToken } from '#server/auth/tokens'
import type { Db, DbExecutor } from '#server/db/client'
import { emailTokens, profiles, staffRoles, users, type User } from '#server/db/schema'
import { composeEmail, type Mailer } from '#server/integrations/mailer'
import { AppError } from '#server/lib/app-error'
import type { Clock } from '#server/lib/clock'
import { audit, type AuditActor } from '#server/services/audit'

export type StaffDeps = { db: Db; clock: Clock; mailer: Mailer; appUrl: string }

/** How long an invitation's link works (a reset link from "Forgot Password?" serves after that). */
export const INVITATION_TTL_DAYS = 7
const DAY_MS = 86_400_000

/**
 * What an invited staff account holds where a member's sign-up would hold a phone number: the
 * column is required, and ten zeros is no number anyone can be called or texted at (it is refused as
 * not callable, never proven, with no consent in the ledger). The person can set their own later.
 */
const NO_PHONE_NUMBER = '0000000000'

/** The roles a person holds, in the list's order. */
export async function rolesOf(db: DbExecutor, userId: string): Promise<StaffRole[]> {
  const rows = await db.select({ role: staffRoles.role }).from(staffRoles).where(eq(staffRoles.userId, userId))
  const held = new Set(rows.map((row) => row.role))
  return STAFF_ROLES.filter((role) => held.has(role))
}

type AddStaffResult = {
  user: Pick<User, 'id' | 'email' | 'fullName'>
  /** A new account was made (and an invitation sent). */
  created: boolean
  granted: StaffRole[]
  alreadyHeld: StaffRole[]
  roles: StaffRole[]
  /** Whether the invitation went out; `false` with the reason when the mailer failed (the account and roles stand). */
  invitation: { sent: true } | { sent: false; error: string } | null
}

/** Grants `roles` in `tx`, each one new to the person audited; returns the ones granted and the ones held already. */
async function grant(tx: DbExecutor, userId: string, roles: readonly StaffRole[], actor: AuditActor, now: Date): Promise<{ granted: StaffRole[]; alreadyHeld: StaffRole[] }> {
  const inserted = await tx
    .insert(staffRoles)
    .values(roles.map((role) => ({ userId, role, grantedAt: now, grantedBy: actor.kind === 'user' ? actor.userId : null })))
    .onConflictDoNothing()
    .returning({ role: staffRoles.role })
  const granted = roles.filter((role) => inserted.some((row) => row.role === role))
  for (const role of granted) {
    await audit.record(tx, { actor, action: 'role_granted', subjectUserId: userId, target: { type: 'staff_role', id: role }, at: now })
  }
  return { granted, alreadyHeld: roles.filter((role) => !granted.includes(role)) }
}

/**
 * `npm run staff:add`: the person with this email gains `roles`. Someone without an account gets
 * one (no usable password, no phone number, no consent: not a member), and an email inviting them
 * to choose a password. The account, the roles and their audit rows commit together; the email
 * goes after.
 */
export async function addStaff(deps: StaffDeps, input: { email: string; fullName?: string | undefined; roles: readonly StaffRole[] }, actor: AuditActor): Promise<AddStaffResult> {
  const now = deps.clock.now()
  // A password nobody knows (argon2 of 32 random bytes, thrown away): sign-in with it is as slow as any.
  const unusable = await hashPassword(randomToken(32))
  const invitationToken = randomToken(32)
  const outcome = await deps.db.transaction(async (tx) => {
    let [user] = await tx.select().from(users).where(eq(users.email, input.email)).for('update').limit(1)
    let created = false
    if (!user) {
      const fullName = input.fullName?.trim() || input.email.split('@')[0]!
      ;[user] = await tx
        .insert(users)
        .values({
          email: input.email,
          passwordHash: unusable,
          fullName,
          phoneNumber: NO_PHONE_NUMBER,
          // The sign-up's record: no consent was given (the ledger has none, so nothing is sent).
          communicationConsentVersion: `none (staff invitation; sign-up text ${CONSENT_TEXT_VERSION} not shown)`,
          communicationConsentAt: now,
          termsAcceptedAt: now,
          createdAt: now,
          updatedAt: now,
        })
        .returning()
      await tx.insert(profiles).values({ id: user!.id, name: fullName, phoneNumber: null, createdAt: now, updatedAt: now })
      await tx.insert(emailTokens).values({
        userId: user!.id,
        purpose: 'invitation',
        tokenHash: hashSecret(invitationToken),
        expiresAt: new Date(now.getTime() + INVITATION_TTL_DAYS * DAY_MS),
        createdAt: now,
      })
      await audit.record(tx, { actor, action: 'staff_account_created', subjectUserId: user!.id, at: now })
      created = true
    }
    const { granted, alreadyHeld } = await grant(tx, user!.id, input.roles, actor, now)
    return { user: user!, created, granted, alreadyHeld, roles: await rolesOf(tx, user!.id) }
  })
  let invitation: AddStaffResult['invitation'] = null
  if (outcome.created) {
    invitation = await deps.mailer
      .send(invitationEmail(deps.appUrl, outcome.user.email, outcome.roles, invitationToken))
      .then(() => ({ sent: true as const }), (error: unknown) => ({ sent: false as const, error: (error as Error).message }))
  }
  return { ...outcome, user: { id: outcome.user.id, email: outcome.user.email, fullName: outcome.user.fullName }, invitation }
}

function invitationEmail(appUrl: string, to: string, roles: readonly StaffRole[], token: string) {
  const named = roles.map((role) => STAFF_ROLE_NAMES[role])
  return composeEmail({
    kind: 'staff_invitation',
    to,
    subject: 'You are invited to Momentum Coach',
    // Nothing the command's user typed (the name) goes into the message: the address is not proven yet.
    greeting: 'Hello,',
    paragraphs: [
      `You have been given a staff account at Momentum Coach, with the ${named.join(' and ')} ${named.length === 1 ? 'role' : 'roles'}.`,
      'Choose a password to sign in. Staff pages then ask you to set up two-factor sign-in with an authenticator app.',
    ],
    action: 'Choose my password',
    link: `${appUrl}/auth?mode=invite#token=${token}`,
    footer: `This link works once and expires in ${INVITATION_TTL_DAYS} days; after that, use "Forgot Password?" on the sign-in page with this address. If you did not expect this, you can ignore this email.`,
  })
}

type RemoveStaffResult = { user: Pick<User, 'id' | 'email' | 'fullName'>; removed: StaffRole[]; notHeld: StaffRole[]; roles: StaffRole[] }

/** `npm run staff:remove`: the person loses `roles` (each removal audited); the account itself stays. */
export async function removeStaff(deps: StaffDeps, input: { email: string; roles: readonly StaffRole[] }, actor: AuditActor): Promise<RemoveStaffResult> {
  const now = deps.clock.now()
  return deps.db.transaction(async (tx) => {
    const [user] = await tx.select({ id: users.id, email: users.email, fullName: users.fullName }).from(users).where(eq(users.email, input.email)).for('update').limit(1)
    if (!user) throw new AppError('NOT_FOUND', `There is no account with the email ${input.email}.`)
    const deleted = await tx
      .delete(staffRoles)
      .where(and(eq(staffRoles.userId, user.id), inArray(staffRoles.role, [...input.roles])))
      .returning({ role: staffRoles.role })
    const removed = input.roles.filter((role) => deleted.some((row) => row.role === role))
    for (const role of removed) {
      await audit.record(tx, { actor, action: 'role_revoked', subjectUserId: user.id, target: { type: 'staff_role', id: role }, at: now })
    }
    return { user, removed, notHeld: input.roles.filter((role) => !removed.includes(role)), roles: await rolesOf(tx, user.id) }
  })
}
