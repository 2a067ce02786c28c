/**
 * The account page's security (issue 16, docs/decisions/050): changing the password (the current
 * one first; every other session ends, and an email says so) and the signed-in sessions, each
 * named by the browser and OS of its user agent, with when it began and was last seen. Every query
 * is by the signed-in user's id; another person's session is "not found".
 */
import Bowser from 'bowser'
import { and, desc, eq, inArray, isNull, ne } from 'drizzle-orm'
import type { AccountSession } from '#common/account'
import { assertNotCommonPassword, hashPassword } from '#server/auth/password'
import { SESSION_IDLE_MS } from '#server/auth/session'
import type { DbExecutor } from '#server/db/client'
import { emailTokens, sessions, users, type User } from '#server/db/schema'
import { AppError } from '#server/lib/app-error'
import { assertCurrentPassword, type AccountDeps } from './accounts'
import { SEND_EMAIL_JOB, type AccountEmail } from './jobs'
import { assertSecondFactor } from './two-factor'

/** Browser and OS of a user agent, as the session list shows them ("Chrome 131", "iOS 17.5"); no place. */
function describeUserAgent(userAgent: string | null): Pick<AccountSession, 'browser' | 'os' | 'device'> {
  if (!userAgent?.trim()) return { browser: null, os: null, device: null }
  const parsed = Bowser.parse(userAgent)
  const major = parsed.browser.version?.split('.')[0]
  const browser = parsed.browser.name ? `${parsed.browser.name}${major ? ` ${major}` : ''}` : null
  // Desktop browsers freeze the version they report (macOS 10.15.7, Windows NT 10.0 for 11 too):
  // only the phones' systems say it truthfully.
  const os = parsed.os.name ? (parsed.os.version && (parsed.os.name === 'iOS' || parsed.os.name === 'Android') ? `${parsed.os.name} ${parsed.os.version}` : parsed.os.name) : null
  const type = parsed.platform.type
  const device = type === 'desktop' || type === 'mobile' || type === 'tablet' || type === 'tv' ? type : null
  return { browser, os, device }
}

/** The user's live sessions, the one last seen first (idle or expired ones, not yet cleaned up, are left out). */
export async function listSessions(deps: AccountDeps, userId: string, currentId: string): Promise<AccountSession[]> {
  const now = deps.clock.now().getTime()
  const rows = await deps.db
    .select({ id: sessions.id, userAgent: sessions.userAgent, createdAt: sessions.createdAt, lastSeenAt: sessions.lastSeenAt, lastVerifiedAt: sessions.lastVerifiedAt, expiresAt: sessions.expiresAt })
    .from(sessions)
    .where(eq(sessions.userId, userId))
    .orderBy(desc(sessions.lastSeenAt), desc(sessions.createdAt))
  return rows
    .filter((row) => now - row.lastVerifiedAt.getTime() < SESSION_IDLE_MS && now < row.expiresAt.getTime())
    .map((row) => ({
      id: row.id,
      ...describeUserAgent(row.userAgent),
      createdAt: row.createdAt.toISOString(),
      lastSeenAt: row.lastSeenAt.toISOString(),
      current: row.id === currentId,
    }))
}

/** Signs out one of the user's sessions (404 for anyone else's); its voice sockets close. */
export async function signOutSession(deps: AccountDeps, userId: string, sessionId: string): Promise<void> {
  const ended = await deps.db
    .delete(sessions)
    .where(and(eq(sessions.id, sessionId), eq(sessions.userId, userId)))
    .returning({ id: sessions.id })
  if (ended.length === 0) throw new AppError('NOT_FOUND', 'This session is not signed in any more.')
  deps.onSessionsEnded?.({ sessionId })
}

/** Deletes every session of the user but `currentId`; returns the ones deleted (whose sockets must then close). */
async function deleteOtherSessions(db: DbExecutor, userId: string, currentId: string): Promise<Array<{ id: string }>> {
  return db
    .delete(sessions)
    .where(and(eq(sessions.userId, userId), ne(sessions.id, currentId)))
    .returning({ id: sessions.id })
}

/** Signs out every session of the user but this one; their voice sockets close. */
export async function signOutOtherSessions(deps: AccountDeps, userId: string, currentId: string): Promise<number> {
  const ended = await deleteOtherSessions(deps.db, userId, currentId)
  for (const { id } of ended) deps.onSessionsEnded?.({ sessionId: id })
  return ended.length
}

/**
 * A new password: the current one first (under the login's limits, ADR 050), sign-up's rules for the new one. In
 * one transaction the hash is replaced, the unused reset links retired, and every other session
 * signed out (this one stays); then their sockets close and an email tells the person.
 */
export async function changePassword(
  deps: AccountDeps,
  user: User,
  currentSessionId: string,
  input: { currentPassword: string; newPassword: string; twoFactorCode?: string | undefined },
): Promise<{ signedOut: number }> {
  await assertCurrentPassword(deps, user, input.currentPassword)
  await assertNotCommonPassword(input.newPassword, 'newPassword')
  // With two-factor sign-in on, its code too (docs/decisions/072).
  await assertSecondFactor(deps, user.id, input.twoFactorCode, 'password_change')
  const passwordHash = await hashPassword(input.newPassword)
  const now = deps.clock.now()
  const ended = await deps.db.transaction(async (tx) => {
    await tx.update(users).set({ passwordHash, updatedAt: now }).where(eq(users.id, user.id))
    await tx
      .update(emailTokens)
      .set({ usedAt: now })
      .where(and(eq(emailTokens.userId, user.id), inArray(emailTokens.purpose, ['reset_password', 'invitation']), isNull(emailTokens.usedAt)))
    return deleteOtherSessions(tx, user.id, currentSessionId)
  })
  for (const { id } of ended) deps.onSessionsEnded?.({ sessionId: id })
  await deps.jobs.enqueue(SEND_EMAIL_JOB, { kind: 'password-changed', userId: user.id } satisfies AccountEmail).catch((error: unknown) => {
    // The password is changed either way; the email is the courtesy.
    deps.log.error({ err: error, userId: user.id }, 'could not queue the password-changed email')
  })
  return { signedOut: ended.length }
}
