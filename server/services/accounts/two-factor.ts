/**
 * Two-factor sign-in (docs/decisions/072), as the Lucia guide's two-factor example designs it: a
 * session begins at the password; while its user has two-factor sign-in on, it must pass the code
 * step (`sessions.two_factor_verified`) before anything else works. The code is a TOTP from an
 * authenticator app (server/auth/totp.ts) or one of 10 single-use recovery codes kept hashed.
 * Wrong codes are limited per person (the login's scheme, its own counters), on top of the routes'
 * limits per address. Turning it on or off, using a recovery code and making new ones are written
 * to the audit log in the same transaction.
 */
import { and, count, eq, isNotNull, isNull, ne } from 'drizzle-orm'
import { formatRecoveryCode, twoFactorCodeKind, type RecoveryCodes, type TwoFactorSetup, type TwoFactorStatus } from '#common/two-factor'
import { markSessionTwoFactorVerified } from '#server/auth/session'
import { acceptedTotpStep, newRecoveryCodes, newTotpKey, qrCodeSvg, recoveryCodeHash, totpKeyUri, totpSecretText } from '#server/auth/totp'
import { recordActivity } from '#server/db/activity'
import type { DbExecutor } from '#server/db/client'
import { sessions, twoFactorCredentials, twoFactorRecoveryCodes, type User } from '#server/db/schema'
import { AppError } from '#server/lib/app-error'
import { audit } from '#server/services/audit'
import { assertCurrentPassword, checkAttemptLimited, twoFactorLimit, type AccountDeps } from './accounts'

/** Why a code was asked: the audit row of a recovery code says so. */
type CodePurpose = 'sign_in' | 'disable' | 'recovery_codes' | 'password_change' | 'email_change'

async function recoveryCodesLeft(db: DbExecutor, userId: string): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(twoFactorRecoveryCodes)
    .where(and(eq(twoFactorRecoveryCodes.userId, userId), isNull(twoFactorRecoveryCodes.usedAt)))
  return row?.n ?? 0
}

export async function twoFactorStatus(deps: AccountDeps, userId: string): Promise<TwoFactorStatus> {
  const [credential] = await deps.db
    .select({ enabledAt: twoFactorCredentials.enabledAt })
    .from(twoFactorCredentials)
    .where(and(eq(twoFactorCredentials.userId, userId), isNotNull(twoFactorCredentials.enabledAt)))
    .limit(1)
  if (!credential?.enabledAt) return { enabled: false, enabledAt: null, recoveryCodesLeft: 0 }
  return { enabled: true, enabledAt: credential.enabledAt.toISOString(), recoveryCodesLeft: await recoveryCodesLeft(deps.db, userId) }
}

/**
 * Takes `code` as the person's second factor, in `tx`: a TOTP for a step after the last one used
 * (that step is then the last one used), or an unused recovery code (then used, and audited).
 * False when it is neither.
 */
async function takeCode(tx: DbExecutor, deps: AccountDeps, userId: string, code: string, purpose: CodePurpose): Promise<boolean> {
  const now = deps.clock.now()
  const kind = twoFactorCodeKind(code)
  if (kind === 'totp') {
    const [credential] = await tx
      .select()
      .from(twoFactorCredentials)
      .where(and(eq(twoFactorCredentials.userId, userId), isNotNull(twoFactorCredentials.enabledAt)))
      .for('update')
      .limit(1)
    if (!credential) return false
    const step = acceptedTotpStep(credential.secret, code, now, credential.lastUsedStep)
    if (step === null) return false
    await tx.update(twoFactorCredentials).set({ lastUsedStep: step }).where(eq(twoFactorCredentials.userId, userId))
    return true
  }
  if (kind === 'recovery') {
    const [used] = await tx
      .update(twoFactorRecoveryCodes)
      .set({ usedAt: now })
      .where(and(eq(twoFactorRecoveryCodes.userId, userId), eq(twoFactorRecoveryCodes.codeHash, recoveryCodeHash(userId, code)), isNull(twoFactorRecoveryCodes.usedAt)))
      .returning({ id: twoFactorRecoveryCodes.id })
    if (!used) return false
    await audit.record(tx, {
      actor: { kind: 'user', userId },
      action: 'recovery_code_used',
      subjectUserId: userId,
      target: { type: 'two_factor', id: null },
      details: { purpose, remaining: await recoveryCodesLeft(tx, userId) },
      at: now,
    })
    return true
  }
  return false
}

/**
 * Checks `code` under the per-person limit on wrong codes, and runs `then` in the same transaction
 * once it is accepted (a wrong code changes nothing). The refusal names `field`.
 */
async function withCode<T>(
  deps: AccountDeps,
  userId: string,
  code: string,
  purpose: CodePurpose,
  field: string,
  then: (tx: DbExecutor) => Promise<T>,
): Promise<T> {
  return checkAttemptLimited(
    deps,
    twoFactorLimit(userId),
    () =>
      deps.db.transaction(async (tx) => {
        if (!(await takeCode(tx, deps, userId, code, purpose))) return false as const
        return { value: await then(tx) }
      }),
    () => new AppError('INVALID_TWO_FACTOR_CODE', undefined, { field }),
  ).then((result) => result.value)
}

/** Writes `RECOVERY_CODE_COUNT` new recovery codes (the earlier ones go) and returns them, as shown. */
async function replaceRecoveryCodes(tx: DbExecutor, userId: string, now: Date): Promise<string[]> {
  const codes = newRecoveryCodes()
  await tx.delete(twoFactorRecoveryCodes).where(eq(twoFactorRecoveryCodes.userId, userId))
  await tx.insert(twoFactorRecoveryCodes).values(codes.map((code, index) => ({ userId, codeHash: recoveryCodeHash(userId, code), position: index + 1, createdAt: now })))
  return codes.map(formatRecoveryCode)
}

const alreadyOn = () => new AppError('CONFLICT', 'Two-factor sign-in is already on. Turn it off first to use another authenticator app.')
const notOn = () => new AppError('CONFLICT', 'Two-factor sign-in is not on for your account.')

/**
 * The set-up's first step (the current password first: someone else in a signed-in browser must
 * not lock the person out with a key of theirs): a new key, kept but not yet on, to scan as a QR
 * code or type in. Asking again replaces a key not confirmed yet.
 */
export async function beginTwoFactorSetup(deps: AccountDeps, user: User, currentPassword: string): Promise<TwoFactorSetup> {
  if ((await twoFactorStatus(deps, user.id)).enabled) throw alreadyOn()
  await assertCurrentPassword(deps, user, currentPassword)
  const key = newTotpKey()
  const now = deps.clock.now()
  const [kept] = await deps.db
    .insert(twoFactorCredentials)
    .values({ userId: user.id, secret: key, enabledAt: null, lastUsedStep: null, createdAt: now })
    .onConflictDoUpdate({ target: twoFactorCredentials.userId, set: { secret: key, lastUsedStep: null, createdAt: now }, setWhere: isNull(twoFactorCredentials.enabledAt) })
    .returning({ userId: twoFactorCredentials.userId })
  // Turned on meanwhile (in another tab): the key it has stays.
  if (!kept) throw alreadyOn()
  const uri = totpKeyUri(user.email, key)
  return { secret: totpSecretText(key), keyUri: uri, qrCodeSvg: qrCodeSvg(uri) }
}

/**
 * The set-up's second step: a code from the app proves it holds the key; two-factor sign-in is on,
 * this session counts as verified, every other session of the person is signed out (it began
 * without the code), and the 10 recovery codes are made and returned, to be shown once.
 */
export async function enableTwoFactor(deps: AccountDeps, user: User, sessionId: string, code: string): Promise<RecoveryCodes> {
  const now = deps.clock.now()
  const result = await checkAttemptLimited(
    deps,
    twoFactorLimit(user.id),
    () =>
      deps.db.transaction(async (tx) => {
        const [credential] = await tx.select().from(twoFactorCredentials).where(eq(twoFactorCredentials.userId, user.id)).for('update').limit(1)
        if (!credential) throw new AppError('CONFLICT', 'Start the set-up first: there is no key waiting for a code.')
        if (credential.enabledAt) throw alreadyOn()
        const step = acceptedTotpStep(credential.secret, code, now, null)
        if (step === null) return false as const
        await tx.update(twoFactorCredentials).set({ enabledAt: now, lastUsedStep: step }).where(eq(twoFactorCredentials.userId, user.id))
        const recoveryCodes = await replaceRecoveryCodes(tx, user.id, now)
        await markSessionTwoFactorVerified(tx, sessionId)
        const ended = await tx
          .delete(sessions)
          .where(and(eq(sessions.userId, user.id), ne(sessions.id, sessionId)))
          .returning({ id: sessions.id })
        await audit.record(tx, { actor: { kind: 'user', userId: user.id }, action: 'two_factor_enabled', subjectUserId: user.id, target: { type: 'two_factor', id: null }, at: now })
        return { recoveryCodes, ended }
      }),
    () => new AppError('INVALID_TWO_FACTOR_CODE', undefined, { field: 'code' }),
  )
  for (const { id } of result.ended) deps.onSessionsEnded?.({ sessionId: id })
  return { recoveryCodes: result.recoveryCodes, signedOut: result.ended.length }
}

/**
 * Turns two-factor sign-in off: the current password and a code (from the app, or a recovery
 * code). The key and the recovery codes go; sessions still waiting for a code are signed out (they
 * had given only the password, and would otherwise be signed in).
 */
export async function disableTwoFactor(deps: AccountDeps, user: User, sessionId: string, input: { currentPassword: string; code: string }): Promise<TwoFactorStatus> {
  if (!(await twoFactorStatus(deps, user.id)).enabled) throw notOn()
  await assertCurrentPassword(deps, user, input.currentPassword)
  const now = deps.clock.now()
  const ended = await withCode(deps, user.id, input.code, 'disable', 'code', async (tx) => {
    await tx.delete(twoFactorRecoveryCodes).where(eq(twoFactorRecoveryCodes.userId, user.id))
    await tx.delete(twoFactorCredentials).where(eq(twoFactorCredentials.userId, user.id))
    await audit.record(tx, { actor: { kind: 'user', userId: user.id }, action: 'two_factor_disabled', subjectUserId: user.id, target: { type: 'two_factor', id: null }, at: now })
    return tx
      .delete(sessions)
      .where(and(eq(sessions.userId, user.id), ne(sessions.id, sessionId), eq(sessions.twoFactorVerified, false)))
      .returning({ id: sessions.id })
  })
  for (const { id } of ended) deps.onSessionsEnded?.({ sessionId: id })
  return twoFactorStatus(deps, user.id)
}

/** New recovery codes for a code: the earlier ones stop working. Returned to be shown once. */
export async function regenerateRecoveryCodes(deps: AccountDeps, userId: string, code: string): Promise<RecoveryCodes> {
  if (!(await twoFactorStatus(deps, userId)).enabled) throw notOn()
  const now = deps.clock.now()
  const recoveryCodes = await withCode(deps, userId, code, 'recovery_codes', 'code', async (tx) => {
    const codes = await replaceRecoveryCodes(tx, userId, now)
    await audit.record(tx, { actor: { kind: 'user', userId }, action: 'recovery_codes_regenerated', subjectUserId: userId, target: { type: 'two_factor', id: null }, at: now })
    return codes
  })
  return { recoveryCodes, signedOut: 0 }
}

/**
 * The sign-in's second step: the session waiting for its code passes it. Its user, signed in (the
 * sign-in counts for Days Active now).
 */
export async function completeTwoFactorSignIn(deps: AccountDeps, session: { id: string; user: User; twoFactor: 'off' | 'pending' | 'verified' }, code: string): Promise<User> {
  if (session.twoFactor !== 'pending') throw new AppError('CONFLICT', 'This session is signed in already: it needs no code.')
  await withCode(deps, session.user.id, code, 'sign_in', 'code', (tx) => markSessionTwoFactorVerified(tx, session.id))
  await recordActivity(deps.db, session.user.id, 'sign_in', deps.clock.now())
  return session.user
}

/**
 * A change that could lock the person out (the password, the email) asks for the code too when
 * two-factor sign-in is on: missing, it is 400 naming `twoFactorCode`; wrong, the same.
 */
export async function assertSecondFactor(deps: AccountDeps, userId: string, code: string | undefined, purpose: 'password_change' | 'email_change'): Promise<void> {
  if (!(await twoFactorStatus(deps, userId)).enabled) return
  if (!code) {
    throw new AppError('VALIDATION_FAILED', 'Enter the 6-digit code from your authenticator app, or a recovery code', { field: 'twoFactorCode' })
  }
  await withCode(deps, userId, code, purpose, 'twoFactorCode', async () => undefined)
}
