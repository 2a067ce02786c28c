import { and, eq, isNotNull, sql } from 'drizzle-orm'
import { TWO_FACTOR_STEP_MINUTES } from '#common/two-factor'
import type { Config } from '../config'
import type { Db, DbExecutor } from '../db/client'
import { prepared } from '../db/prepared'
import { profiles, sessions, subscribers, twoFactorCredentials, users, type User } from '../db/schema'
import type { Clock } from '../lib/clock'
import { sessionProfileColumns, type SessionProfileRow } from '../db/access'
import { recordActivity } from '../db/activity'
import { hashSecret, randomToken, secretMatches } from './tokens'

/**
 * Sessions as the Lucia sessions guide designs them. The cookie carries `<id>.<secret>` (160 and
 * 256 random bits); only the SHA-256 of the secret is stored and compared in constant time.
 */
const DAY_MS = 24 * 60 * 60 * 1000
/** A session ends after a week without use, and 30 days after it began however active (ADR 027). */
export const SESSION_IDLE_MS = 7 * DAY_MS
const SESSION_MAX_AGE_MS = 30 * DAY_MS
/** `last_verified_at` is written at most this often per session. */
const SESSION_RENEWAL_MS = 60 * 60 * 1000
/** `last_seen_at` (the account page's "last seen") is written at most this often per session. */
export const SESSION_SEEN_MS = 5 * 60 * 1000
/** A session waiting for its two-factor code ends this long after the password (docs/decisions/072). */
const TWO_FACTOR_STEP_MS = TWO_FACTOR_STEP_MINUTES * 60 * 1000

/**
 * Where a session stands with two-factor sign-in (docs/decisions/072): `off` (its user has not
 * turned it on), `pending` (on, and the session has passed the password but not the code: only
 * the code step works), `verified` (on, and the code was given).
 */
export type SessionTwoFactor = 'off' | 'pending' | 'verified'

export type ValidSession = {
  id: string
  user: User
  /**
   * The user's access columns, partner program and opt-in, read in the same statement as the
   * session: the paid guard and /api/me decide from it without another query.
   */
  profile: SessionProfileRow | null
  twoFactor: SessionTwoFactor
  createdAt: Date
  lastVerifiedAt: Date
  expiresAt: Date
  /** True when this request renewed the session (and the cookie must be re-sent). */
  renewed: boolean
}

export function sessionCookieName(config: Config): string {
  return config.secureCookies ? '__Host-session' : 'session'
}

export function sessionCookieOptions(config: Config, session: { lastVerifiedAt: Date; expiresAt: Date }, now: Date) {
  const idleEnd = session.lastVerifiedAt.getTime() + SESSION_IDLE_MS
  const end = Math.min(idleEnd, session.expiresAt.getTime())
  return {
    path: '/',
    httpOnly: true,
    sameSite: 'lax' as const,
    secure: config.secureCookies,
    maxAge: Math.max(0, Math.floor((end - now.getTime()) / 1000)),
  }
}

/**
 * A new session (at the password: `twoFactorVerified` stays false, and a user with two-factor
 * sign-in on must then give the code; docs/decisions/072).
 */
export async function createSession(
  db: DbExecutor,
  clock: Clock,
  userId: string,
  meta: { userAgent?: string | undefined; ip?: string | undefined; twoFactorVerified?: boolean } = {},
): Promise<{ token: string; id: string; lastVerifiedAt: Date; expiresAt: Date }> {
  const id = randomToken(20)
  const secret = randomToken(32)
  const now = clock.now()
  const expiresAt = new Date(now.getTime() + SESSION_MAX_AGE_MS)
  await db.insert(sessions).values({
    id,
    userId,
    secretHash: hashSecret(secret),
    createdAt: now,
    lastVerifiedAt: now,
    lastSeenAt: now,
    expiresAt,
    userAgent: meta.userAgent?.slice(0, 300),
    ip: meta.ip,
    twoFactorVerified: meta.twoFactorVerified ?? false,
  })
  return { token: `${id}.${secret}`, id, lastVerifiedAt: now, expiresAt }
}

/**
 * Every authenticated request runs this: the session, its user, the user's access row and whether
 * two-factor sign-in is on, in one statement, prepared once per database handle.
 */
const sessionById = (db: DbExecutor) =>
  prepared(db, 'session_by_id', (db) =>
    db
      .select({ session: sessions, user: users, profile: sessionProfileColumns, twoFactorOn: twoFactorCredentials.enabledAt })
      .from(sessions)
      .innerJoin(users, eq(users.id, sessions.userId))
      .leftJoin(profiles, eq(profiles.id, sessions.userId))
      .leftJoin(subscribers, eq(subscribers.userId, profiles.id))
      .leftJoin(twoFactorCredentials, and(eq(twoFactorCredentials.userId, sessions.userId), isNotNull(twoFactorCredentials.enabledAt)))
      .where(eq(sessions.id, sql.placeholder('id')))
      .limit(1)
      .prepare('session_by_id'),
  )

const TOKEN_SHAPE = /^([a-z2-7]{20,64})\.([a-z2-7]{40,80})$/

/** The session of a cookie value, or null; expired sessions are deleted on sight. */
export async function validateSessionToken(db: Db, clock: Clock, token: string): Promise<ValidSession | null> {
  const match = TOKEN_SHAPE.exec(token)
  if (!match) return null
  const [, id, secret] = match as unknown as [string, string, string]
  const [row] = await sessionById(db).execute({ id })
  if (!row) return null
  if (!secretMatches(secret, row.session.secretHash)) return null

  const now = clock.now()
  const idleFor = now.getTime() - row.session.lastVerifiedAt.getTime()
  const twoFactor: SessionTwoFactor = row.twoFactorOn === null ? 'off' : row.session.twoFactorVerified ? 'verified' : 'pending'
  // A session waiting for its code waits only so long: then the password must be given again.
  const abandoned = twoFactor === 'pending' && now.getTime() - row.session.createdAt.getTime() >= TWO_FACTOR_STEP_MS
  if (abandoned || idleFor >= SESSION_IDLE_MS || now.getTime() >= row.session.expiresAt.getTime()) {
    await db.delete(sessions).where(eq(sessions.id, id))
    return null
  }
  let lastVerifiedAt = row.session.lastVerifiedAt
  let renewed = false
  if (idleFor >= SESSION_RENEWAL_MS) {
    lastVerifiedAt = now
    renewed = true
    await db.update(sessions).set({ lastVerifiedAt: now, lastSeenAt: now }).where(eq(sessions.id, id))
    // Coming back to a live session on a new day counts as signing in that day (Days Active).
    if (twoFactor !== 'pending' && row.session.lastVerifiedAt.toISOString().slice(0, 10) !== now.toISOString().slice(0, 10)) {
      await recordActivity(db, row.user.id, 'sign_in', now)
    }
  } else if (now.getTime() - row.session.lastSeenAt.getTime() >= SESSION_SEEN_MS) {
    // "Last seen" to within a few minutes, for a write at most every SESSION_SEEN_MS per session.
    await db.update(sessions).set({ lastSeenAt: now }).where(eq(sessions.id, id))
  }
  return {
    id,
    user: row.user,
    profile: row.profile,
    twoFactor,
    createdAt: row.session.createdAt,
    lastVerifiedAt,
    expiresAt: row.session.expiresAt,
    renewed,
  }
}

/**
 * Whether a session still stands (not signed out, reset, idle or expired), without touching it:
 * a long-lived connection (the voice gateway's socket) asks this now and then.
 */
export async function sessionIsLive(db: DbExecutor, id: string, now: Date): Promise<boolean> {
  const [row] = await db.select({ lastVerifiedAt: sessions.lastVerifiedAt, expiresAt: sessions.expiresAt }).from(sessions).where(eq(sessions.id, id)).limit(1)
  if (!row) return false
  return now.getTime() - row.lastVerifiedAt.getTime() < SESSION_IDLE_MS && now.getTime() < row.expiresAt.getTime()
}

export async function invalidateSession(db: DbExecutor, id: string): Promise<void> {
  await db.delete(sessions).where(eq(sessions.id, id))
}

export async function invalidateUserSessions(db: DbExecutor, userId: string): Promise<void> {
  await db.delete(sessions).where(eq(sessions.userId, userId))
}

/** The session passed the code of two-factor sign-in (docs/decisions/072). */
export async function markSessionTwoFactorVerified(db: DbExecutor, id: string): Promise<void> {
  await db.update(sessions).set({ twoFactorVerified: true }).where(eq(sessions.id, id))
}

export type NewSessionCookie = { token: string; lastVerifiedAt: Date; expiresAt: Date }
