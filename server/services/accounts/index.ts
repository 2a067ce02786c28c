/**
 * Accounts: sign-up, login, email confirmation and password reset over emailed links, the session
 * user and the post-login routing, the text opt-in, and the account page's profile, password and
 * sessions (settings.ts, security.ts). Sessions themselves are server/auth.
 */
import { invalidateSession, sessionIsLive, validateSessionToken } from '#server/auth/session'
import type { User } from '#server/db/schema'
import {
  confirmEmail,
  deliverAccountEmail,
  logIn,
  reauthenticate,
  requestPasswordReset,
  resetPassword,
  sendConfirmationEmail,
  signUp,
  type RequestMeta,
  type SignupInput,
} from './accounts'
import type { ConsentRequestMeta } from '#server/services/consent'
import { SEND_EMAIL_JOB, type AccountEmail } from './jobs'
import { getOptIn, recordOptIn } from './opt-in'
import { changePassword, listSessions, signOutOtherSessions, signOutSession } from './security'
import { postLoginDestination, toSessionUser } from './session-user'
import {
  beginTwoFactorSetup,
  completeTwoFactorSignIn,
  disableTwoFactor,
  enableTwoFactor,
  regenerateRecoveryCodes,
  twoFactorStatus,
} from './two-factor'
import {
  accountView,
  cancelChange,
  confirmEmailChange,
  confirmPhoneChange,
  confirmPhoneProof,
  requestEmailChange,
  requestPhoneProof,
  resendPhoneChangeCode,
  requestPhoneChange,
  updateName,
  type SettingsDeps,
} from './settings'

export {
  LOGIN_FREE_FAILURES,
  SIGNUPS_PER_IP_PER_HOUR,
  TWO_FACTOR_FAILURES_PER_HOUR,
  type RequestMeta,
  type SessionsEnded,
} from './accounts'
export { sessionUserFrom } from './session-user'
export { ACCOUNTS_JOBS, type AccountsJob, type AccountsJobQueue } from './jobs'

export type Accounts = ReturnType<typeof createAccounts>

export function createAccounts(deps: SettingsDeps) {
  const { db, clock } = deps
  return {
    /** The signed-in person's current password, checked under the login limits (401 naming `password`). */
    reauthenticate: (userId: string, password: string) => reauthenticate(deps, userId, password),
    /** Every session of the person has ended (their account was deleted): their long-lived connections close. */
    sessionsOfUserEnded(userId: string) {
      deps.onSessionsEnded?.({ userId })
    },
    /** Queues the last email of a deleted account. */
    sendAccountDeletedEmail: (email: string) => deps.jobs.enqueue(SEND_EMAIL_JOB, { kind: 'account-deleted', email } satisfies AccountEmail).then(() => undefined),
    signUp: (input: SignupInput, meta: RequestMeta) => signUp(deps, input, meta),
    logIn: (input: { email: string; password: string }, meta: RequestMeta) => logIn(deps, input, meta),
    /** Signs a session out (its long-lived connections are told: deps.onSessionsEnded). */
    async logOut(sessionId: string) {
      await invalidateSession(db, sessionId)
      deps.onSessionsEnded?.({ sessionId })
    },
    /** Whether a session still stands (checked now and then by long-lived connections). */
    sessionIsLive: (sessionId: string) => sessionIsLive(db, sessionId, clock.now()),
    /** The session of a cookie value (with its user and access row), or null. */
    validateSession: (token: string) => validateSessionToken(db, clock, token),
    confirmEmail: (token: string) => confirmEmail(deps, token),
    sendConfirmationEmail: (user: User) => sendConfirmationEmail(deps, user),
    requestPasswordReset: (email: string) => requestPasswordReset(deps, email),
    /** The `send-email` job's work (server/jobs/send-email.ts). */
    deliverEmail: (email: AccountEmail, attempt: number) => deliverAccountEmail(deps, email, attempt),
    resetPassword: (token: string, password: string, meta: RequestMeta) => resetPassword(deps, token, password, meta),
    toSessionUser: (user: User) => toSessionUser(db, user, clock.now()),
    postLoginDestination: (userId: string) => postLoginDestination(db, userId, clock.now()),
    getOptIn: (userId: string) => getOptIn(db, userId),
    recordOptIn: (userId: string, consentText: string, meta: ConsentRequestMeta) =>
      recordOptIn(db, userId, { smsNumber: deps.config.smsOptInNumber, consentText, now: clock.now(), meta }),

    // The account page (docs/decisions/050): always the signed-in user's own records.
    /** The profile, with the email and phone changes waiting for their confirmation. */
    account: (userId: string) => accountView(deps, userId),
    updateName: (userId: string, fullName: string) => updateName(deps, userId, fullName),
    requestEmailChange: (user: User, input: { newEmail: string; currentPassword: string; twoFactorCode?: string | undefined }) => requestEmailChange(deps, user, input),
    /** The link emailed to the new address (no session needed); the person and the address it made theirs. */
    confirmEmailChange: (token: string) => confirmEmailChange(deps, token),
    requestPhoneChange: (user: User, input: { phoneNumber: string; currentPassword: string }) => requestPhoneChange(deps, user, input),
    /** A new code for the pending phone change (its password was checked when it was asked). */
    resendPhoneChangeCode: (user: User) => resendPhoneChangeCode(deps, user),
    confirmPhoneChange: (userId: string, code: string) => confirmPhoneChange(deps, userId, code),
    /** "Verify your number": a code texted to the current number, then entered (docs/decisions/060). */
    requestPhoneProof: (user: User) => requestPhoneProof(deps, user),
    confirmPhoneProof: (userId: string, code: string) => confirmPhoneProof(deps, userId, code),
    cancelChange: (userId: string, kind: 'email' | 'phone') => cancelChange(deps, userId, kind),
    changePassword: (user: User, sessionId: string, input: { currentPassword: string; newPassword: string; twoFactorCode?: string | undefined }) =>
      changePassword(deps, user, sessionId, input),
    listSessions: (userId: string, currentSessionId: string) => listSessions(deps, userId, currentSessionId),
    signOutSession: (userId: string, sessionId: string) => signOutSession(deps, userId, sessionId),
    signOutOtherSessions: (userId: string, currentSessionId: string) => signOutOtherSessions(deps, userId, currentSessionId),

    // Two-factor sign-in (docs/decisions/072): always the signed-in user's own.
    /** Whether it is on, since when, and the recovery codes left. */
    twoFactorStatus: (userId: string) => twoFactorStatus(deps, userId),
    /** The current password, then a new key to scan (not on until a code from it is confirmed). */
    beginTwoFactorSetup: (user: User, currentPassword: string) => beginTwoFactorSetup(deps, user, currentPassword),
    /** A code from the app turns it on: this session verified, the others signed out, 10 recovery codes returned once. */
    enableTwoFactor: (user: User, sessionId: string, code: string) => enableTwoFactor(deps, user, sessionId, code),
    /** The current password and a code turn it off. */
    disableTwoFactor: (user: User, sessionId: string, input: { currentPassword: string; code: string }) => disableTwoFactor(deps, user, sessionId, input),
    regenerateRecoveryCodes: (userId: string, code: string) => regenerateRecoveryCodes(deps, userId, code),
    /** The sign-in's second step, for a session waiting for its code. */
    completeTwoFactorSignIn: (session: { id: string; user: User; twoFactor: 'off' | 'pending' | 'verified' }, code: string) => completeTwoFactorSignIn(deps, session, code),
  }
}
