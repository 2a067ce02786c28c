import { and, eq, gt, inArray, isNotNull, isNull } from 'drizzle-orm'
import type { Logger } from 'pino'
import { EMAIL_CHANGE_TTL_HOURS } from '#common/account'
import { CONSENT_TEXT, CONSENT_TEXT_VERSION } from '#common/auth'
import { formatPhone } from '#common/auth-constants'
import { DEFAULT_PARTNER_PROGRAM } from '#common/domain'
import { assertNotCommonPassword, hashPassword, verifyAgainstDummy, verifyPassword } from '#server/auth/password'
import { createSession, invalidateUserSessions, type NewSessionCookie } from '#server/auth/session'
import { hashSecret, randomToken } from '#server/auth/tokens'
import type { Config } from '#server/config'
import { recordActivity } from '#server/db/activity'
import type { Db, DbExecutor } from '#server/db/client'
import { contactChanges, emailTokens, profiles, twoFactorCredentials, users, type User } from '#server/db/schema'
import { composeEmail, type Mailer } from '#server/integrations/mailer'
import { AppError } from '#server/lib/app-error'
import type { Clock } from '#server/lib/clock'
import type { Counters } from '#server/lib/counters'
import { clientNetwork } from '#server/lib/ip'
import { isCallableNumber, NOT_CALLABLE_MESSAGE } from '#server/lib/phone-numbers'
import { recordConsent } from '#server/services/consent'
import { SEND_EMAIL_JOB, type AccountEmail, type AccountsJobQueue } from './jobs'

/** Sessions that just ended: one (a sign-out), or every session of a user (a password reset). */
export type SessionsEnded = { sessionId: string } | { userId: string }

export type AccountDeps = {
  db: Db
  clock: Clock
  config: Config
  mailer: Mailer
  counters: Counters
  log: Logger
  jobs: AccountsJobQueue
  /** Told when sessions end, so long-lived connections of theirs close (the voice gateway's sockets). */
  onSessionsEnded?: ((ended: SessionsEnded) => void) | undefined
  /** Told when a new email address is confirmed (billing updates the Stripe customer); never throws. */
  onEmailChanged?: ((userId: string, email: string) => Promise<void>) | undefined
}
export type RequestMeta = { ip: string; userAgent?: string | undefined }
type NewSession = NewSessionCookie

export const MINUTE = 60_000
export const HOUR = 60 * MINUTE
const CONFIRM_TOKEN_TTL_MS = 24 * HOUR
const RESET_TOKEN_TTL_MS = HOUR

/** Failed logins per account: free for the first few, then each one waits longer; capped per hour. */
export const LOGIN_FREE_FAILURES = 5
const LOGIN_FAILURES_PER_HOUR = 100
export const SIGNUPS_PER_IP_PER_HOUR = 10

const INVALID_CREDENTIALS = () => new AppError('INVALID_CREDENTIALS')

export function tooMany(resetAt: number, now: number, message: string): AppError {
  return new AppError('RATE_LIMITED', message, { retryAfter: Math.max(1, Math.ceil((resetAt - now) / 1000)) })
}

export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: string; cause?: { code?: string } })?.code ?? (error as { cause?: { code?: string } })?.cause?.code
  return code === '23505'
}

export type SignupInput = {
  fullName: string
  email: string
  phoneNumber: string
  password: string
  partnerProgram?: string | undefined
}

export async function signUp(deps: AccountDeps, input: SignupInput, meta: RequestMeta): Promise<{ user: User; session: NewSession }> {
  // Only US and Canadian geographic numbers are ever called or texted (docs/decisions/060).
  if (!isCallableNumber(input.phoneNumber)) throw new AppError('VALIDATION_FAILED', NOT_CALLABLE_MESSAGE, { field: 'phoneNumber' })
  const now = deps.clock.now()
  const perIp = await deps.counters.hit(`signup-ip:${clientNetwork(meta.ip)}`, HOUR)
  if (perIp.count > SIGNUPS_PER_IP_PER_HOUR) {
    throw tooMany(perIp.resetAt, now.getTime(), 'Too many accounts were created from this network. Please try again later.')
  }
  await assertNotCommonPassword(input.password)
  const passwordHash = await hashPassword(input.password)
  let user: User
  try {
    user = await deps.db.transaction(async (tx) => {
      const [created] = await tx
        .insert(users)
        .values({
          email: input.email,
          passwordHash,
          fullName: input.fullName,
          phoneNumber: input.phoneNumber,
          communicationConsentVersion: CONSENT_TEXT_VERSION,
          communicationConsentAt: now,
          termsAcceptedAt: now,
          createdAt: now,
          updatedAt: now,
        })
        .returning()
      await tx.insert(profiles).values({
        id: created!.id,
        name: input.fullName,
        phoneNumber: input.phoneNumber,
        partnerProgram: input.partnerProgram || DEFAULT_PARTNER_PROGRAM,
        createdAt: now,
        updatedAt: now,
      })
      // The sign-up checkbox is consent to calls (texts wait for the opt-in screen's START). It takes
      // effect once the number is proven the person's (docs/decisions/060).
      await recordConsent(tx, {
        userId: created!.id,
        channel: 'calls',
        action: 'granted',
        source: 'sign_up',
        text: CONSENT_TEXT,
        at: now,
        ip: meta.ip,
        userAgent: meta.userAgent ?? null,
        detail: { consentVersion: CONSENT_TEXT_VERSION },
      })
      return created!
    })
  } catch (error) {
    if (isUniqueViolation(error)) {
      throw new AppError('EMAIL_TAKEN', undefined, { field: 'email' })
    }
    throw error
  }
  const session = await createSession(deps.db, deps.clock, user.id, meta)
  await recordActivity(deps.db, user.id, 'sign_in', now)
  await sendConfirmationEmail(deps, user).catch((error: unknown) => {
    // The account exists either way; the user can ask for the email again.
    deps.log.error({ err: error, userId: user.id }, 'could not queue the confirmation email')
  })
  return { user, session }
}

/** The wait that follows the n-th failed attempt in a row: 1 s, 2 s, 4 s ... up to 5 minutes, once the free ones are spent. */
const attemptWaitMs = (failure: number) => Math.min(1000 * 2 ** Math.max(0, failure - LOGIN_FREE_FAILURES), 5 * MINUTE)

/**
 * A secret guessed at one try after another (an account's password, a person's two-factor code):
 * its counters in the shared store, how many verified failures an hour it takes, and the words.
 */
type AttemptLimit = {
  keys: {
    /** Every attempt since the last success, counted before the secret is verified. */
    attempts: string
    /** Verified failures in the hour: the hourly cap and the length of the waits. */
    failures: string
    /** Held by the one attempt allowed through once the free ones are spent, and then for the wait. */
    lock: string
  }
  failuresPerHour: number
  capMessage: string
  waitMessage: string
}

const loginLimit = (email: string): AttemptLimit => ({
  keys: { attempts: `login-attempt:${email}`, failures: `login-fail:${email}`, lock: `login-lock:${email}` },
  failuresPerHour: LOGIN_FAILURES_PER_HOUR,
  capMessage: 'Too many failed login attempts. Please try again later or reset your password.',
  waitMessage: 'Too many failed login attempts. Please wait a moment and try again.',
})

/** Wrong two-factor codes an hour per person, once the waits are counted in (docs/decisions/072). */
export const TWO_FACTOR_FAILURES_PER_HOUR = 20

/** The two-factor codes of one person (a TOTP is 6 digits: the cap keeps guessing hopeless). */
export const twoFactorLimit = (userId: string): AttemptLimit => ({
  keys: { attempts: `2fa-attempt:${userId}`, failures: `2fa-fail:${userId}`, lock: `2fa-lock:${userId}` },
  failuresPerHour: TWO_FACTOR_FAILURES_PER_HOUR,
  capMessage: 'Too many wrong codes. Please try again in an hour, or use a recovery code later.',
  waitMessage: 'Too many wrong codes. Please wait a moment and try again.',
})

/**
 * Each attempt is counted (atomically, in the shared counters) before the secret is verified, so
 * parallel attempts cannot all pass a check made before any of them failed. The first few attempts
 * go straight to the verification; from the last free one on, an attempt must take the lock, which
 * only one holder can have at a time and which lasts for the wait its failure asks for. A success
 * clears the counters.
 */
export async function checkAttemptLimited<T>(deps: AccountDeps, limit: AttemptLimit, check: () => Promise<T | false>, refusal: () => AppError): Promise<T> {
  const now = deps.clock.now().getTime()
  const { keys } = limit
  const failures = await deps.counters.get(keys.failures)
  if (failures && failures.count >= limit.failuresPerHour) throw tooMany(failures.resetAt, now, limit.capMessage)
  const attempt = await deps.counters.hit(keys.attempts, HOUR)
  if (attempt.count >= LOGIN_FREE_FAILURES) {
    const lock = await deps.counters.hit(keys.lock, attemptWaitMs((failures?.count ?? 0) + 1))
    if (lock.count > 1) throw tooMany(lock.resetAt, now, limit.waitMessage)
  }
  const result = await check()
  if (result === false) {
    await deps.counters.hit(keys.failures, HOUR)
    throw refusal()
  }
  await clearAttemptCounters(deps, limit)
  return result
}

/** An account's password, under the login's limits (per email address). */
async function checkPasswordLimited(deps: AccountDeps, email: string, check: () => Promise<boolean>, refusal: () => AppError): Promise<void> {
  await checkAttemptLimited(deps, loginLimit(email), async () => (await check()) || false, refusal)
}

/**
 * Email and password: a new session. With two-factor sign-in on, the session waits for the code
 * (`twoFactorRequired`; docs/decisions/072): nothing but the code step works with it until then.
 */
export async function logIn(
  deps: AccountDeps,
  input: { email: string; password: string },
  meta: RequestMeta,
): Promise<{ user: User; session: NewSession; twoFactorRequired: boolean }> {
  let user: User | undefined
  await checkPasswordLimited(
    deps,
    input.email,
    async () => {
      ;[user] = await deps.db.select().from(users).where(eq(users.email, input.email)).limit(1)
      const ok = user ? await verifyPassword(user.passwordHash, input.password) : await verifyAgainstDummy(input.password)
      return user !== undefined && ok
    },
    INVALID_CREDENTIALS,
  )
  const session = await createSession(deps.db, deps.clock, user!.id, meta)
  const twoFactorRequired = await twoFactorIsOn(deps.db, user!.id)
  // Signing in counts for Days Active once it is complete (with the code, when one is asked).
  if (!twoFactorRequired) await recordActivity(deps.db, user!.id, 'sign_in', deps.clock.now())
  return { user: user!, session, twoFactorRequired }
}

/** Whether the person has two-factor sign-in on (a confirmed key). */
async function twoFactorIsOn(db: DbExecutor, userId: string): Promise<boolean> {
  const [row] = await db
    .select({ userId: twoFactorCredentials.userId })
    .from(twoFactorCredentials)
    .where(and(eq(twoFactorCredentials.userId, userId), isNotNull(twoFactorCredentials.enabledAt)))
    .limit(1)
  return row !== undefined
}

/**
 * The current password, before a change that could lock the person out (the password, the email):
 * under the same per-account limits as a login (each try counted before it is verified; after a
 * few wrong ones, each waits longer), so this is no faster way to guess a password. A wrong one is
 * 400 WRONG_PASSWORD naming `currentPassword` (a 401 would read as signed out).
 */
export async function assertCurrentPassword(deps: AccountDeps, user: User, password: string): Promise<void> {
  await checkPasswordLimited(
    deps,
    user.email,
    () => verifyPassword(user.passwordHash, password),
    () => new AppError('WRONG_PASSWORD', undefined, { field: 'currentPassword' }),
  )
}

/**
 * The signed-in person shows it is them again (before deleting the account): their current
 * password, read fresh from the database, under the same per-account limits as a login (the
 * attempt counted before the check), so this cannot be used to guess a password faster. A wrong
 * password is 401 INVALID_CREDENTIALS naming `password`.
 */
export async function reauthenticate(deps: AccountDeps, userId: string, password: string): Promise<User> {
  const [user] = await deps.db.select().from(users).where(eq(users.id, userId)).limit(1)
  if (!user) throw new AppError('UNAUTHENTICATED')
  await checkPasswordLimited(
    deps,
    user.email,
    () => verifyPassword(user.passwordHash, password),
    () => new AppError('INVALID_CREDENTIALS', 'The password is not correct.', { field: 'password' }),
  )
  return user
}

async function clearAttemptCounters(deps: AccountDeps, limit: AttemptLimit): Promise<void> {
  const { keys } = limit
  await Promise.all([deps.counters.reset(keys.attempts), deps.counters.reset(keys.failures), deps.counters.reset(keys.lock)])
}

const clearLoginCounters = (deps: AccountDeps, email: string) => clearAttemptCounters(deps, loginLimit(email))

async function issueToken(deps: AccountDeps, userId: string, purpose: 'confirm_email' | 'reset_password', ttlMs: number): Promise<string> {
  const token = randomToken(32)
  const now = deps.clock.now()
  await deps.db.insert(emailTokens).values({
    userId,
    purpose,
    tokenHash: hashSecret(token),
    expiresAt: new Date(now.getTime() + ttlMs),
    createdAt: now,
  })
  return token
}

/** One email per minute and five per hour per account and purpose. */
export async function mailAllowance(deps: AccountDeps, userId: string, purpose: string): Promise<{ ok: true } | { ok: false; resetAt: number }> {
  const [minute, hour] = await Promise.all([
    deps.counters.hit(`mail-min:${purpose}:${userId}`, MINUTE),
    deps.counters.hit(`mail-hour:${purpose}:${userId}`, HOUR),
  ])
  if (minute.count > 1) return { ok: false, resetAt: minute.resetAt }
  if (hour.count > 5) return { ok: false, resetAt: hour.resetAt }
  return { ok: true }
}

/** Queues the confirmation email (the request does not wait for SMTP); limited per account. */
export async function sendConfirmationEmail(deps: AccountDeps, user: User): Promise<void> {
  if (user.emailConfirmedAt) return
  const allowance = await mailAllowance(deps, user.id, 'confirm')
  if (!allowance.ok) {
    throw tooMany(allowance.resetAt, deps.clock.now().getTime(), 'A confirmation email was sent recently. Please check your inbox and try again in a little while.')
  }
  await deps.jobs.enqueue(SEND_EMAIL_JOB, { kind: 'confirm-email', userId: user.id } satisfies AccountEmail)
}

/**
 * Marks a token used and returns its user, or throws: a used, expired or unknown token is refused.
 * A staff invitation sets the first password as a reset link does (docs/decisions/072).
 */
async function consumeToken(deps: AccountDeps, token: string, purposes: ReadonlyArray<'confirm_email' | 'reset_password' | 'invitation'>, tx: DbExecutor): Promise<string> {
  const now = deps.clock.now()
  const [row] = await tx
    .update(emailTokens)
    .set({ usedAt: now })
    .where(and(eq(emailTokens.tokenHash, hashSecret(token)), inArray(emailTokens.purpose, [...purposes]), isNull(emailTokens.usedAt), gt(emailTokens.expiresAt, now)))
    .returning({ userId: emailTokens.userId })
  if (!row) throw new AppError('INVALID_TOKEN', undefined, { field: 'token' })
  return row.userId
}

export async function confirmEmail(deps: AccountDeps, token: string): Promise<User> {
  return deps.db.transaction(async (tx) => {
    const userId = await consumeToken(deps, token, ['confirm_email'], tx)
    const now = deps.clock.now()
    const [user] = await tx.select().from(users).where(eq(users.id, userId)).limit(1)
    if (user!.emailConfirmedAt) return user!
    const [updated] = await tx.update(users).set({ emailConfirmedAt: now, updatedAt: now }).where(eq(users.id, userId)).returning()
    return updated!
  })
}

/**
 * Always does the same, whether the email has an account or not: it queues one job with the
 * address and returns. Whether an account exists is decided when the job runs, after the answer.
 */
export async function requestPasswordReset(deps: AccountDeps, email: string): Promise<void> {
  await deps.jobs.enqueue(SEND_EMAIL_JOB, { kind: 'reset-password', email } satisfies AccountEmail)
}

/**
 * The `send-email` job: makes the token and the link, and sends. A retry (`attempt` > 1) does not
 * count against the per-account allowance again. Nothing is sent for an address without an
 * account, nor for a confirmation that is no longer needed.
 */
export async function deliverAccountEmail(deps: AccountDeps, email: AccountEmail, attempt: number): Promise<'sent' | 'skipped'> {
  if (email.kind === 'change-email' || email.kind === 'email-change-notice' || email.kind === 'password-changed' || email.kind === 'phone-changed') {
    return deliverSettingsEmail(deps, email)
  }
  if (email.kind === 'confirm-email') {
    const [user] = await deps.db.select().from(users).where(eq(users.id, email.userId)).limit(1)
    if (!user || user.emailConfirmedAt) return 'skipped'
    const token = await issueToken(deps, user.id, 'confirm_email', CONFIRM_TOKEN_TTL_MS)
    await deps.mailer.send(
      composeEmail({
        kind: 'email_confirmation',
        to: user.email,
        subject: 'Confirm your email for Momentum Coach',
        // Nothing the person typed goes into a message to an address not yet confirmed.
        greeting: 'Hello,',
        paragraphs: ['Welcome to Momentum Coach! Please confirm your email address so you can choose your plan and start coaching.'],
        action: 'Confirm my email',
        link: `${deps.config.appUrl}/auth?mode=confirm#token=${token}`,
        footer: 'This link works once and expires in 24 hours. If you did not create an account, you can ignore this email.',
      }),
    )
    return 'sent'
  }
  if (email.kind === 'account-deleted') {
    await deps.mailer.send(
      composeEmail({
        kind: 'account_deleted',
        to: email.email,
        subject: 'Your Momentum Coach account has been deleted',
        greeting: 'Hello,',
        paragraphs: [
          'As you asked, your Momentum Coach account has been deleted: your profile, goals, calls, conversations, course progress and settings are gone, your subscription was cancelled and any card saved for it removed, so no further payment will be taken, and every device was signed out.',
          'With us, only the payment records that tax and accounting law require us to keep remain, without your name or email, until the end of their legal retention period.',
          // What the processors keep, and for how long (docs/decisions/051 and 064).
          'Stripe, our payment processor, keeps your invoices and your customer record (your name, email and payments) for 10 years, because tax and accounting law requires it.',
          'Vapi, which runs our calls and the assistant, has been asked to delete your calls and chats, with their recordings and transcripts.',
          'Twilio, which carries our texts, has been asked to erase the words of the texts between you and us (a text still on its way is erased once it has arrived, within a day). Twilio keeps the record that each text was sent (the two numbers, the time and whether it arrived): by its published defaults, 13 months in its message log and then in its archive.',
          'Copies can remain in their backups for a while: up to 30 days at Twilio; Vapi does not publish how long.',
        ],
        footer: 'You are welcome back any time: you can sign up again with this email. If you did not ask for this, reply to this email.',
      }),
    )
    return 'sent'
  }
  const [user] = await deps.db.select().from(users).where(eq(users.email, email.email)).limit(1)
  if (!user) return 'skipped'
  if (attempt === 1) {
    const allowance = await mailAllowance(deps, user.id, 'reset')
    if (!allowance.ok) {
      deps.log.warn({ userId: user.id }, 'password reset email not sent: per-account limit reached')
      return 'skipped'
    }
  }
  const token = await issueToken(deps, user.id, 'reset_password', RESET_TOKEN_TTL_MS)
  await deps.mailer.send(
    composeEmail({
      kind: 'password_reset',
      to: user.email,
      subject: 'Reset your Momentum Coach password',
      greeting: user.emailConfirmedAt ? `Hi ${user.fullName},` : 'Hello,',
      paragraphs: ['Someone (hopefully you) asked to reset the password of your Momentum Coach account.'],
      action: 'Choose a new password',
      link: `${deps.config.appUrl}/auth?mode=reset#token=${token}`,
      footer: 'This link works once and expires in 1 hour. If you did not ask for it, you can ignore this email: your password stays the same.',
    }),
  )
  return 'sent'
}

/**
 * Sets a new password, signs out every session of the user, and starts a fresh one. In one
 * transaction: the token is checked and taken first (its row stays locked, so the same link used
 * twice at once lets one through), and only then is the new password checked and hashed; the
 * person's other unused reset and invitation links are retired, and the email counts as confirmed,
 * as the link reached it. A refused password rolls everything back, so the link can be used again.
 * With two-factor sign-in on, the fresh session still waits for the code (`twoFactorRequired`).
 */
export async function resetPassword(
  deps: AccountDeps,
  token: string,
  password: string,
  meta: RequestMeta,
): Promise<{ user: User; session: NewSession; twoFactorRequired: boolean }> {
  const user = await deps.db.transaction(async (tx) => {
    const userId = await consumeToken(deps, token, ['reset_password', 'invitation'], tx)
    await assertNotCommonPassword(password)
    const passwordHash = await hashPassword(password)
    const now = deps.clock.now()
    await tx
      .update(emailTokens)
      .set({ usedAt: now })
      .where(and(eq(emailTokens.userId, userId), inArray(emailTokens.purpose, ['reset_password', 'invitation']), isNull(emailTokens.usedAt)))
    const [current] = await tx.select({ emailConfirmedAt: users.emailConfirmedAt }).from(users).where(eq(users.id, userId)).limit(1)
    const [updated] = await tx
      .update(users)
      .set({ passwordHash, emailConfirmedAt: current?.emailConfirmedAt ?? now, updatedAt: now })
      .where(eq(users.id, userId))
      .returning()
    await invalidateUserSessions(tx, userId)
    // Recovering the account cancels the email or phone changes someone may have asked for (ADR 050).
    await tx.delete(contactChanges).where(eq(contactChanges.userId, userId))
    return updated!
  })
  deps.onSessionsEnded?.({ userId: user.id })
  await clearLoginCounters(deps, user.email)
  const session = await createSession(deps.db, deps.clock, user.id, meta)
  return { user, session, twoFactorRequired: await twoFactorIsOn(deps.db, user.id) }
}

/** The link to the account page that confirms a new address: a mode of /auth, the token in the fragment (ADRs 013, 029, 050). */
const emailChangeLink = (appUrl: string, token: string) => `${appUrl}/auth?mode=change-email#token=${token}`

/**
 * The account page's emails. The link to a new address carries nothing the person typed (it is not
 * proven theirs yet); the token is made here, when the job runs, and replaces any earlier one of the
 * same pending change.
 */
async function deliverSettingsEmail(
  deps: AccountDeps,
  email: Extract<AccountEmail, { kind: 'change-email' | 'email-change-notice' | 'password-changed' | 'phone-changed' }>,
): Promise<'sent' | 'skipped'> {
  const now = deps.clock.now()
  if (email.kind === 'change-email') {
    const token = randomToken(32)
    const [pending] = await deps.db
      .update(contactChanges)
      .set({ secretHash: hashSecret(token) })
      .where(and(eq(contactChanges.userId, email.userId), eq(contactChanges.kind, 'email'), gt(contactChanges.expiresAt, now)))
      .returning({ newEmail: contactChanges.newValue, expiresAt: contactChanges.expiresAt })
    if (!pending) return 'skipped'
    await deps.mailer.send(
      composeEmail({
        kind: 'new_email_confirmation',
        to: pending.newEmail,
        subject: 'Confirm your new email for Momentum Coach',
        greeting: 'Hello,',
        paragraphs: [
          'Someone asked to make this address the email of a Momentum Coach account. Confirm it to start using it: until then, the account keeps its current email.',
        ],
        action: 'Confirm my new email',
        link: emailChangeLink(deps.config.appUrl, token),
        footer: `This link works once and expires in ${EMAIL_CHANGE_TTL_HOURS} hours. If you did not ask for this, you can ignore this email: nothing changes.`,
      }),
    )
    return 'sent'
  }
  const [user] = await deps.db.select().from(users).where(eq(users.id, email.userId)).limit(1)
  if (!user) return 'skipped'
  const greeting = user.emailConfirmedAt ? `Hi ${user.fullName},` : 'Hello,'
  if (email.kind === 'email-change-notice') {
    await deps.mailer.send(
      composeEmail({
        kind: 'email_change_notice',
        to: email.oldEmail,
        subject: 'Your Momentum Coach email is changing',
        greeting,
        paragraphs: [
          `Someone signed in to your Momentum Coach account asked to change its email to ${email.newEmail}. We sent a confirmation link there. Until it is followed, your email stays ${email.oldEmail}, and you can keep signing in with it.`,
          'If this was not you, reset your password now (Forgot Password? on the sign-in page): that cancels the change and signs out every other device.',
        ],
        action: 'Review your account',
        link: `${deps.config.appUrl}/account`,
        footer: 'You are receiving this because this address is the email of a Momentum Coach account.',
      }),
    )
    return 'sent'
  }
  if (email.kind === 'phone-changed') {
    await deps.mailer.send(
      composeEmail({
        kind: 'phone_changed',
        to: user.email,
        subject: 'Your Momentum Coach phone number was changed',
        greeting,
        paragraphs: [
          `The phone number of your Momentum Coach account was changed to ${formatPhone(email.phoneNumber)} on ${now.toUTCString()}: your coaching calls and texts now go to it.`,
          'Not you? Reset your password now (Forgot Password? on the sign-in page), which signs out every other device, then change the number back on your account page.',
        ],
        action: 'Review your account',
        link: `${deps.config.appUrl}/account`,
        footer: 'You are receiving this because this address is the email of a Momentum Coach account.',
      }),
    )
    return 'sent'
  }
  await deps.mailer.send(
    composeEmail({
      kind: 'password_changed',
      to: user.email,
      subject: 'Your Momentum Coach password was changed',
      greeting,
      paragraphs: [
        `The password of your Momentum Coach account was changed on ${now.toUTCString()}, and every other device signed in to it was signed out.`,
        'If this was not you, reset your password now (Forgot Password? on the sign-in page) and review the devices signed in to your account.',
      ],
      action: 'Review your account',
      link: `${deps.config.appUrl}/account`,
      footer: 'You are receiving this because this address is the email of a Momentum Coach account.',
    }),
  )
  return 'sent'
}
