/**
 * The account page's profile (issue 16, docs/decisions/050): the name, and changes of the email and
 * the phone number that take effect only once confirmed: a link emailed to the new address, a code
 * texted to the new number. Until then the current ones keep working (sign-in, calls, texts).
 * Every query is by the signed-in user's id.
 */
import { randomInt } from 'node:crypto'
import { and, eq, gt, isNull, sql } from 'drizzle-orm'
import {
  EMAIL_CHANGE_TTL_HOURS,
  PHONE_CODE_ATTEMPTS,
  PHONE_CODE_DIGITS,
  PHONE_CODE_TTL_MINUTES,
  type AccountResponse,
} from '#common/account'
import { displayPhoneNumber } from '#common/opt-in'
import { hashSecret, secretMatches } from '#server/auth/tokens'
import type { DbExecutor } from '#server/db/client'
import { contactChanges, emailTokens, profiles, users, type ContactChangeKind, type User } from '#server/db/schema'
import type { TextSendResult } from '#server/integrations/twilio'
import { AppError } from '#server/lib/app-error'
import { admitCode, isStopped, proofOf, recordProof, stopNumber, stoppedMessage } from '#server/services/phones'
import {
  HOUR,
  MINUTE,
  assertCurrentPassword,
  isUniqueViolation,
  mailAllowance,
  tooMany,
  type AccountDeps,
} from './accounts'
import { SEND_EMAIL_JOB, type AccountEmail } from './jobs'
import { assertSecondFactor } from './two-factor'

/**
 * Where a code goes: the texts service (Twilio, or the log without it). `canSend`: false where a code
 * could reach no one (production without Twilio: the log never holds a code there).
 */
export type PhoneCodeSender = {
  readonly live: boolean
  readonly canSend: boolean
  send(phoneDigits: string, code: string, purpose: 'change' | 'proof'): Promise<TextSendResult>
}

export type SettingsDeps = AccountDeps & { phoneCodes: PhoneCodeSender }

async function pendingChanges(deps: AccountDeps, userId: string): Promise<Map<ContactChangeKind, { newValue: string; expiresAt: Date }>> {
  const rows = await deps.db
    .select({ kind: contactChanges.kind, newValue: contactChanges.newValue, expiresAt: contactChanges.expiresAt })
    .from(contactChanges)
    .where(and(eq(contactChanges.userId, userId), gt(contactChanges.expiresAt, deps.clock.now())))
  return new Map(rows.map((row) => [row.kind, row]))
}

export async function accountView(deps: SettingsDeps, userId: string): Promise<AccountResponse> {
  const [[user], pending] = await Promise.all([deps.db.select().from(users).where(eq(users.id, userId)).limit(1), pendingChanges(deps, userId)])
  if (!user) throw new AppError('UNAUTHENTICATED')
  const [proof, stopped] = await Promise.all([proofOf(deps.db, userId, user.phoneNumber), isStopped(deps.db, user.phoneNumber)])
  const email = pending.get('email')
  const phone = pending.get('phone')
  const verification = pending.get('phone_proof')
  return {
    fullName: user.fullName,
    email: user.email,
    emailConfirmed: user.emailConfirmedAt !== null,
    phoneNumber: user.phoneNumber,
    pendingEmail: email ? { email: email.newValue, expiresAt: email.expiresAt.toISOString() } : null,
    pendingPhone: phone ? { phoneNumber: phone.newValue, expiresAt: phone.expiresAt.toISOString() } : null,
    textsLive: deps.phoneCodes.live,
    phoneVerified: proof !== null,
    phoneStopped: stopped,
    pendingVerification: verification && verification.newValue === user.phoneNumber && !proof ? { expiresAt: verification.expiresAt.toISOString() } : null,
    smsDisplayNumber: displayPhoneNumber(deps.config.smsOptInNumber),
  }
}

/** The name, on the account and on the profile the coach reads it from. */
export async function updateName(deps: SettingsDeps, userId: string, fullName: string): Promise<AccountResponse> {
  const now = deps.clock.now()
  await deps.db.transaction(async (tx) => {
    await tx.update(users).set({ fullName, updatedAt: now }).where(eq(users.id, userId))
    await tx.update(profiles).set({ name: fullName, updatedAt: now }).where(eq(profiles.id, userId))
  })
  return accountView(deps, userId)
}

/** Writes the user's one pending change of a kind, replacing an earlier one (its link or code stops working). */
async function savePending(deps: AccountDeps, userId: string, kind: ContactChangeKind, newValue: string, secretHash: Uint8Array | null, ttlMs: number): Promise<void> {
  const now = deps.clock.now()
  const values = { newValue, secretHash, attempts: 0, expiresAt: new Date(now.getTime() + ttlMs), createdAt: now }
  await deps.db
    .insert(contactChanges)
    .values({ userId, kind, ...values })
    .onConflictDoUpdate({ target: [contactChanges.userId, contactChanges.kind], set: values })
}

/**
 * Asks for a new email address: the current password first, then a link to the new address (the
 * send-email job makes it), and a word to the current one when it is confirmed. Nothing changes
 * until the link is followed. At most one request a minute and five an hour.
 */
export async function requestEmailChange(
  deps: SettingsDeps,
  user: User,
  input: { newEmail: string; currentPassword: string; twoFactorCode?: string | undefined },
): Promise<AccountResponse> {
  if (input.newEmail === user.email) {
    throw new AppError('VALIDATION_FAILED', 'This is already your email address.', { field: 'newEmail' })
  }
  await assertCurrentPassword(deps, user, input.currentPassword)
  // With two-factor sign-in on, its code too (docs/decisions/072).
  await assertSecondFactor(deps, user.id, input.twoFactorCode, 'email_change')
  const [taken] = await deps.db.select({ id: users.id }).from(users).where(eq(users.email, input.newEmail)).limit(1)
  if (taken) throw new AppError('EMAIL_TAKEN', undefined, { field: 'newEmail' })
  const allowance = await mailAllowance(deps, user.id, 'change-email')
  if (!allowance.ok) {
    throw tooMany(allowance.resetAt, deps.clock.now().getTime(), 'We sent a confirmation link recently. Please check that inbox, or try again in a little while.')
  }
  await savePending(deps, user.id, 'email', input.newEmail, null, EMAIL_CHANGE_TTL_HOURS * HOUR)
  await deps.jobs.enqueue(SEND_EMAIL_JOB, { kind: 'change-email', userId: user.id } satisfies AccountEmail)
  // An address never confirmed is not known to be the person's: it is not written to.
  if (user.emailConfirmedAt) {
    await deps.jobs.enqueue(SEND_EMAIL_JOB, { kind: 'email-change-notice', userId: user.id, oldEmail: user.email, newEmail: input.newEmail } satisfies AccountEmail)
  }
  return accountView(deps, user.id)
}

/**
 * The emailed link, followed (with or without a session: the link may open in another browser).
 * The new address becomes the account's email, confirmed; the confirmation and reset links sent to
 * the old one stop working. Single use: the pending change is deleted as it is applied.
 */
export async function confirmEmailChange(deps: AccountDeps, token: string): Promise<{ userId: string; email: string }> {
  const now = deps.clock.now()
  let changed: { userId: string; email: string }
  try {
    changed = await deps.db.transaction(async (tx) => {
      const [change] = await tx
        .delete(contactChanges)
        .where(and(eq(contactChanges.secretHash, hashSecret(token)), eq(contactChanges.kind, 'email'), gt(contactChanges.expiresAt, now)))
        .returning({ userId: contactChanges.userId, email: contactChanges.newValue })
      if (!change) throw new AppError('INVALID_TOKEN', undefined, { field: 'token' })
      await tx.update(users).set({ email: change.email, emailConfirmedAt: now, updatedAt: now }).where(eq(users.id, change.userId))
      await tx
        .update(emailTokens)
        .set({ usedAt: now })
        .where(and(eq(emailTokens.userId, change.userId), isNull(emailTokens.usedAt)))
      return change
    })
  } catch (error) {
    // Someone signed up with the address since the change was asked for.
    if (isUniqueViolation(error)) throw new AppError('EMAIL_TAKEN', 'An account with this email already exists, so it cannot become yours.')
    throw error
  }
  await deps.onEmailChanged?.(changed.userId, changed.email)
  return changed
}

/** A code of PHONE_CODE_DIGITS digits from the CSPRNG. */
const newCode = () => String(randomInt(0, 10 ** PHONE_CODE_DIGITS)).padStart(PHONE_CODE_DIGITS, '0')
/** Stored as the SHA-256 of the user's id and the code, so two people's equal codes never share a hash. */
const codeHash = (userId: string, code: string) => hashSecret(`${userId}:${code}`)

const codeGuard = (deps: SettingsDeps) => ({
  db: deps.db,
  counters: deps.counters,
  log: deps.log,
  now: () => deps.clock.now().getTime(),
  dailyCap: deps.config.phoneCodesDailyCap,
  smsNumber: deps.config.smsOptInNumber,
})

/**
 * Texts a code to `phoneNumber` for one kind of pending change (a new number, or the proof of the
 * current one): the guard every code passes (a confirmed email, a US or Canadian number, not on the
 * do-not-contact list, the per-number and daily caps), then one a minute and five an hour per person
 * and kind. The code is kept hashed, replacing an earlier one. Nothing reached: no code to wait for.
 */
async function textCode(deps: SettingsDeps, user: User, kind: 'phone' | 'phone_proof', phoneNumber: string): Promise<void> {
  if (!deps.phoneCodes.canSend) {
    throw new AppError('TEXT_NOT_SENT', 'Texts are not set up on this server, so we cannot text you a code.', { field: 'phoneNumber' })
  }
  await admitCode(
    codeGuard(deps),
    { emailConfirmed: user.emailConfirmedAt !== null, phoneNumber, field: 'phoneNumber', displaySmsNumber: displayPhoneNumber(deps.config.smsOptInNumber) },
    // The person's own limit before the number's and the service's caps are counted: one account
    // asking again and again (for any number) uses up its own allowance, not everyone's.
    async () => {
      const allowance = await mailAllowance(deps, user.id, kind === 'phone' ? 'phone-code' : 'phone-proof')
      if (!allowance.ok) {
        throw tooMany(allowance.resetAt, deps.clock.now().getTime(), 'We texted you a code recently. Please use it, or try again in a little while.')
      }
    },
  )
  const code = newCode()
  await savePending(deps, user.id, kind, phoneNumber, codeHash(user.id, code), PHONE_CODE_TTL_MINUTES * MINUTE)
  const sent = await deps.phoneCodes.send(phoneNumber, code, kind === 'phone' ? 'change' : 'proof')
  if (sent.kind === 'refused' || sent.kind === 'retry') {
    // Nothing reached the number: no code to wait for.
    await deps.db.delete(contactChanges).where(and(eq(contactChanges.userId, user.id), eq(contactChanges.kind, kind)))
    if (sent.kind === 'retry') throw new AppError('TEXT_NOT_SENT')
    deps.log.info({ userId: user.id, status: sent.status, code: sent.code }, 'account: a code text was refused by the text provider')
    if (sent.code === 21610) {
      // The number texted STOP to Twilio while we did not hear it: it goes on the do-not-contact list.
      await stopNumber(deps.db, { number: phoneNumber, source: 'carrier_opt_out', messageSid: null, at: deps.clock.now() })
      throw new AppError('PHONE_UNREACHABLE', stoppedMessage(displayPhoneNumber(deps.config.smsOptInNumber)), { field: 'phoneNumber' })
    }
    throw new AppError('PHONE_UNREACHABLE', 'We could not text a code to this number. Check that it is a mobile number that can receive texts.', { field: 'phoneNumber' })
  }
  // 'unknown' (a timeout, a 5xx): the text may well arrive, so its code stays valid.
  if (sent.kind === 'unknown') deps.log.warn({ userId: user.id }, 'account: unclear whether a code text was sent')
}

/**
 * Asks for a new phone number: the current password first (a new number redirects every call and
 * text), then a code texted to it (Twilio; the log without it, outside production). Calls and texts
 * keep going to the current number until the code is entered.
 */
export async function requestPhoneChange(deps: SettingsDeps, user: User, input: { phoneNumber: string; currentPassword: string }): Promise<AccountResponse> {
  if (input.phoneNumber === user.phoneNumber) {
    throw new AppError('VALIDATION_FAILED', 'This is already your phone number.', { field: 'phoneNumber' })
  }
  await assertCurrentPassword(deps, user, input.currentPassword)
  await textCode(deps, user, 'phone', input.phoneNumber)
  return accountView(deps, user.id)
}

/**
 * A new code for the phone change waiting for one (its password was checked when it was asked):
 * to the same new number, under the same guard. Nothing pending: 400 naming `code`.
 */
export async function resendPhoneChangeCode(deps: SettingsDeps, user: User): Promise<AccountResponse> {
  const pending = (await pendingChanges(deps, user.id)).get('phone')
  if (!pending) throw new AppError('INVALID_CODE', 'There is no number change waiting for a code. Start the change again.', { field: 'code' })
  await textCode(deps, user, 'phone', pending.newValue)
  return accountView(deps, user.id)
}

/**
 * Asks for a code to prove the current number ("Verify your number"): texted to it, under the same
 * guard as every code. A number already proven needs none.
 */
export async function requestPhoneProof(deps: SettingsDeps, user: User): Promise<AccountResponse> {
  if (await proofOf(deps.db, user.id, user.phoneNumber)) return accountView(deps, user.id)
  await textCode(deps, user, 'phone_proof', user.phoneNumber)
  return accountView(deps, user.id)
}

type CodeOutcome = 'expired' | 'used-up' | 'wrong' | 'confirmed'

/**
 * Takes the person's pending change of `kind` if `code` is its code (the row is locked, so a burst
 * of tries is serialised and gets no more): PHONE_CODE_ATTEMPTS wrong codes void it. On the right
 * code, `apply` runs in the same transaction with the change's value, and the change is deleted.
 */
async function takeCode(deps: SettingsDeps, userId: string, kind: 'phone' | 'phone_proof', code: string, apply: (tx: DbExecutor, value: string) => Promise<boolean>): Promise<CodeOutcome> {
  const now = deps.clock.now()
  return deps.db.transaction(async (tx) => {
    const [change] = await tx
      .select()
      .from(contactChanges)
      .where(and(eq(contactChanges.userId, userId), eq(contactChanges.kind, kind)))
      .for('update')
      .limit(1)
    if (!change || change.expiresAt.getTime() <= now.getTime() || !change.secretHash) return 'expired' as const
    if (!secretMatches(`${userId}:${code}`, change.secretHash)) {
      const attempts = change.attempts + 1
      if (attempts >= PHONE_CODE_ATTEMPTS) {
        await tx.delete(contactChanges).where(eq(contactChanges.id, change.id))
        return 'used-up' as const
      }
      await tx.update(contactChanges).set({ attempts: sql`${contactChanges.attempts} + 1` }).where(eq(contactChanges.id, change.id))
      return 'wrong' as const
    }
    await tx.delete(contactChanges).where(eq(contactChanges.id, change.id))
    return (await apply(tx, change.newValue)) ? ('confirmed' as const) : ('expired' as const)
  })
}

function refuseCode(outcome: Exclude<CodeOutcome, 'confirmed'>): never {
  if (outcome === 'used-up') throw new AppError('INVALID_CODE', 'That code is not right, and it was the last try. Ask for a new code.', { field: 'code' })
  if (outcome === 'wrong') throw new AppError('INVALID_CODE', undefined, { field: 'code' })
  throw new AppError('INVALID_CODE', 'This code has expired or was replaced. Ask for a new one.', { field: 'code' })
}

/**
 * The texted code, entered: the new number becomes the account's (the account's and the profile's
 * copy, which calls and texts read), proven by the code; the account's email is told.
 */
export async function confirmPhoneChange(deps: SettingsDeps, userId: string, code: string): Promise<AccountResponse> {
  const now = deps.clock.now()
  let newNumber = ''
  const outcome = await takeCode(deps, userId, 'phone', code, async (tx, phoneNumber) => {
    newNumber = phoneNumber
    await tx.update(users).set({ phoneNumber, updatedAt: now }).where(eq(users.id, userId))
    await tx.update(profiles).set({ phoneNumber, updatedAt: now }).where(eq(profiles.id, userId))
    // The code reached the new number and came back: it is proven the person's.
    await recordProof(tx, { userId, phoneNumber, method: 'code', at: now })
    return true
  })
  if (outcome !== 'confirmed') refuseCode(outcome)
  await deps.jobs
    .enqueue(SEND_EMAIL_JOB, { kind: 'phone-changed', userId, phoneNumber: newNumber } satisfies AccountEmail)
    .catch((error: unknown) => deps.log.error({ err: error, userId }, 'account: could not queue the phone change email'))
  return accountView(deps, userId)
}

/** The code texted to the current number, entered: the number is proven the person's. */
export async function confirmPhoneProof(deps: SettingsDeps, userId: string, code: string): Promise<AccountResponse> {
  const now = deps.clock.now()
  const outcome = await takeCode(deps, userId, 'phone_proof', code, async (tx, phoneNumber) => {
    // The code proves the number it went to, if that is still the account's.
    const [user] = await tx.select({ phoneNumber: users.phoneNumber }).from(users).where(eq(users.id, userId)).limit(1)
    if (user?.phoneNumber !== phoneNumber) return false
    await recordProof(tx, { userId, phoneNumber, method: 'code', at: now })
    return true
  })
  if (outcome !== 'confirmed') refuseCode(outcome)
  return accountView(deps, userId)
}

/** Withdraws the person's pending change of a kind (its link or code stops working). */
export async function cancelChange(deps: SettingsDeps, userId: string, kind: ContactChangeKind): Promise<AccountResponse> {
  await deps.db.delete(contactChanges).where(and(eq(contactChanges.userId, userId), eq(contactChanges.kind, kind)))
  return accountView(deps, userId)
}
