/**
 * Staff and two-factor sign-in for integration tests (docs/decisions/072): a signed-in person with
 * staff roles, written straight to the database, with two-factor sign-in on (a key of the test's,
 * and a session that passed the code) or not; and the code an authenticator app would show.
 */
import { generateHOTP } from '@oslojs/otp'
import { randomBytes } from 'node:crypto'
import { decodeBase32IgnorePadding } from '@oslojs/encoding'
import type { FastifyInstance } from 'fastify'
import type { StaffRole } from '#common/staff'
import { TOTP_DIGITS, TOTP_PERIOD_SECONDS } from '#common/two-factor'
import { createSession } from '#server/auth/session'
import type { Db } from '#server/db/client'
import { staffRoles, twoFactorCredentials } from '#server/db/schema'
import { signedInUser, type SignedIn } from './users'

/** The code an authenticator app holding `key` shows at `at` (`offset` steps later). */
export function totpCodeAt(key: Uint8Array, at: Date, offset = 0): string {
  const step = Math.floor(at.getTime() / (TOTP_PERIOD_SECONDS * 1000)) + offset
  return generateHOTP(key, BigInt(step), TOTP_DIGITS)
}

/** The key of the set-up's `secret` (base32 in groups of four, as the account page shows it). */
export const keyOfSecret = (secret: string) => decodeBase32IgnorePadding(secret.replace(/\s/g, ''))

/** Two-factor sign-in on for the person, with a new key (returned), as a confirmed set-up leaves it. */
export async function turnOnTwoFactor(db: Db, userId: string, at: Date): Promise<Uint8Array> {
  const key = new Uint8Array(randomBytes(20))
  await db.insert(twoFactorCredentials).values({ userId, secret: key, enabledAt: at, lastUsedStep: null, createdAt: at })
  return key
}

export type StaffMember = SignedIn & { roles: StaffRole[]; key: Uint8Array | null }

/**
 * A signed-in staff member with `roles` (none: a member). With `twoFactor` (the default), two-factor
 * sign-in is on and the session passed its code; without, it is off.
 */
export async function signedInStaff(app: FastifyInstance, roles: StaffRole[], options: { twoFactor?: boolean; fullName?: string } = {}): Promise<StaffMember> {
  const person = await signedInUser(app, options.fullName ? { fullName: options.fullName } : {})
  const now = app.services.clock.now()
  if (roles.length > 0) await app.db.insert(staffRoles).values(roles.map((role) => ({ userId: person.user.id, role, grantedAt: now, grantedBy: null })))
  if (options.twoFactor === false) return { ...person, roles, key: null }
  const key = await turnOnTwoFactor(app.db, person.user.id, now)
  const session = await createSession(app.db, app.services.clock, person.user.id, { twoFactorVerified: true })
  const cookie = `${app.config.secureCookies ? '__Host-session' : 'session'}=${session.token}`
  return { ...person, cookie, headers: { cookie, origin: app.config.appOrigin }, roles, key }
}
